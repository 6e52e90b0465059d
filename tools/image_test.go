package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
)

func writePNG(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, h/2, color.RGBA{R: uint8(x), A: 255})
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// TestReadImage_REQ_BED_013: an image in the working tree comes back as one image, fitted to
// the same limits as the person's attachments.
func TestReadImage_REQ_BED_013(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Mode: domain.ModeRestricted, ImageLimits: imaging.DefaultLimits()}
	writePNG(t, filepath.Join(env.Cwd, "small.png"), 40, 30)
	if err := os.Mkdir(filepath.Join(env.Cwd, "shots"), 0o755); err != nil {
		t.Fatal(err)
	}
	writePNG(t, filepath.Join(env.Cwd, "shots", "wide.png"), 4000, 100)
	if err := os.WriteFile(filepath.Join(env.Cwd, "fake.png"), []byte("not an image at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(path string) Output {
		raw, _ := json.Marshal(map[string]string{"path": path})
		return NewReadImage().Run(context.Background(), env, raw)
	}

	out := run("small.png")
	if out.Outcome != domain.OutcomeSuccess || len(out.Images) != 1 {
		t.Fatalf("got %s %q with %d images", out.Outcome, out.Content, len(out.Images))
	}
	img := out.Images[0]
	sum := sha256.Sum256(img.Data)
	if img.Ref.SHA256 != hex.EncodeToString(sum[:]) || img.Ref.MediaType != "image/png" || img.Ref.Width != 40 ||
		img.Ref.Height != 30 || img.Ref.Size != len(img.Data) || img.Ref.Name != "small.png" {
		t.Errorf("ref %+v does not describe the data", img.Ref)
	}
	if !strings.Contains(out.Content, "small.png: image/png, 40×30 pixels") {
		t.Errorf("content %q", out.Content)
	}

	out = run("shots/wide.png")
	if out.Outcome != domain.OutcomeSuccess || len(out.Images) != 1 {
		t.Fatalf("wide: %s %q", out.Outcome, out.Content)
	}
	if r := out.Images[0].Ref; max(r.Width, r.Height) > imaging.DefaultLimits().MaxLongSide || r.Width <= r.Height {
		t.Errorf("wide image not fitted: %dx%d", r.Width, r.Height)
	}

	for _, c := range []struct{ path, want string }{
		{"fake.png", "PNG, JPEG, GIF and WebP"},
		{"missing.png", "no such file"},
		{"", "path is empty"},
	} {
		if out := run(c.path); out.Outcome != domain.OutcomeError || len(out.Images) != 0 || !strings.Contains(out.Content, c.want) {
			t.Errorf("%q: got %s %q", c.path, out.Outcome, out.Content)
		}
	}
}
