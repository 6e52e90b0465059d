package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// memBlobs is an in-memory BlobSource.
type memBlobs struct {
	mu    sync.Mutex
	blobs map[string][]byte
}

func (m *memBlobs) Blob(sha string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.blobs[sha]
	if !ok {
		return nil, fmt.Errorf("blob %s not found", sha)
	}
	return b, nil
}

// put stores raw bytes under their hash, the way the store does, and returns a reference
// with the given declared media type.
func (m *memBlobs) put(data []byte, name string) domain.ImageRef {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.blobs == nil {
		m.blobs = map[string][]byte{}
	}
	ref := imaging.Prepared{Data: data, MediaType: imaging.MediaPNG}.Ref(name)
	m.blobs[ref.SHA256] = data
	return ref
}

func startServer(t testing.TB) *fakellm.Server {
	t.Helper()
	s, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func newTestClient(t testing.TB, s *fakellm.Server, blobs BlobSource, edit func(*Config)) *Client {
	t.Helper()
	cfg := Config{BaseURL: s.URL(), APIKey: "sk-test-0123456789abcdef", Model: "gpt-4o", IdleTimeout: 10 * time.Second}
	if edit != nil {
		edit(&cfg)
	}
	c, err := New(cfg, blobs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func userMsg(seq uint64, text string, images ...domain.ImageRef) domain.Message {
	return domain.Message{Seq: seq, Kind: domain.KindUser, Text: text, Images: images}
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 31)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// patchPNGSize returns a copy of a PNG whose IHDR claims w×h, with its CRC fixed.
func patchPNGSize(data []byte, w, h uint32) []byte {
	out := append([]byte(nil), data...)
	binary.BigEndian.PutUint32(out[16:], w)
	binary.BigEndian.PutUint32(out[20:], h)
	binary.BigEndian.PutUint32(out[29:], crc32.ChecksumIEEE(out[12:29]))
	return out
}

// decodeDataURL returns the media type and dimensions of a data URL image.
func decodeDataURL(t *testing.T, url string) (string, int, int) {
	t.Helper()
	meta, data, ok := strings.Cut(strings.TrimPrefix(url, "data:"), ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		t.Fatalf("not a base64 data URL: %.60s", url)
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("data URL payload: %v", err)
	}
	mt, w, h, err := imaging.Inspect(raw)
	if err != nil {
		t.Fatalf("data URL image: %v", err)
	}
	if mt+";base64" != meta {
		t.Fatalf("data URL says %s, bytes are %s", meta, mt)
	}
	return mt, w, h
}

// collect streams a request and returns the text deltas and the outcome.
func collect(ctx context.Context, c *Client, req Request) ([]string, Response, error) {
	var deltas []string
	resp, err := c.Stream(ctx, req, func(d Delta) {
		if d.Kind == DeltaText {
			deltas = append(deltas, d.Text)
		}
	})
	return deltas, resp, err
}

func asError(t *testing.T, err error) *Error {
	t.Helper()
	e, ok := err.(*Error)
	if !ok {
		t.Fatalf("got %T %v, want *llm.Error", err, err)
	}
	return e
}
