package ui

import (
	"errors"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/storage"

	"github.com/phoenix-desktop/phoenix/imaging"
)

// thumbSide is the longer side, in pixels, of the thumbnails kept in memory: enough for the
// composer's strip and the chat rows on a HiDPI screen.
const thumbSide = 192

// imageExts are the extensions of the image files the composer attaches: the Attach
// dialog's filter, and which files of a pasted file list are meant as images.
var imageExts = []string{".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"}

// prefAttachDir is the folder the last Attach chose from.
const prefAttachDir = "attach.dir"

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
// and decoding, so it runs off the UI goroutine. It reads at most imaging.MaxInputBytes (and
// one byte more, to notice a larger file), the same cap the runtime applies.
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
	data, err := io.ReadAll(io.LimitReader(rc, imaging.MaxInputBytes+1))
	if err != nil {
		return nil, &attachError{name, fmt.Sprintf("could not be read: %v.", err)}
	}
	return newAttachment(name, data)
}

// newAttachment validates image bytes and makes the thumbnail through imaging, the one path
// every image takes: the format comes from the bytes, the pixel count from the header, and a
// decompression bomb is refused before a single pixel is decoded.
func newAttachment(name string, data []byte) (*attachment, error) {
	// A BMP (some programs copy pictures only as BMP) is sent as PNG: no provider takes BMP.
	data, err := imaging.FromBMP(data)
	var thumb image.Image
	if err == nil {
		thumb, err = imaging.Thumbnail(data, thumbSide)
	}
	switch {
	case errors.Is(err, imaging.ErrTooLarge):
		return nil, &attachError{name, fmt.Sprintf("is too large (%s): attach a smaller image.", detail(err, imaging.ErrTooLarge))}
	case errors.Is(err, imaging.ErrNotImage) && imaging.MediaType(data) == "":
		return nil, &attachError{name, "is not an image: attach PNG, JPEG, GIF or WebP files."}
	case err != nil:
		return nil, &attachError{name, fmt.Sprintf("is a damaged image (%s).", detail(err, imaging.ErrNotImage))}
	}
	return &attachment{name: name, data: data, thumb: thumb}, nil
}

// detail is what an imaging error adds to its sentinel, for a person.
func detail(err, sentinel error) string {
	s := err.Error()
	if rest, ok := strings.CutPrefix(s, sentinel.Error()+": "); ok {
		return rest
	}
	return s
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
