package ui

import (
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// newOpenConversation starts a harness with one empty conversation and opens it. Benchmarks
// pass their *testing.B as tb.
func newOpenConversation(t *testing.T, setup func(f *fakeBackend, d *Deps), tb ...testing.TB) (*harness, string) {
	var tt testing.TB = t
	if len(tb) > 0 {
		tt = tb[0]
	}
	tt.Helper()
	var id string
	h := newHarness(tt, func(f *fakeBackend, d *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Work", Cwd: "/home/ada/src/parser", Model: "gpt-4o"}).ID
		if setup != nil {
			setup(f, d)
		}
	})
	h.open(id)
	return h, id
}

func (h *harness) status() string { return h.m.status.label.Text }

func TestSendMessageAndSeeReply_REQ_BED_002(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("echo: hello")
	h.waitFor("the message to reach the backend", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1
	})
	if got := h.f.sent[0].text; got != "echo: hello" {
		t.Fatalf("sent %q", got)
	}
	h.waitFor("Thinking… in the status bar", func() bool { return h.status() == "Thinking…" })
	if h.m.composer.entry.Text != "" {
		t.Errorf("the composer still holds %q after sending", h.m.composer.entry.Text)
	}
	if !h.m.status.stopBtn.Visible() {
		t.Error("Stop is hidden while the agent thinks")
	}

	// Streamed text shows before the reply is committed.
	exec := h.f.exec(id)
	h.f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: "Hello "})
	h.f.publish(actors.TextDelta{ConvID: id, Exec: exec, Text: "from the model"})
	h.waitFor("streamed text", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowStreaming && r.text == "Hello from the model"
	})

	h.f.respond(t, id, "Hello from the model, **done**.", nil, domain.Usage{InputTokens: 900, OutputTokens: 40})
	h.waitFor("the reply", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowAssistant && strings.Contains(r.msg.Text, "done")
	})
	h.settle()
	kinds := []rowKind{}
	for _, r := range h.rows() {
		kinds = append(kinds, r.kind)
	}
	if !slices.Equal(kinds, []rowKind{rowUser, rowAssistant}) {
		t.Errorf("rows = %v, want user then assistant (the streamed row replaced)", kinds)
	}
	if h.status() != "Ready" || h.m.status.stopBtn.Visible() {
		t.Errorf("status %q, stop visible %v; want Ready without Stop", h.status(), h.m.status.stopBtn.Visible())
	}
	// The reply is drawn: a visible row view shows it.
	found := false
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowAssistant {
			found = true
		}
	}
	if !found {
		t.Error("no visible row shows the reply")
	}
	// The reply has a header like the person's message: who and when.
	for _, v := range h.visibleRowViews() {
		switch p := v.parts[v.bound.kind].(type) {
		case *userPart:
			want := speakerAt(domain.KindUser, v.bound.at)
			if got := p.header.String(); got != want || !strings.HasPrefix(got, "You · ") {
				t.Errorf("the message's header is %q, want %q", got, want)
			}
		case *textPart:
			want := speakerAt(domain.KindAssistant, v.bound.at)
			if got := p.header.String(); got != want || !strings.HasPrefix(got, "Agent · ") {
				t.Errorf("the reply's header is %q, want %q", got, want)
			}
		}
	}
	// The reply's copy button puts its Markdown on the clipboard.
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowAssistant {
			walk(v, func(o fyne.CanvasObject) {
				if b, ok := o.(*button.Button); ok && b.Icon == theme.ContentCopyIcon() {
					test.Tap(b)
				}
			})
		}
	}
	if got := h.app.Clipboard().Content(); got != "Hello from the model, **done**." {
		t.Errorf("clipboard %q", got)
	}
	if got := h.m.header.meterLabel.Text; !strings.Contains(got, "940 / 128k tokens") {
		t.Errorf("meter says %q", got)
	}
}

func TestComposerKeys(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	e := h.m.composer.entry
	h.m.win.Canvas().Focus(e)
	test.Type(e, "first")
	e.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	e.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	test.Type(e, "second")
	if e.Text != "first\nsecond" {
		t.Fatalf("Shift+Enter gave %q, want a newline", e.Text)
	}
	h.q.drain()
	if len(h.f.sent) != 0 {
		t.Fatal("Shift+Enter sent the message")
	}
	e.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierControl})
	h.waitFor("Ctrl+Enter to send", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1 && h.f.sent[0].text == "first\nsecond"
	})
	// Esc stops the agent (REQ-BED-005).
	h.waitFor("busy", func() bool { return h.m.current.busy() })
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.waitFor("Esc to stop the agent", func() bool { return h.status() == "Ready" })
	if h.f.cancels != 1 {
		t.Errorf("cancels = %d, want 1", h.f.cancels)
	}
}

func TestSendRejectedKeepsDraft(t *testing.T) {
	h, _ := newOpenConversation(t, func(f *fakeBackend, _ *Deps) {
		f.sendErr = fmt.Errorf("send: %w", domain.ErrAgentBusy)
	})
	h.typeAndSend("keep me")
	h.waitFor("the rejection", func() bool { return h.m.notice.label.Visible() && strings.Contains(h.m.notice.label.Text, "busy") })
	if h.m.composer.entry.Text != "keep me" {
		t.Errorf("draft after rejection = %q, want it back", h.m.composer.entry.Text)
	}
}

func TestEmptyMessageIsExplained(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	h.typeAndSend("   ")
	if !strings.Contains(h.m.notice.label.Text, "Type a message") {
		t.Errorf("inline = %q", h.m.notice.label.Text)
	}
	if len(h.f.sent) != 0 {
		t.Error("an empty message was sent")
	}
}

func TestDropTwoImagesAndATextFile_REQ_BED_013(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	dir := t.TempDir()
	a := pngFile(t, dir, "red.png", 40, 30, color.NRGBA{R: 0xff, A: 0xff})
	b := pngFile(t, dir, "blue.png", 30, 40, color.NRGBA{B: 0xff, A: 0xff})
	txt := fileURI(writeFile(t, dir, "notes.txt", "not a picture"))
	missing := fileURI(dir + "/gone.png")

	h.m.onDropped(fyne.NewPos(10, 10), []fyne.URI{a, txt, b, missing})
	h.waitFor("two thumbnails", func() bool { return len(h.m.current.draft.atts) == 2 && len(h.m.composer.strip.Objects) == 2 })
	if !h.m.composer.strip.Visible() {
		t.Error("the attachment strip is hidden")
	}
	msg := h.m.notice.label.Text
	for _, want := range []string{"notes.txt is not an image", "gone.png could not be opened", "Not attached"} {
		if !strings.Contains(msg, want) {
			t.Errorf("inline message %q lacks %q", msg, want)
		}
	}

	// Remove one, drop it again: remove works and the order is kept.
	removeChip(t, h, 0)
	if len(h.m.current.draft.atts) != 1 || h.m.current.draft.atts[0].name != "blue.png" {
		t.Fatalf("after remove: %v", names(h.m.current.draft.atts))
	}
	h.m.onDropped(fyne.Position{}, []fyne.URI{a})
	h.waitFor("the image back", func() bool { return len(h.m.current.draft.atts) == 2 })

	// Send with images: the backend receives both, the row shows both thumbnails.
	test.Type(h.m.composer.entry, "what is wrong here?")
	test.Tap(h.m.composer.sendBtn)
	h.waitFor("the message with images", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1
	})
	got := h.f.sent[0]
	if len(got.images) != 2 || got.images[0].Name != "blue.png" || got.images[1].Name != "red.png" || len(got.images[0].Data) == 0 {
		t.Fatalf("sent images %+v", got.images)
	}
	if len(h.m.current.draft.atts) != 0 || h.m.composer.strip.Visible() {
		t.Error("the draft's images stayed after sending")
	}
	h.waitFor("the user row with two images", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowUser && len(r.msg.Images) == 2
	})
	h.settle()
	var thumbs int
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowUser {
			thumbs = len(v.parts[rowUser].(*userPart).thumbs.Objects)
		}
	}
	if thumbs != 2 {
		t.Errorf("the user row shows %d thumbnails, want 2", thumbs)
	}
}

// TestDroppedBombIsRefusedCheaply_REQ_BED_013 drops a real 109 KB PNG of 30000×30000 pixels
// on the window, then picks it in the Attach dialog: each time the composer refuses it with
// the inline error, from its header alone. Decoding it would allocate 900 MB; the whole
// refusal, window included, must stay far below that.
func TestDroppedBombIsRefusedCheaply_REQ_BED_013(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	bomb, err := filepath.Abs("../imaging/testdata/bomb-30000x30000.png")
	if err != nil {
		t.Fatal(err)
	}
	for _, handler := range []struct {
		name   string
		attach func(fyne.URI)
	}{
		{"drop", func(u fyne.URI) { h.m.onDropped(fyne.NewPos(10, 10), []fyne.URI{u}) }},
		{"Attach dialog", func(u fyne.URI) { h.m.attachURIs([]fyne.URI{u}) }},
	} {
		h.m.clearInline()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		handler.attach(fileURI(bomb))
		h.waitFor("the refusal ("+handler.name+")", func() bool { return h.m.notice.label.Text != "" })
		runtime.ReadMemStats(&after)
		msg := h.m.notice.label.Text
		for _, want := range []string{"bomb-30000x30000.png is too large", "30000x30000 pixels", "Not attached"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: inline message %q lacks %q", handler.name, msg, want)
			}
		}
		if n := len(h.m.current.draft.atts); n != 0 {
			t.Errorf("%s: the bomb was attached (%d attachments)", handler.name, n)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s: refusing the bomb allocated %d MB; it was decoded", handler.name, alloc>>20)
		}
	}
}

func removeChip(t *testing.T, h *harness, i int) {
	t.Helper()
	var buttons []*button.Button
	walk(h.m.composer.strip.Objects[i], func(o fyne.CanvasObject) {
		if b, ok := o.(*button.Button); ok {
			buttons = append(buttons, b)
		}
	})
	if len(buttons) != 1 {
		t.Fatalf("chip %d has %d buttons", i, len(buttons))
	}
	test.Tap(buttons[0])
}

func names(atts []*attachment) []string {
	var out []string
	for _, a := range atts {
		out = append(out, a.name)
	}
	return out
}

func TestDraftSurvivesSwitching(t *testing.T) {
	var a, b string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		a = f.add(domain.NewConversationParams{Title: "A", Cwd: "/a", Model: "gpt-4o"}).ID
		b = f.add(domain.NewConversationParams{Title: "B", Cwd: "/b", Model: "gpt-4o"}).ID
	})
	h.open(a)
	test.Type(h.m.composer.entry, "half a thought")
	h.m.onDropped(fyne.Position{}, []fyne.URI{pngFile(t, t.TempDir(), "x.png", 8, 8, color.Black)})
	h.waitFor("the image", func() bool { return len(h.m.composer.strip.Objects) == 1 })
	h.open(b)
	if h.m.composer.entry.Text != "" || h.m.composer.strip.Visible() {
		t.Fatalf("B shows A's draft: %q", h.m.composer.entry.Text)
	}
	h.open(a)
	if h.m.composer.entry.Text != "half a thought" || len(h.m.composer.strip.Objects) != 1 {
		t.Fatalf("A's draft after switching back: %q, %d images", h.m.composer.entry.Text, len(h.m.composer.strip.Objects))
	}
}

// TestDropSameImageTwiceAttachesOnce: an image dropped again, or twice in one drop, is
// attached once, and the person is told; the chip keeps the remove button off the image and
// the name under it.
func TestDropSameImageTwiceAttachesOnce(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	dir := t.TempDir()
	a := pngFile(t, dir, "a_very_long_screenshot_name.png", 40, 30, color.NRGBA{R: 0xff, A: 0xff})
	h.m.onDropped(fyne.Position{}, []fyne.URI{a, a})
	h.waitFor("one thumbnail", func() bool { return len(h.m.composer.strip.Objects) == 1 && h.m.notice.label.Text != "" })
	h.m.clearInline()
	h.m.onDropped(fyne.Position{}, []fyne.URI{a})
	h.waitFor("the note", func() bool {
		return strings.Count(h.m.notice.label.Text, "attached already") == 1 && !strings.Contains(h.m.notice.label.Text, "Not attached")
	})
	if n := len(h.m.current.draft.atts); n != 1 {
		t.Fatalf("%d attachments of one image", n)
	}
	h.settle()
	chip := h.m.composer.strip.Objects[0].(*fyne.Container)
	img, remove, name := chip.Objects[0], chip.Objects[1], chip.Objects[2]
	if remove.Position().X < img.Position().X+img.Size().Width {
		t.Errorf("the remove button (x %v) covers the image (right edge %v)", remove.Position().X, img.Position().X+img.Size().Width)
	}
	mid := func(o fyne.CanvasObject) float32 { return o.Position().X + o.Size().Width/2 }
	// A label's text starts half its inner padding below its top.
	if d := mid(name) - chipThumb/2; d > 0.5 || d < -0.5 || name.Position().Y+theme.InnerPadding()/2 < chipThumb {
		t.Errorf("the name is not centred under the thumbnail: centre %v, top %v", mid(name), name.Position().Y)
	}
	if dir := os.Getenv("UI_LOOK_DIR"); dir != "" {
		f, err := os.Create(filepath.Join(dir, "attachments.png"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, h.m.win.Canvas().Capture()); err != nil {
			t.Fatal(err)
		}
	}
}
