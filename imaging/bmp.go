package imaging

import (
	"bytes"
	"fmt"
	"image/png"

	"golang.org/x/image/bmp"
)

// FromBMP returns data unchanged unless it is a BMP image, which no provider takes and some
// programs put on the clipboard alone; that it re-encodes as PNG (lossless, like the
// original), after the same guard every image gets: the dimensions are read from the header
// and checked against the pixel limit before a single pixel is decoded. The PNG then goes
// through Thumbnail and Prepare like any other image.
func FromBMP(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, []byte("BM")) {
		return data, nil
	}
	if err := checkInputSize(data); err != nil {
		return nil, err
	}
	cfg, err := bmp.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: the BMP header is corrupt or of a kind this app cannot read (%v)", ErrNotImage, err)
	}
	if err := checkPixels(cfg.Width, cfg.Height, defaultMaxPixels); err != nil {
		return nil, err
	}
	img, err := bmp.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: the BMP data is corrupt or truncated (%v)", ErrNotImage, err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encode the BMP image as PNG: %w", err)
	}
	return buf.Bytes(), nil
}
