package imaging

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// gradient is a test picture with detail everywhere, so that encoders cannot shrink it to
// nothing and resizing artefacts would show.
func gradient(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			img.Pix[i] = uint8(x * 255 / max(1, w))
			img.Pix[i+1] = uint8(y * 255 / max(1, h))
			img.Pix[i+2] = uint8((x ^ y) & 0xff)
			img.Pix[i+3] = 255
		}
	}
	return img
}

// noise does not compress, to force the size limit.
func noise(w, h int, seed uint64) *image.RGBA {
	r := rand.New(rand.NewPCG(seed, seed))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.UintN(256))
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

func encodePNG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func encodeGIF(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := gif.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bombPNG is a valid tiny PNG whose header claims w×h pixels, with a correct CRC, so that
// only the pixel guard can refuse it.
func bombPNG(t testing.TB, w, h uint32) []byte {
	t.Helper()
	data := encodePNG(t, gradient(1, 1))
	// IHDR data starts after the 8-byte signature, 4-byte length and 4-byte type.
	binary.BigEndian.PutUint32(data[16:], w)
	binary.BigEndian.PutUint32(data[20:], h)
	crc := crc32.ChecksumIEEE(data[12:29])
	binary.BigEndian.PutUint32(data[29:], crc)
	return data
}

// webpLossless is a 1×1 lossless WebP (from the libwebp test set), since Go cannot encode
// WebP.
var webpLossless, _ = base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")

func TestInspectFormats(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		mt   string
		w, h int
	}{
		{"png", encodePNG(t, gradient(30, 20)), MediaPNG, 30, 20},
		{"jpeg", encodeJPEG(t, gradient(31, 21)), MediaJPEG, 31, 21},
		{"gif", encodeGIF(t, gradient(12, 7)), MediaGIF, 12, 7},
		{"webp", webpLossless, MediaWebP, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mt, w, h, err := Inspect(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			if mt != tc.mt || w != tc.w || h != tc.h {
				t.Fatalf("got %s %dx%d, want %s %dx%d", mt, w, h, tc.mt, tc.w, tc.h)
			}
		})
	}
}

// TestBadImages_REQ_BED_013 covers the inputs a person or a model can hand us by mistake.
func TestBadImages_REQ_BED_013(t *testing.T) {
	good := encodePNG(t, gradient(64, 64))
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"text file named png", []byte("hello, I am not a picture\n"), ErrNotImage},
		{"empty", nil, ErrNotImage},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), ErrNotImage},
		{"truncated png", good[:len(good)/2], ErrNotImage},
		{"png signature only", good[:8], ErrNotImage},
		{"30000x30000 header", bombPNG(t, 30000, 30000), ErrTooLarge},
		{"zero width header", bombPNG(t, 0, 10), ErrNotImage},
		{"65535 square header", bombPNG(t, 65535, 65535), ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Prepare(tc.data, DefaultLimits())
			if !errors.Is(err, tc.want) {
				t.Fatalf("Prepare: got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestInspectDoesNotDecodeBomb(t *testing.T) {
	// The header check alone refuses it, so Inspect must too (it never decodes pixels).
	_, _, _, err := Inspect(bombPNG(t, 30000, 30000))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "30000x30000") {
		t.Fatalf("error does not say the size: %v", err)
	}
}

func TestPrepareKeepsImagesWithinLimits(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"png", encodePNG(t, gradient(200, 100))},
		{"jpeg", encodeJPEG(t, gradient(200, 100))},
		{"webp", webpLossless},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Prepare(tc.data, DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(p.Data, tc.data) {
				t.Fatal("an image within the limits was re-encoded")
			}
		})
	}
}

func TestPrepareDownscales(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		data           []byte
		lim            Limits
		wantW, wantH   int
		wantMediaTypes []string
	}{
		{"wide png to long side", encodePNG(t, gradient(1200, 600)), Limits{MaxLongSide: 500}, 500, 250, []string{MediaPNG}},
		{"halving then kernel", encodePNG(t, gradient(1300, 700)), Limits{MaxLongSide: 300}, 300, 161, []string{MediaPNG}},
		{"tall jpeg to long side", encodeJPEG(t, gradient(250, 1000)), Limits{MaxLongSide: 400}, 100, 400, []string{MediaJPEG}},
		{"gif becomes png", encodeGIF(t, gradient(40, 30)), Limits{}, 40, 30, []string{MediaPNG}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Prepare(tc.data, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			if p.Width != tc.wantW || p.Height != tc.wantH {
				t.Fatalf("got %dx%d, want %dx%d", p.Width, p.Height, tc.wantW, tc.wantH)
			}
			mt, w, h, err := Inspect(p.Data)
			if err != nil {
				t.Fatalf("prepared bytes do not inspect: %v", err)
			}
			if w != p.Width || h != p.Height || mt != p.MediaType {
				t.Fatalf("Prepared says %s %dx%d, bytes are %s %dx%d", p.MediaType, p.Width, p.Height, mt, w, h)
			}
			if !strings.Contains(strings.Join(tc.wantMediaTypes, " "), mt) {
				t.Fatalf("media type %s, want one of %v", mt, tc.wantMediaTypes)
			}
		})
	}
}

func TestPrepareMeetsByteLimit(t *testing.T) {
	t.Parallel()
	// 500×500 of noise is about 750 kB as PNG; 60 kB forces JPEG and then smaller sizes.
	data := encodePNG(t, noise(500, 500, 1))
	lim := Limits{MaxLongSide: 1568, MaxBytes: 60_000}
	p, err := Prepare(data, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Data) > lim.MaxBytes {
		t.Fatalf("prepared image has %d bytes, limit %d", len(p.Data), lim.MaxBytes)
	}
	if p.MediaType != MediaJPEG {
		t.Fatalf("noise should have needed JPEG, got %s", p.MediaType)
	}
	if p.Width != p.Height {
		t.Fatalf("aspect ratio lost: %dx%d", p.Width, p.Height)
	}
}

func TestPrepareGivesUpWhenImpossible(t *testing.T) {
	t.Parallel()
	_, err := Prepare(encodePNG(t, noise(100, 100, 2)), Limits{MaxBytes: 100})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

func TestPrepareFlattensTransparencyOntoWhite(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 100, 100)) // fully transparent
	lim := Limits{MaxLongSide: 80, MaxBytes: 1}       // impossible for PNG, so JPEG is tried
	got := flatten(img)
	r, g, b, _ := got.At(10, 10).RGBA()
	if r>>8 != 255 || g>>8 != 255 || b>>8 != 255 {
		t.Fatalf("transparent pixel flattened to %d,%d,%d, want white", r>>8, g>>8, b>>8)
	}
	if _, err := Prepare(encodePNG(t, img), lim); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}

func TestHalveAveragesBlocks(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	copy(src.Pix, []uint8{
		0, 0, 0, 255, 255, 255, 255, 255, 9, 9, 9, 9,
		255, 0, 0, 255, 0, 255, 0, 255, 9, 9, 9, 9,
	})
	got := halve(src)
	if got.Rect.Dx() != 1 || got.Rect.Dy() != 1 {
		t.Fatalf("size %v, want 1x1 (odd column dropped)", got.Rect)
	}
	// (0+255+255+0)/4 rounds to 128 for red; (0+255+0+255)/4 for green; (0+255+0+0)/4 blue.
	want := []uint8{128, 128, 64, 255}
	if !bytes.Equal(got.Pix, want) {
		t.Fatalf("got %v, want %v", got.Pix, want)
	}
}

func TestRefAndDataURL(t *testing.T) {
	data := encodePNG(t, gradient(10, 5))
	p, err := Prepare(data, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	ref := p.Ref("shot.png")
	sum := sha256.Sum256(data)
	if ref.SHA256 != hex.EncodeToString(sum[:]) || ref.MediaType != MediaPNG || ref.Width != 10 ||
		ref.Height != 5 || ref.Size != len(data) || ref.Name != "shot.png" {
		t.Fatalf("unexpected ref %+v", ref)
	}
	url := DataURL(MediaPNG, data)
	b64, ok := strings.CutPrefix(url, "data:image/png;base64,")
	if !ok {
		t.Fatalf("bad prefix: %.40s", url)
	}
	back, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || !bytes.Equal(back, data) {
		t.Fatalf("data URL does not round-trip: %v", err)
	}
}

func TestLimitsForModel(t *testing.T) {
	tests := []struct {
		model string
		long  int
	}{
		{"gpt-4o-mini", 2048},
		{"GPT-4.1", 2048},
		{"claude-sonnet-4-5", 1568},
		{"anthropic/claude-3.5-sonnet", 1568},
		{"gemini-2.5-pro", 3072},
		{"some-local-model", 1568},
		{"", 1568},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			if got := LimitsForModel(tc.model).MaxLongSide; got != tc.long {
				t.Fatalf("long side %d, want %d", got, tc.long)
			}
			if LimitsForModel(tc.model).MaxPixels <= 0 || LimitsForModel(tc.model).MaxBytes <= 0 {
				t.Fatal("limits must be complete")
			}
		})
	}
}

func TestPrepareFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := filepath.Join(dir, "huge.png")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: the cap must refuse it from its size, without reading 51 MB.
	if err := f.Truncate(MaxInputBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()

	tests := []struct {
		name string
		path string
		want error
	}{
		{"good png", write("ok.png", encodePNG(t, gradient(20, 20))), nil},
		{"text named png", write("notes.png", []byte("just text")), ErrNotImage},
		{"over the size cap", big, ErrTooLarge},
		{"directory", dir, ErrNotImage},
		{"missing", filepath.Join(dir, "nope.png"), os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PrepareFile(tc.path, DefaultLimits())
			if tc.want == nil {
				if err != nil || p.Width != 20 {
					t.Fatalf("got %+v, %v", p.Width, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.path) {
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}

func BenchmarkPrepareWithinLimits(b *testing.B) {
	data := encodePNG(b, gradient(1280, 800))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Prepare(data, DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPrepareDownscale4K(b *testing.B) {
	data := encodePNG(b, gradient(3840, 2160))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Prepare(data, DefaultLimits()); err != nil {
			b.Fatal(err)
		}
	}
}

// A PNG whose ancillary chunk (here a text chunk) has a wrong CRC — the reference MCP
// "everything" server sends such an image — is prepared without that chunk; a damaged
// critical chunk is still refused. Thumbnail does the same.
func TestPrepareDropsDamagedAncillaryChunk(t *testing.T) {
	good := encodePNG(t, gradient(20, 20))
	chunk := func(typ, body string, crc uint32) []byte {
		b := binary.BigEndian.AppendUint32(nil, uint32(len(body)))
		b = append(append(b, typ...), body...)
		return binary.BigEndian.AppendUint32(b, crc)
	}
	// After the signature (8 bytes) and IHDR (25 bytes).
	withBad := append(append(append([]byte{}, good[:33]...), chunk("tEXt", "Comment\x00hi", 12345)...), good[33:]...)
	p, err := Prepare(withBad, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p.Data, good) || p.Width != 20 {
		t.Errorf("prepared %d bytes %dx%d; want the image without the damaged chunk", len(p.Data), p.Width, p.Height)
	}
	// The window's thumbnail takes the same path: the composer accepts what read_image does.
	thumb, err := Thumbnail(withBad, 10)
	if err != nil {
		t.Fatalf("Thumbnail refused what Prepare accepts: %v", err)
	}
	if b := thumb.Bounds(); b.Dx() != 10 || b.Dy() != 10 {
		t.Errorf("thumbnail %v, want 10x10", b)
	}
	badIDAT := append([]byte{}, good...)
	badIDAT[len(badIDAT)-13] ^= 0xff // the last byte of the IDAT chunk's CRC
	if _, err := Prepare(badIDAT, DefaultLimits()); !errors.Is(err, ErrNotImage) {
		t.Errorf("a damaged IDAT was accepted: %v", err)
	}
	if _, err := Thumbnail(badIDAT, 10); !errors.Is(err, ErrNotImage) {
		t.Errorf("a damaged IDAT was accepted for a thumbnail: %v", err)
	}
}

// BombFile is a complete, valid PNG of 30000×30000 one-bit pixels in 109 KB: decoded, it
// would take 900 MB as 8-bit grey (3.6 GB as RGBA). The UI's tests drop it on the window.
const BombFile = "testdata/bomb-30000x30000.png"

// TestBombFileIsARealPNG proves the fixture is a real image and not a patched header: every
// chunk's CRC is right and its pixel data inflates to exactly the rows the header claims.
// It streams the inflation, so it costs no memory.
func TestBombFileIsARealPNG(t *testing.T) {
	data, err := os.ReadFile(BombFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 200<<10 {
		t.Fatalf("the bomb is %d bytes; it should be small", len(data))
	}
	var w, h uint32
	var idat bytes.Buffer
	for rest := data[8:]; len(rest) > 0; {
		n := binary.BigEndian.Uint32(rest)
		typ, body := string(rest[4:8]), rest[8:8+n]
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			t.Fatalf("chunk %s has a wrong CRC", typ)
		}
		switch typ {
		case "IHDR":
			w, h = binary.BigEndian.Uint32(body), binary.BigEndian.Uint32(body[4:])
			if body[8] != 1 || body[9] != 0 {
				t.Fatalf("depth %d colour type %d, want 1-bit grey", body[8], body[9])
			}
		case "IDAT":
			idat.Write(body)
		}
		rest = rest[12+n:]
	}
	if w != 30000 || h != 30000 {
		t.Fatalf("header claims %dx%d", w, h)
	}
	zr, err := zlib.NewReader(&idat)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, zr)
	if err != nil {
		t.Fatalf("the pixel data does not inflate: %v", err)
	}
	if want := int64(h) * int64(1+(w+7)/8); n != want {
		t.Fatalf("pixel data inflates to %d bytes, want %d", n, want)
	}
}

func TestThumbnailRefusesBombWithoutDecoding(t *testing.T) {
	data, err := os.ReadFile(BombFile)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = Thumbnail(data, 192)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "30000x30000") {
		t.Fatalf("Thumbnail(bomb) = %v, want ErrTooLarge naming the size", err)
	}
	// Decoding would allocate 900 MB; the header check allocates almost nothing.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("refusing the bomb allocated %d MB", alloc>>20)
	}
}

func TestThumbnailScalesDownAndKeepsSmallImages(t *testing.T) {
	img, err := Thumbnail(encodePNG(t, gradient(800, 400)), 192)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 192 || b.Dy() != 96 {
		t.Fatalf("thumbnail is %v, want 192x96", b)
	}
	img, err = Thumbnail(encodePNG(t, gradient(40, 30)), 192)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 40 || b.Dy() != 30 {
		t.Fatalf("a small image became %v", b)
	}
	if _, err := Thumbnail([]byte("not a picture"), 192); !errors.Is(err, ErrNotImage) {
		t.Fatalf("text: %v", err)
	}
	good := encodePNG(t, gradient(64, 64))
	if _, err := Thumbnail(good[:len(good)-30], 192); !errors.Is(err, ErrNotImage) {
		t.Fatalf("truncated: %v", err)
	}
}
