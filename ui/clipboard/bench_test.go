package clipboard

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkRead measures what a paste costs before anything is attached or pasted, on a real
// X server, against its baseline in the same run: one xclip listing the targets, the least a
// paste through the desktop's tools can cost. "text" is a paste of text (the list only; Fyne
// then pastes the text), "screenshot" reads a 1920×1080 PNG of about 1 MB.
func BenchmarkRead(b *testing.B) {
	needX(b)
	x := startXvfb(b)
	env := map[string]string{"DISPLAY": x.display}
	r := System{MaxBytes: 50 << 20, Getenv: func(k string) string { return env[k] }}

	img := image.NewNRGBA(image.Rect(0, 0, 1920, 1080))
	// Flat areas and text-like noise, about what a 1080p screenshot weighs as PNG (1 MB).
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(i/4%1920) ^ byte(i/(4*1920))
		if (i/(4*1920))%8 == 0 {
			img.Pix[i] = byte(rng.Uint32())
		}
	}
	var shot bytes.Buffer
	if err := png.Encode(&shot, img); err != nil {
		b.Fatal(err)
	}

	b.Run("baseline: xclip lists the targets", func(b *testing.B) {
		own(b, x, "UTF8_STRING", []byte("some words"))
		for b.Loop() {
			cmd := exec.Command("xclip", XClip.List...)
			cmd.Env = append(os.Environ(), "DISPLAY="+x.display)
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("text", func(b *testing.B) {
		own(b, x, "UTF8_STRING", []byte("some words"))
		for b.Loop() {
			if c, err := r.Read(context.Background()); err != nil || c.Image != nil {
				b.Fatal(c, err)
			}
		}
	})
	b.Run("screenshot", func(b *testing.B) {
		own(b, x, "image/png", shot.Bytes())
		b.SetBytes(int64(shot.Len()))
		for b.Loop() {
			if c, err := r.Read(context.Background()); err != nil || len(c.Image) != shot.Len() {
				b.Fatal(len(c.Image), err)
			}
		}
	})
}
