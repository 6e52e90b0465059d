package imaging

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image/png"
	"testing"

	"golang.org/x/image/bmp"
)

func TestFromBMPMakesAPNGOfTheSamePixels(t *testing.T) {
	src := gradient(40, 30)
	var b bytes.Buffer
	if err := bmp.Encode(&b, src); err != nil {
		t.Fatal(err)
	}
	out, err := FromBMP(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if MediaType(out) != MediaPNG {
		t.Fatalf("FromBMP gave %q, want PNG", MediaType(out))
	}
	got, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{0, 0}, {39, 29}, {17, 11}} {
		r1, g1, b1, _ := src.At(p[0], p[1]).RGBA()
		r2, g2, b2, _ := got.At(p[0], p[1]).RGBA()
		if r1 != r2 || g1 != g2 || b1 != b2 {
			t.Errorf("pixel %v changed", p)
		}
	}
	// Anything that is not a BMP passes unchanged, PNG included.
	if same, err := FromBMP(out); err != nil || !bytes.Equal(same, out) {
		t.Errorf("a PNG was changed (%v)", err)
	}
}

// A BMP header claiming 30000×30000 pixels is refused before any pixel is decoded, and a
// damaged one is not an image.
func TestFromBMPGuards(t *testing.T) {
	var b bytes.Buffer
	if err := bmp.Encode(&b, gradient(4, 4)); err != nil {
		t.Fatal(err)
	}
	bomb := bytes.Clone(b.Bytes())
	binary.LittleEndian.PutUint32(bomb[18:], 30000) // width
	binary.LittleEndian.PutUint32(bomb[22:], 30000) // height
	if _, err := FromBMP(bomb); !errors.Is(err, ErrTooLarge) {
		t.Errorf("bomb: err = %v, want ErrTooLarge", err)
	}
	if _, err := FromBMP([]byte("BM garbage")); !errors.Is(err, ErrNotImage) {
		t.Errorf("garbage: err = %v, want ErrNotImage", err)
	}
	cut := b.Bytes()[:len(b.Bytes())-20]
	if _, err := FromBMP(cut); !errors.Is(err, ErrNotImage) {
		t.Errorf("truncated: err = %v, want ErrNotImage", err)
	}
}
