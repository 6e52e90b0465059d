package ui

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // decoders for the formats the person may attach
	_ "image/jpeg"
	_ "image/png"
	"io"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/storage"
	xdraw "golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// maxAttachmentBytes bounds what the composer reads from one file; the runtime downscales
// what it accepts before storing and sending it (REQ-BED-013).
const maxAttachmentBytes = 20 << 20

// attachment is an image in a draft: the bytes to send and a thumbnail to show.
type attachment struct {
	name  string
	data  []byte
	thumb image.Image
}

// attachError is a file that could not be attached, said for a person.
type attachError struct {
	name   string
	reason string
}

func (e *attachError) Error() string { return e.name + " " + e.reason }

// readAttachment reads one dropped or chosen file and checks that it is an image. It does I/O
// and decoding, so it runs off the UI goroutine.
func readAttachment(u fyne.URI) (*attachment, error) {
	name := u.Name()
	if name == "" {
		name = filepath.Base(u.Path())
	}
	rc, err := storage.Reader(u)
	if err != nil {
		return nil, &attachError{name, fmt.Sprintf("could not be opened: %v.", err)}
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxAttachmentBytes+1))
	if err != nil {
		return nil, &attachError{name, fmt.Sprintf("could not be read: %v.", err)}
	}
	return newAttachment(name, data)
}

// newAttachment validates image bytes and makes the thumbnail.
func newAttachment(name string, data []byte) (*attachment, error) {
	if len(data) > maxAttachmentBytes {
		return nil, &attachError{name, fmt.Sprintf("is larger than %d MB: attach a smaller image.", maxAttachmentBytes>>20)}
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		if _, _, cerr := image.DecodeConfig(bytes.NewReader(data)); cerr != nil {
			return nil, &attachError{name, "is not an image: attach PNG, JPEG, GIF or WebP files."}
		}
		return nil, &attachError{name, fmt.Sprintf("is a damaged image: %v.", err)}
	}
	return &attachment{name: name, data: data, thumb: shrink(img, 192)}, nil
}

// shrink scales img down so that its longer side is at most side pixels.
func shrink(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		h, w = max(1, h*side/w), side
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, xdraw.Src, nil)
	return dst
}

// thumbImage is a canvas image that fits the picture, in its proportions, into a square of
// the given side.
func thumbImage(img image.Image, side float32) *canvas.Image {
	ci := canvas.NewImageFromImage(img)
	ci.FillMode = canvas.ImageFillContain
	ci.ScaleMode = canvas.ImageScaleSmooth
	w, h := float32(img.Bounds().Dx()), float32(img.Bounds().Dy())
	size := fyne.NewSquareSize(side)
	if w > 0 && h > 0 {
		if w >= h {
			size.Height = max(16, side*h/w)
		} else {
			size.Width = max(16, side*w/h)
		}
	}
	ci.SetMinSize(size)
	return ci
}

// thumbCache holds decoded thumbnails of stored images by content hash. Owned by the UI
// goroutine; loads run on their own goroutines and report back through do.
type thumbCache struct {
	imgs    map[string]image.Image
	failed  map[string]bool
	loading map[string]bool
}

const thumbCacheMax = 512

func newThumbCache() *thumbCache {
	return &thumbCache{imgs: map[string]image.Image{}, failed: map[string]bool{}, loading: map[string]bool{}}
}

func (c *thumbCache) put(sha string, img image.Image) {
	if len(c.imgs) >= thumbCacheMax {
		// Thumbnails are cheap to load again; forgetting them all is simpler than an LRU and
		// happens only in very image-heavy sessions.
		c.imgs = map[string]image.Image{}
	}
	c.imgs[sha] = img
}
