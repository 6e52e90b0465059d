package imaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Sentinel errors, wrapped with the detail of what was wrong; compare with errors.Is.
var (
	// ErrNotImage means the bytes are not a PNG, JPEG, GIF or WebP image, or are corrupt.
	ErrNotImage = errors.New("not a supported image (PNG, JPEG, GIF or WebP)")
	// ErrTooLarge means the input is too big to decode safely, or cannot be made small
	// enough for the model.
	ErrTooLarge = errors.New("image is too large")
)

// Media types of the supported formats.
const (
	MediaPNG  = "image/png"
	MediaJPEG = "image/jpeg"
	MediaGIF  = "image/gif"
	MediaWebP = "image/webp"
)

// MaxInputBytes is the largest encoded input accepted at all. Nobody attaches a 50 MB
// screenshot on purpose; refusing before reading protects memory.
const MaxInputBytes = 50 << 20

// Limits are what a model accepts, plus the decode guard.
type Limits struct {
	// MaxLongSide is the largest width or height sent, in pixels.
	MaxLongSide int
	// MaxBytes is the largest encoded size sent (before base64).
	MaxBytes int
	// MaxPixels is the largest width×height that will be decoded at all. It guards against
	// decompression bombs: a few kilobytes of PNG can claim 30000×30000 pixels, which is
	// 3.6 GB of RGBA.
	MaxPixels int
}

// Default limits. Anthropic's are the strictest of the common providers (a long side of
// 1568 px before it downscales itself, and 5 MB of base64, which is 3.75 MB of bytes), so
// they are the safe choice for a model we do not know.
const (
	defaultLongSide  = 1568
	defaultMaxBytes  = 3_750_000
	defaultMaxPixels = 50_000_000
)

// DefaultLimits returns the conservative limits used for models the table does not know.
func DefaultLimits() Limits {
	return Limits{MaxLongSide: defaultLongSide, MaxBytes: defaultMaxBytes, MaxPixels: defaultMaxPixels}
}

// modelLimits maps a model name prefix to its limits; the longest matching prefix wins, the
// same rule as domain.ContextWindowFor. OpenAI scales high-detail images to fit 2048×2048
// and accepts up to 20 MB per image; we stay at 10 MB so that a request with several images
// stays far below the 50 MB request cap. Gemini accepts 3072 px; its inline-data cap is 20 MB
// per request, so 7 MB per image.
var modelLimits = []struct {
	prefix string
	lim    Limits
}{
	{"gpt-4o", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"gpt-4.1", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"gpt-4-turbo", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"gpt-5", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"o1", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"o3", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"o4", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"openai/", Limits{2048, 10_000_000, defaultMaxPixels}},
	{"claude", Limits{defaultLongSide, defaultMaxBytes, defaultMaxPixels}},
	{"anthropic/", Limits{defaultLongSide, defaultMaxBytes, defaultMaxPixels}},
	{"gemini", Limits{3072, 7_000_000, defaultMaxPixels}},
	{"google/gemini", Limits{3072, 7_000_000, defaultMaxPixels}},
}

// LimitsForModel returns the limits of a model by name, case-insensitively; unknown models
// get DefaultLimits.
func LimitsForModel(model string) Limits {
	model = strings.ToLower(strings.TrimSpace(model))
	best, bestLen := DefaultLimits(), 0
	for _, m := range modelLimits {
		if strings.HasPrefix(model, m.prefix) && len(m.prefix) > bestLen {
			best, bestLen = m.lim, len(m.prefix)
		}
	}
	return best
}

// normalized fills unset limits with the defaults, so a zero Limits is safe to pass.
func (l Limits) normalized() Limits {
	d := DefaultLimits()
	if l.MaxLongSide <= 0 {
		l.MaxLongSide = d.MaxLongSide
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = d.MaxPixels
	}
	return l
}

// MediaType is the media type of the supported format the bytes start like, or "" when they
// start like none of them: it tells "not an image at all" from "a damaged image" after an
// ErrNotImage. It reads the magic bytes only.
func MediaType(data []byte) string { return sniff(data) }

// sniff recognises a format from its magic bytes. The file name is never trusted: a text
// file renamed to .png must be refused here, not by the provider.
func sniff(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return MediaPNG
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return MediaJPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return MediaGIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return MediaWebP
	}
	return ""
}

func decodeConfig(mediaType string, r io.Reader) (image.Config, error) {
	switch mediaType {
	case MediaPNG:
		return png.DecodeConfig(r)
	case MediaJPEG:
		return jpeg.DecodeConfig(r)
	case MediaGIF:
		return gif.DecodeConfig(r)
	case MediaWebP:
		return webp.DecodeConfig(r)
	}
	return image.Config{}, fmt.Errorf("no decoder for %q", mediaType)
}

func decode(mediaType string, r io.Reader) (image.Image, error) {
	switch mediaType {
	case MediaPNG:
		return png.Decode(r)
	case MediaJPEG:
		return jpeg.Decode(r)
	case MediaGIF:
		// The first frame is what a provider would look at anyway.
		return gif.Decode(r)
	case MediaWebP:
		return webp.Decode(r)
	}
	return nil, fmt.Errorf("no decoder for %q", mediaType)
}

// Inspect identifies an image from its bytes and reads its dimensions from the header only.
// It refuses images whose header claims more pixels than DefaultLimits().MaxPixels.
func Inspect(data []byte) (mediaType string, width, height int, err error) {
	return inspect(data, DefaultLimits().MaxPixels)
}

func inspect(data []byte, maxPixels int) (string, int, int, error) {
	if err := checkInputSize(data); err != nil {
		return "", 0, 0, err
	}
	mt := sniff(data)
	if mt == "" {
		return "", 0, 0, fmt.Errorf("%w: the content does not start like any of them; attach a screenshot or photo in one of these formats", ErrNotImage)
	}
	cfg, err := decodeConfig(mt, bytes.NewReader(data))
	if err != nil {
		return "", 0, 0, fmt.Errorf("%w: the %s header is corrupt (%v)", ErrNotImage, mt, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return "", 0, 0, fmt.Errorf("%w: the %s header claims %dx%d pixels", ErrNotImage, mt, cfg.Width, cfg.Height)
	}
	if err := checkPixels(cfg.Width, cfg.Height, maxPixels); err != nil {
		return "", 0, 0, err
	}
	return mt, cfg.Width, cfg.Height, nil
}

// checkInputSize refuses input larger than MaxInputBytes.
func checkInputSize(data []byte) error {
	if len(data) > MaxInputBytes {
		return fmt.Errorf("%w: %d bytes, more than the %d MB accepted", ErrTooLarge, len(data), MaxInputBytes>>20)
	}
	return nil
}

// checkPixels is the decompression-bomb guard: it refuses dimensions, read from a header,
// of more than maxPixels pixels.
func checkPixels(w, h, maxPixels int) error {
	// Compare in int64 so that a header claiming 65535×65535 cannot overflow on 32-bit.
	if int64(w)*int64(h) > int64(maxPixels) {
		return fmt.Errorf("%w: %dx%d pixels is more than the %d megapixels this app decodes; scale it down first",
			ErrTooLarge, w, h, maxPixels/1_000_000)
	}
	return nil
}

// Prepared is an image ready to send: validated, and within the limits it was prepared for.
type Prepared struct {
	Data      []byte
	MediaType string
	Width     int
	Height    int
}

// Ref describes the prepared bytes for storage in a message (REQ-BED-013).
func (p Prepared) Ref(name string) domain.ImageRef {
	sum := sha256.Sum256(p.Data)
	return domain.ImageRef{
		SHA256:    hex.EncodeToString(sum[:]),
		MediaType: p.MediaType,
		Width:     p.Width,
		Height:    p.Height,
		Size:      len(p.Data),
		Name:      name,
	}
}

// DataURL encodes bytes as a data URL, the form chat completion APIs take images in.
func DataURL(mediaType string, data []byte) string {
	prefix := "data:" + mediaType + ";base64,"
	buf := make([]byte, len(prefix)+base64.StdEncoding.EncodedLen(len(data)))
	copy(buf, prefix)
	base64.StdEncoding.Encode(buf[len(prefix):], data)
	return string(buf)
}

// Prepare validates an image and makes it fit the limits. Every image is decoded in full
// once, even when it already fits: a truncated file passes a header check, and a corrupt
// image that reached the history would make the provider reject every later request of the
// conversation. Images within the limits keep their original bytes (no generation loss);
// larger ones are downscaled with a Catmull-Rom filter and re-encoded, as PNG when they came
// as PNG, GIF or WebP (screenshots stay sharp), as JPEG otherwise or when PNG stays too big.
func Prepare(data []byte, lim Limits) (Prepared, error) {
	lim = lim.normalized()
	mt, w, h, err := inspect(data, lim.MaxPixels)
	if err != nil {
		return Prepared{}, err
	}
	img, data, err := decodeRepairing(mt, data)
	if err != nil {
		return Prepared{}, err
	}
	// GIFs are always re-encoded: several providers refuse animated GIFs, and the first frame
	// is all a model would see.
	if mt != MediaGIF && max(w, h) <= lim.MaxLongSide && len(data) <= lim.MaxBytes {
		return Prepared{Data: data, MediaType: mt, Width: w, Height: h}, nil
	}
	return shrink(img, mt, lim)
}

// decodeRepairing decodes checked image bytes, the one decoding step of Prepare and
// Thumbnail. Decoders that browsers use skip a damaged ancillary PNG chunk (a colour
// profile, metadata); Go's does not. Without those chunks the image is valid and looks the
// same, so a PNG that fails is decoded again without them; used is the bytes that decoded.
func decodeRepairing(mt string, data []byte) (img image.Image, used []byte, err error) {
	img, err = decode(mt, bytes.NewReader(data))
	if err != nil && mt == MediaPNG {
		if repaired, ok := dropDamagedAncillaryChunks(data); ok {
			if img, err = decode(mt, bytes.NewReader(repaired)); err == nil {
				data = repaired
			}
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: the %s data is corrupt or truncated (%v)", ErrNotImage, mt, err)
	}
	return img, data, nil
}

// Thumbnail checks image bytes exactly as Prepare does (the format from the bytes, the
// dimensions from the header, the pixel limit before a single pixel is decoded), then
// decodes the image (with the same PNG repair, decodeRepairing) and scales it so that its longer side is at most side pixels, with the
// same resampling as Prepare. It is what the window shows for a dropped or stored image, so
// a decompression bomb dropped there is refused as cheaply as one sent to the model.
func Thumbnail(data []byte, side int) (image.Image, error) {
	mt, w, h, err := inspect(data, defaultMaxPixels)
	if err != nil {
		return nil, err
	}
	img, _, err := decodeRepairing(mt, data)
	if err != nil {
		return nil, err
	}
	if side <= 0 || max(w, h) <= side {
		return img, nil
	}
	tw, th := scaleToFit(w, h, side)
	return resize(img, tw, th), nil
}

// jpegQualities are tried in order at each size before the size is reduced further.
var jpegQualities = []int{85, 70}

// shrink fits img into the limits: first the long side, then the encoded size, by trying
// cheaper encodings before smaller sizes. It gives up below 64 px, which would be useless
// (an image that was smaller to begin with gets one attempt at its own size).
func shrink(img image.Image, srcType string, lim Limits) (Prepared, error) {
	b := img.Bounds()
	w, h := scaleToFit(b.Dx(), b.Dy(), lim.MaxLongSide)
	preferPNG := srcType != MediaJPEG
	for first := true; first || max(w, h) >= 64; first = false {
		scaled := img
		if w != b.Dx() || h != b.Dy() {
			scaled = resize(img, w, h)
		}
		if preferPNG {
			var buf bytes.Buffer
			// BestSpeed: a screenshot compresses almost as well, several times faster, and the
			// byte limit is checked anyway.
			enc := png.Encoder{CompressionLevel: png.BestSpeed}
			if err := enc.Encode(&buf, scaled); err != nil {
				return Prepared{}, fmt.Errorf("encode resized image as PNG: %w", err)
			}
			if buf.Len() <= lim.MaxBytes {
				return Prepared{Data: buf.Bytes(), MediaType: MediaPNG, Width: w, Height: h}, nil
			}
		}
		opaque := flatten(scaled)
		for _, q := range jpegQualities {
			var buf bytes.Buffer
			if err := jpeg.Encode(&buf, opaque, &jpeg.Options{Quality: q}); err != nil {
				return Prepared{}, fmt.Errorf("encode resized image as JPEG: %w", err)
			}
			if buf.Len() <= lim.MaxBytes {
				return Prepared{Data: buf.Bytes(), MediaType: MediaJPEG, Width: w, Height: h}, nil
			}
		}
		w, h = w*3/4, h*3/4
	}
	return Prepared{}, fmt.Errorf("%w: it cannot be encoded within %d bytes even at a small size", ErrTooLarge, lim.MaxBytes)
}

// resize scales img to w×h. While the image is at least twice the target, it is first
// halved with an exact 2×2 box average (the mipmap step: cheap, and it loses no detail the
// target could show); the rest is done by x/image/draw's Catmull-Rom kernel. Catmull-Rom
// alone costs about 300 ms for a 4K screenshot on this machine, because its support grows
// with the reduction factor; with the halving it is a fraction of that (BenchmarkPrepare*).
func resize(img image.Image, w, h int) image.Image {
	src := img
	for src.Bounds().Dx()/2 >= w && src.Bounds().Dy()/2 >= h {
		src = halve(toRGBA(src))
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}

// toRGBA returns img as premultiplied RGBA with its origin at 0,0, converting if needed.
// Premultiplied values are what a box average must work on, or transparent pixels would
// bleed their colour.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

// halve averages each 2×2 block into one pixel; an odd last row or column is dropped.
func halve(src *image.RGBA) *image.RGBA {
	w, h := src.Rect.Dx()/2, src.Rect.Dy()/2
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		r0 := src.Pix[2*y*src.Stride:]
		r1 := src.Pix[(2*y+1)*src.Stride:]
		out := dst.Pix[y*dst.Stride:]
		for x := range w {
			i, o := 8*x, 4*x
			for c := range 4 {
				sum := uint(r0[i+c]) + uint(r0[i+4+c]) + uint(r1[i+c]) + uint(r1[i+4+c])
				out[o+c] = uint8((sum + 2) >> 2)
			}
		}
	}
	return dst
}

// scaleToFit keeps the aspect ratio and never returns a zero side.
func scaleToFit(w, h, long int) (int, int) {
	if max(w, h) <= long {
		return w, h
	}
	if w >= h {
		return long, max(1, int(int64(h)*int64(long)/int64(w)))
	}
	return max(1, int(int64(w)*int64(long)/int64(h))), long
}

// flatten composes transparent pixels onto white, since JPEG has no alpha and black (what
// a plain conversion gives) makes dark-on-transparent screenshots unreadable.
func flatten(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	dst := image.NewRGBA(img.Bounds())
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), img, img.Bounds().Min, draw.Over)
	return dst
}

// PrepareFile reads an image file, refusing files over MaxInputBytes before reading them,
// and prepares it.
func PrepareFile(path string, lim Limits) (Prepared, error) {
	f, err := os.Open(path)
	if err != nil {
		return Prepared{}, fmt.Errorf("open image %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Prepared{}, fmt.Errorf("stat image %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return Prepared{}, fmt.Errorf("image %s: %w: it is not a regular file", path, ErrNotImage)
	}
	if st.Size() > MaxInputBytes {
		return Prepared{}, fmt.Errorf("image %s: %w: the file has %d MB, more than the %d MB accepted",
			path, ErrTooLarge, st.Size()>>20, MaxInputBytes>>20)
	}
	// Read at most one byte more than allowed, in case the file grows after Stat.
	data, err := io.ReadAll(io.LimitReader(f, MaxInputBytes+1))
	if err != nil {
		return Prepared{}, fmt.Errorf("read image %s: %w", path, err)
	}
	p, err := Prepare(data, lim)
	if err != nil {
		return Prepared{}, fmt.Errorf("image %s: %w", path, err)
	}
	return p, nil
}

// dropDamagedAncillaryChunks removes the PNG chunks that are ancillary (their type starts with
// a lower-case letter) and whose CRC is wrong. ok is false when there were none, or when the
// chunk structure itself is broken.
func dropDamagedAncillaryChunks(data []byte) ([]byte, bool) {
	const sigLen = 8
	out := append([]byte(nil), data[:sigLen]...)
	dropped := false
	for i := sigLen; i < len(data); {
		if len(data)-i < 12 {
			return nil, false
		}
		n := int(binary.BigEndian.Uint32(data[i:]))
		end := i + 12 + n
		if n < 0 || end > len(data) || end < i {
			return nil, false
		}
		typ, body := data[i+4:i+8], data[i+8:i+8+n]
		sum := binary.BigEndian.Uint32(data[i+8+n:])
		if crc32.ChecksumIEEE(append(append([]byte(nil), typ...), body...)) != sum && typ[0]&0x20 != 0 {
			dropped = true
		} else {
			out = append(out, data[i:end]...)
		}
		i = end
	}
	return out, dropped
}
