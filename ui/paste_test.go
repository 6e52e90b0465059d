package ui

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"golang.org/x/image/bmp"

	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/ui/clipboard"
)

// fakeClip is the desktop's clipboard for window tests: what Read returns, and how often it
// was asked.
type fakeClip struct {
	mu    sync.Mutex
	c     clipboard.Content
	err   error
	reads int
}

func (f *fakeClip) Read(context.Context) (clipboard.Content, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	return f.c, f.err
}

func (f *fakeClip) set(c clipboard.Content, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.c, f.err = c, err
}

// newPasteWindow opens a conversation whose window reads clip as the desktop's clipboard, and
// puts text on Fyne's (text-only) clipboard.
func newPasteWindow(t *testing.T, clip *fakeClip, text string) *harness {
	t.Helper()
	h, _ := newOpenConversation(t, func(_ *fakeBackend, d *Deps) { d.Clipboard = clip })
	h.app.Clipboard().SetContent(text)
	return h
}

// ctrlV is Ctrl+V in the composer, as the driver delivers it.
func ctrlV(h *harness) {
	h.m.win.Canvas().Focus(h.m.composer.entry)
	h.m.composer.entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: h.app.Clipboard()})
}

func encoded(t *testing.T, enc func(*bytes.Buffer, image.Image) error) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 24, 16))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	if err := enc(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func readPNG(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(pngFile(t, t.TempDir(), name, 30, 20, color.NRGBA{G: 0xff, A: 0xff}).Path())
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestPasteImagesAttachesThem_REQ_BED_013: a screenshot pasted with Ctrl+V (PNG), a photo
// (JPEG) and a BMP (sent as PNG) are attached like dropped images, the draft's words stay as
// they were, and the message sends all three.
func TestPasteImagesAttachesThem_REQ_BED_013(t *testing.T) {
	clip := &fakeClip{}
	h := newPasteWindow(t, clip, "text that must not be pasted")
	test.Type(h.m.composer.entry, "what is wrong here?")

	shot := readPNG(t, "shot.png")
	photo := encoded(t, func(b *bytes.Buffer, i image.Image) error { return jpeg.Encode(b, i, nil) })
	dib := encoded(t, func(b *bytes.Buffer, i image.Image) error { return bmp.Encode(b, i) })
	for i, c := range []clipboard.Content{
		{Image: shot, Type: "image/png"},
		{Image: photo, Type: "image/jpeg"},
		{Image: dib, Type: "image/bmp"},
	} {
		clip.set(c, nil)
		ctrlV(h)
		h.waitFor(c.Type+" attached", func() bool { return len(h.m.current.draft.atts) == i+1 })
	}
	if got := names(h.m.current.draft.atts); strings.Join(got, " ") != "pasted-150926.png pasted-150926.jpg pasted-150926.png" {
		t.Errorf("attachment names %q", got)
	}
	if h.m.composer.entry.Text != "what is wrong here?" || h.m.notice.box.Visible() {
		t.Errorf("after pasting: draft %q, inline %q", h.m.composer.entry.Text, h.m.notice.label.Text)
	}
	if len(h.m.composer.strip.Objects) != 3 {
		t.Errorf("the strip shows %d thumbnails, want 3", len(h.m.composer.strip.Objects))
	}

	// The same screenshot pasted again is attached once, as a drop would be.
	clip.set(clipboard.Content{Image: shot, Type: "image/png"}, nil)
	ctrlV(h)
	h.waitFor("the duplicate noticed", func() bool { return strings.Contains(h.m.notice.label.Text, "attached already") })

	test.Tap(h.m.composer.sendBtn)
	h.waitFor("the message with images", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1
	})
	got := h.f.sent[0]
	if got.text != "what is wrong here?" || len(got.images) != 3 {
		t.Fatalf("sent %q with %d images", got.text, len(got.images))
	}
	if !bytes.Equal(got.images[0].Data, shot) || !bytes.Equal(got.images[1].Data, photo) {
		t.Error("the PNG or the JPEG was not sent as it was pasted")
	}
	if imaging.MediaType(got.images[2].Data) != imaging.MediaPNG {
		t.Errorf("the BMP was sent as %q, want PNG", imaging.MediaType(got.images[2].Data))
	}
}

// TestPasteCopiedFilesAttachesTheImages: files copied in a file manager attach their images;
// a text file among them is named as not attached; a list without images pastes as text.
func TestPasteCopiedFilesAttachesTheImages(t *testing.T) {
	clip := &fakeClip{}
	h := newPasteWindow(t, clip, "/tmp/notes.txt")
	dir := t.TempDir()
	a := pngFile(t, dir, "red.png", 40, 30, color.NRGBA{R: 0xff, A: 0xff}).Path()
	b := pngFile(t, dir, "Blue Shot.PNG", 30, 40, color.NRGBA{B: 0xff, A: 0xff}).Path()
	txt := writeFile(t, dir, "notes.txt", "not a picture")
	clip.set(clipboard.Content{Files: []string{a, txt, b}}, nil)
	ctrlV(h)
	h.waitFor("two images", func() bool { return len(h.m.current.draft.atts) == 2 })
	if got := names(h.m.current.draft.atts); got[0] != "red.png" || got[1] != "Blue Shot.PNG" {
		t.Errorf("attached %q", got)
	}
	if msg := h.m.notice.label.Text; !strings.Contains(msg, "notes.txt is not an image") || !strings.Contains(msg, "Not attached") {
		t.Errorf("inline %q does not name the text file", msg)
	}
	if h.m.composer.entry.Text != "" {
		t.Errorf("the file list was also pasted as text: %q", h.m.composer.entry.Text)
	}

	clip.set(clipboard.Content{Files: []string{txt}}, nil)
	ctrlV(h)
	h.waitFor("the path pasted as text", func() bool { return h.m.composer.entry.Text == "/tmp/notes.txt" })
	if len(h.m.current.draft.atts) != 2 {
		t.Errorf("a list without images changed the attachments: %q", names(h.m.current.draft.atts))
	}
}

// TestPasteTextStillPastesText: with nothing but text on the clipboard, Ctrl+V and the
// context menu's Paste paste it where the cursor is.
func TestPasteTextStillPastesText(t *testing.T) {
	clip := &fakeClip{}
	h := newPasteWindow(t, clip, "hello")
	ctrlV(h)
	h.waitFor("the text", func() bool { return h.m.composer.entry.Text == "hello" })
	rightClickPaste(t, h)
	h.waitFor("the text again", func() bool { return h.m.composer.entry.Text == "hellohello" })
	if len(h.m.current.draft.atts) != 0 || clip.reads != 2 {
		t.Errorf("%d attachments, %d clipboard reads", len(h.m.current.draft.atts), clip.reads)
	}
}

// TestRightClickPasteAttachesAnImage: the composer's context menu pastes an image too.
func TestRightClickPasteAttachesAnImage(t *testing.T) {
	clip := &fakeClip{c: clipboard.Content{Image: readPNG(t, "x.png"), Type: "image/png"}}
	h := newPasteWindow(t, clip, "words")
	rightClickPaste(t, h)
	h.waitFor("the image", func() bool { return len(h.m.current.draft.atts) == 1 })
	if h.m.composer.entry.Text != "" {
		t.Errorf("the text was pasted as well: %q", h.m.composer.entry.Text)
	}
}

// rightClickPaste opens the composer's context menu and taps its Paste item.
func rightClickPaste(t *testing.T, h *harness) {
	t.Helper()
	h.m.composer.entry.TappedSecondary(&fyne.PointEvent{Position: fyne.NewPos(20, 10)})
	menu := h.m.win.Canvas().Overlays().Top()
	if menu == nil {
		t.Fatal("right-click opened no menu")
	}
	var paste fyne.Tappable
	walk(menu, func(o fyne.CanvasObject) {
		tp, ok := o.(fyne.Tappable)
		w, isWidget := o.(fyne.Widget)
		if !ok || !isWidget || paste != nil {
			return
		}
		for _, c := range test.WidgetRenderer(w).Objects() {
			if tx, ok := c.(*canvas.Text); ok && tx.Text == "Paste" {
				paste = tp
			}
		}
	})
	if paste == nil {
		t.Fatal("the context menu has no Paste item")
	}
	test.Tap(paste)
}

// TestPasteRefusalsLoseNothing: an image too large for the reader, a decompression bomb and
// bytes that are no image are refused with what to do; the draft's words and images stay, and
// no text is pasted in the image's place.
func TestPasteRefusalsLoseNothing(t *testing.T) {
	bomb, err := os.ReadFile("../imaging/testdata/bomb-30000x30000.png")
	if err != nil {
		t.Fatal(err)
	}
	clip := &fakeClip{}
	h := newPasteWindow(t, clip, "text that must not be pasted")
	test.Type(h.m.composer.entry, "my draft")
	clip.set(clipboard.Content{Image: readPNG(t, "kept.png"), Type: "image/png"}, nil)
	ctrlV(h)
	h.waitFor("the first image", func() bool { return len(h.m.current.draft.atts) == 1 })

	for _, tc := range []struct {
		name string
		c    clipboard.Content
		err  error
		want []string
	}{
		{"over the cap", clipboard.Content{}, &clipboard.TooLargeError{Type: "image/png", Max: imaging.MaxInputBytes},
			[]string{"The image/png on the clipboard is larger than the 50 MB", "scale it down"}},
		{"bomb", clipboard.Content{Image: bomb, Type: "image/png"}, nil,
			[]string{"pasted-150926.png is too large", "30000x30000 pixels", "Not attached"}},
		{"garbage", clipboard.Content{Image: []byte("\x00\x01 no picture at all"), Type: "image/png"}, nil,
			[]string{"pasted-150926.png is not an image", "Not attached"}},
		{"damaged BMP", clipboard.Content{Image: []byte("BM\x00\x01 damaged"), Type: "image/bmp"}, nil,
			[]string{"pasted-150926.png is not an image", "Not attached"}},
	} {
		h.m.clearInline()
		clip.set(tc.c, tc.err)
		ctrlV(h)
		h.waitFor("the refusal ("+tc.name+")", func() bool { return h.m.notice.label.Text != "" })
		for _, w := range tc.want {
			if !strings.Contains(h.m.notice.label.Text, w) {
				t.Errorf("%s: inline %q lacks %q", tc.name, h.m.notice.label.Text, w)
			}
		}
		if h.m.composer.entry.Text != "my draft" || len(h.m.current.draft.atts) != 1 {
			t.Errorf("%s: draft %q with %d images after the refusal", tc.name, h.m.composer.entry.Text, len(h.m.current.draft.atts))
		}
	}
}

// TestPasteWithoutToolSaysSoOnce: without xclip the first paste says which package to
// install, once; text pastes every time.
func TestPasteWithoutToolSaysSoOnce(t *testing.T) {
	clip := &fakeClip{err: &clipboard.MissingToolError{Tool: clipboard.XClip}}
	h := newPasteWindow(t, clip, "hi")
	ctrlV(h)
	h.waitFor("the text", func() bool { return h.m.composer.entry.Text == "hi" })
	if msg := h.m.notice.label.Text; !strings.Contains(msg, "Pasting images needs xclip") || !strings.Contains(msg, "sudo apt install xclip") {
		t.Fatalf("inline %q does not say what to install", msg)
	}
	h.m.clearInline()
	ctrlV(h)
	h.waitFor("the text again", func() bool { return h.m.composer.entry.Text == "hihi" })
	if h.m.notice.box.Visible() {
		t.Errorf("the notice came again: %q", h.m.notice.label.Text)
	}
}
