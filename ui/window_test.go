package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"

	"github.com/phoenix-desktop/phoenix/domain"
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

func (h *harness) status() string { return h.m.statusLabel.Text }

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
	if h.m.entry.Text != "" {
		t.Errorf("the composer still holds %q after sending", h.m.entry.Text)
	}
	if !h.m.stopBtn.Visible() {
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
	if h.status() != "Ready" || h.m.stopBtn.Visible() {
		t.Errorf("status %q, stop visible %v; want Ready without Stop", h.status(), h.m.stopBtn.Visible())
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
				if b, ok := o.(*widget.Button); ok && b.Icon == theme.ContentCopyIcon() {
					test.Tap(b)
				}
			})
		}
	}
	if got := h.app.Clipboard().Content(); got != "Hello from the model, **done**." {
		t.Errorf("clipboard %q", got)
	}
	if got := h.m.meterLabel.Text; !strings.Contains(got, "940 / 128k tokens") {
		t.Errorf("meter says %q", got)
	}
}

func TestComposerKeys(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	e := h.m.entry
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
	h.waitFor("the rejection", func() bool { return h.m.inline.Visible() && strings.Contains(h.m.inline.Text, "busy") })
	if h.m.entry.Text != "keep me" {
		t.Errorf("draft after rejection = %q, want it back", h.m.entry.Text)
	}
}

func TestEmptyMessageIsExplained(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	h.typeAndSend("   ")
	if !strings.Contains(h.m.inline.Text, "Type a message") {
		t.Errorf("inline = %q", h.m.inline.Text)
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
	h.waitFor("two thumbnails", func() bool { return len(h.m.current.draft.atts) == 2 && len(h.m.strip.Objects) == 2 })
	if !h.m.strip.Visible() {
		t.Error("the attachment strip is hidden")
	}
	msg := h.m.inline.Text
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
	test.Type(h.m.entry, "what is wrong here?")
	test.Tap(h.m.sendBtn)
	h.waitFor("the message with images", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1
	})
	got := h.f.sent[0]
	if len(got.images) != 2 || got.images[0].Name != "blue.png" || got.images[1].Name != "red.png" || len(got.images[0].Data) == 0 {
		t.Fatalf("sent images %+v", got.images)
	}
	if len(h.m.current.draft.atts) != 0 || h.m.strip.Visible() {
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
		h.waitFor("the refusal ("+handler.name+")", func() bool { return h.m.inline.Text != "" })
		runtime.ReadMemStats(&after)
		msg := h.m.inline.Text
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
	var buttons []*widget.Button
	walk(h.m.strip.Objects[i], func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok {
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
	test.Type(h.m.entry, "half a thought")
	h.m.onDropped(fyne.Position{}, []fyne.URI{pngFile(t, t.TempDir(), "x.png", 8, 8, color.Black)})
	h.waitFor("the image", func() bool { return len(h.m.strip.Objects) == 1 })
	h.open(b)
	if h.m.entry.Text != "" || h.m.strip.Visible() {
		t.Fatalf("B shows A's draft: %q", h.m.entry.Text)
	}
	h.open(a)
	if h.m.entry.Text != "half a thought" || len(h.m.strip.Objects) != 1 {
		t.Fatalf("A's draft after switching back: %q, %d images", h.m.entry.Text, len(h.m.strip.Objects))
	}
}

// upgradeScene brings a conversation to AwaitingModeApproval.
func upgradeScene(t *testing.T) (*harness, string) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("please fix it")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "I need to edit files.", []domain.ToolCall{upgradeCall("u1", "I need to edit parse.go to fix the bug.")}, domain.Usage{InputTokens: 500})
	h.waitFor("the approval card", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowApproval
	})
	h.settle()
	if h.status() != "Waiting for your approval" {
		t.Fatalf("status %q", h.status())
	}
	return h, id
}

func (h *harness) approvalPart() *approvalPart {
	h.t.Helper()
	return partOnScreen[*approvalPart](h, rowApproval, "the approval card")
}

// partOnScreen returns the part drawing the first visible row of a kind.
func partOnScreen[P part](h *harness, kind rowKind, what string) P {
	h.t.Helper()
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == kind {
			return v.parts[kind].(P)
		}
	}
	h.t.Fatalf("%s is not on screen", what)
	var zero P
	return zero
}

func TestApproveUpgrade_REQ_BED_015(t *testing.T) {
	h, id := upgradeScene(t)
	p := h.approvalPart()
	if !strings.Contains(p.reason.String(), "I need to edit parse.go") {
		t.Errorf("card reason %q", p.reason.String())
	}
	if h.m.mode.text != "Restricted" || h.m.switchBox.Visible() {
		t.Fatal("mode badge before approval")
	}
	if !h.m.menuRestricted.Disabled || !h.m.menuProject.Disabled {
		t.Error("the menu offers to switch a Restricted conversation down")
	}
	// The composer says the card waits for the person, not that the agent is working.
	if ph := h.m.entry.PlaceHolder; strings.Contains(ph, "is working") || !strings.Contains(ph, "waits for your answer") {
		t.Errorf("while the card waits the composer says %q", ph)
	}
	// Keyboard reach: Tab moves the focus to the card's buttons.
	c := h.m.win.Canvas()
	c.Focus(nil)
	reached := false
	for i := 0; i < 40 && !reached; i++ {
		test.FocusNext(c)
		reached = c.Focused() == fyne.Focusable(p.full)
	}
	if !reached {
		t.Error("Tab never reaches Allow everything")
	}

	test.Tap(p.full)
	h.waitFor("Unrestricted mode", func() bool { return h.m.mode.text == "Unrestricted" })
	if h.f.decisions[0] != domain.ModeUnrestricted {
		t.Fatalf("the backend got %q; want unrestricted", h.f.decisions[0])
	}
	if h.f.conversation(id).Mode != domain.ModeUnrestricted {
		t.Fatal("the conversation is not Unrestricted")
	}
	h.settle()
	if !h.m.switchBox.Visible() {
		t.Error("Switch to Restricted is hidden in Unrestricted mode")
	}
	if h.m.menuRestricted.Disabled || h.m.menuProject.Disabled {
		t.Error("the menu does not offer to switch an Unrestricted conversation down")
	}
	for _, r := range h.rows() {
		if r.kind == rowApproval {
			t.Error("the approval card stayed after the decision")
		}
	}
	// The agent goes on: the next request is in flight.
	if h.status() != "Thinking…" {
		t.Errorf("status after approval %q", h.status())
	}

	// REQ-BED-016: Switch to Restricted takes effect at once.
	h.f.respond(t, id, "Done.", nil, domain.Usage{InputTokens: 600})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	test.Tap(h.m.switchBtn)
	h.waitFor("Restricted again", func() bool { return h.m.mode.text == "Restricted" })
	if h.f.downgrades != 1 {
		t.Errorf("downgrades = %d", h.f.downgrades)
	}
}

func TestDenyUpgrade_REQ_BED_015(t *testing.T) {
	h, id := upgradeScene(t)
	test.Tap(h.approvalPart().deny)
	h.waitFor("the agent to go on", func() bool { return h.status() == "Thinking…" })
	if h.f.decisions[0] != actors.DenyUpgrade {
		t.Fatal("the backend got an approval")
	}
	if h.m.mode.text != "Restricted" || h.f.conversation(id).Mode != domain.ModeRestricted {
		t.Fatal("a denial changed the mode")
	}
	// The agent is told: the tool result says so, and the row shows it.
	var told bool
	for _, r := range h.rows() {
		if r.kind == rowTool && r.call.Name == domain.ToolRequestModeUpgrade && r.result != nil {
			told = strings.Contains(strings.ToLower(r.result.Content), "den")
		}
	}
	if !told {
		t.Error("no tool result tells the agent about the denial")
	}
}

func TestApprovalNotifiesWhenUnfocused_REQ_BED_015(t *testing.T) {
	var got []*fyne.Notification
	h, id := newOpenConversation(t, func(_ *fakeBackend, d *Deps) {
		d.Notify = func(n *fyne.Notification) { got = append(got, n) }
	})
	h.typeAndSend("go")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.m.focused = false
	h.f.respond(t, id, "", []domain.ToolCall{upgradeCall("u1", "write access please")}, domain.Usage{InputTokens: 10})
	h.waitFor("a notification", func() bool { return len(got) == 1 })
	if !strings.Contains(got[0].Content, "write access please") {
		t.Errorf("notification %+v", got[0])
	}
	test.Tap(h.approvalPart().deny)
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "ok", nil, domain.Usage{InputTokens: 20})
	h.waitFor("a second notification", func() bool { return len(got) == 2 })
	if got[1].Content != "The agent has finished." {
		t.Errorf("finish notification %+v", got[1])
	}
	// Focused: nothing.
	h.m.focused = true
	h.typeAndSend("again")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "ok", nil, domain.Usage{InputTokens: 30})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	if len(got) != 2 {
		t.Errorf("notified while focused: %d", len(got))
	}
}

func TestStopDuringRunningTool_REQ_BED_005(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("run the tests")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Running them.", []domain.ToolCall{bashCall("b1", "go test ./..."), bashCall("b2", "go vet ./...")}, domain.Usage{InputTokens: 300})
	h.waitFor("the tool to run", func() bool { return strings.HasPrefix(h.status(), "Running bash: `go test ./...`") })
	if h.status() != "Running bash: `go test ./...` 0:00" {
		t.Errorf("status %q", h.status())
	}
	var running, queued *row
	for _, r := range h.rows() {
		if r.kind == rowTool && r.call.ID == "b1" {
			running = r
		}
		if r.kind == rowTool && r.call.ID == "b2" {
			queued = r
		}
	}
	if running == nil || running.phase != toolRunning || queued == nil || queued.phase != toolQueued {
		t.Fatalf("tool rows: %+v %+v", running, queued)
	}
	test.Tap(h.m.stopBtn)
	h.waitFor("the agent to stop", func() bool { return h.status() == "Ready" })
	if running.result == nil || running.result.Outcome != domain.OutcomeCancelled {
		t.Errorf("the running tool's row shows %+v, want cancelled", running.result)
	}
	if queued.result == nil || queued.result.Outcome != domain.OutcomeSkipped {
		t.Errorf("the queued tool's row shows %+v, want skipped", queued.result)
	}
	if _, s := toolStatus(running); s != "cancelled: "+domain.CancelledResultText {
		t.Errorf("cancelled row summary %q", s)
	}
	if h.m.stopBtn.Visible() {
		t.Error("Stop is visible at rest")
	}
}

// usageAt returns usage at pct percent of the window.
func usageAt(window, pct int) domain.Usage { return domain.Usage{InputTokens: window * pct / 100} }

func TestContextWarningAndWrapUp_REQ_BED_023(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	window := h.m.current.conv.ContextWindow
	h.typeAndSend("long work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Here is a lot.", nil, usageAt(window, 85))
	h.waitFor("the warning", func() bool { return h.m.wrapBtn.Visible() })
	if !strings.HasPrefix(h.m.meterLabel.Text, "Context nearly full: ") || !strings.Contains(h.m.meterLabel.Text, "(85%)") {
		t.Errorf("meter label %q", h.m.meterLabel.Text)
	}
	if h.m.meter.color != "warning" {
		t.Errorf("meter colour %q", h.m.meter.color)
	}
	test.Tap(h.m.wrapBtn)
	h.waitFor("the summary request", func() bool {
		_, ok := h.m.current.conv.State.(domain.AwaitingContinuation)
		return ok
	})
	if h.f.wrapUps != 1 {
		t.Fatalf("wrap-ups = %d", h.f.wrapUps)
	}
	if h.m.wrapBtn.Visible() {
		t.Error("Wrap up stays while the summary is written")
	}
	if h.status() != "Writing the continuation summary…" {
		t.Errorf("status %q", h.status())
	}
	exhaust(t, h, id, "We fixed the parser; next: add tests for negative numbers.")
}

// exhaust answers the summary request and checks the exhausted view (REQ-BED-021).
func exhaust(t *testing.T, h *harness, id, summary string) {
	t.Helper()
	h.f.respond(t, id, summary, nil, domain.Usage{})
	h.waitFor("the exhausted view", func() bool { return h.m.exhaustedBox.Visible() })
	if h.status() != "Context exhausted" {
		t.Errorf("status %q", h.status())
	}
	if ex, ok := h.m.exhaustedState(); !ok || ex.Summary != summary {
		t.Errorf("exhausted state %+v", ex)
	}
	if !h.m.entry.Disabled() || !h.m.sendBtn.Disabled() || !strings.Contains(h.m.entry.PlaceHolder, "read-only") {
		t.Errorf("composer disabled %v, placeholder %q", h.m.entry.Disabled(), h.m.entry.PlaceHolder)
	}
	// The summary is shown prominently: the newest row, on screen.
	if r := h.lastRow(); r == nil || r.kind != rowContinuation || r.msg.Text != summary {
		t.Error("the continuation summary is not the last row")
	}
	h.settle()
	onScreen := false
	for _, v := range h.visibleRowViews() {
		onScreen = onScreen || v.bound.kind == rowContinuation
	}
	if !onScreen {
		t.Error("the continuation summary is not on screen")
	}
}

func TestExhaustedContinueInNew_REQ_BED_021(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	window := h.m.current.conv.ContextWindow
	h.typeAndSend("big task")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	// Past 90%: the core wraps up by itself (REQ-BED-019).
	h.f.respond(t, id, "", []domain.ToolCall{bashCall("x", "ls")}, usageAt(window, 92))
	h.waitFor("the summary request", func() bool { return h.status() == "Writing the continuation summary…" })
	exhaust(t, h, id, "Summary: parser fixed.")

	test.Tap(h.m.continueBtn)
	h.waitFor("the new conversation", func() bool { return h.m.current != nil && h.m.current.id != id })
	nc := h.m.current
	if nc.conv.ContinuedFrom != id {
		t.Errorf("continued from %q, want %q", nc.conv.ContinuedFrom, id)
	}
	if h.m.entry.Text != "Summary: parser fixed." {
		t.Errorf("draft %q, want the summary", h.m.entry.Text)
	}
	if h.m.entry.Disabled() || h.m.exhaustedBox.Visible() {
		t.Error("the new conversation is not writable")
	}
	if !strings.Contains(h.m.subtitle.Text, "continues “Work”") {
		t.Errorf("subtitle %q lacks the link", h.m.subtitle.Text)
	}
	if h.m.side[0] != nc {
		t.Error("the new conversation is not first in the sidebar")
	}
}

func TestLongConversationOpens(t *testing.T) {
	const n = 10_000
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(n)...).ID
	})
	h.open(id)
	if got := h.m.cv.list.Length(); got != n {
		t.Fatalf("list length %d, want %d", got, n)
	}
	views := h.visibleRowViews()
	if len(views) == 0 || len(views) > 60 {
		t.Fatalf("%d rows bound; a long history must bind only what is on screen", len(views))
	}
	last := h.m.current.model.at(n - 1)
	shown := false
	for _, v := range views {
		shown = shown || v.bound == last
	}
	if !shown {
		t.Error("the newest message is not on screen after opening")
	}
	if len(h.m.cv.measured) > 200 {
		t.Errorf("%d rows measured; only those near the screen should be", len(h.m.cv.measured))
	}
}

// longHistory is n messages: user questions, assistant answers with some Markdown, and tool
// rounds.
func longHistory(n int) []domain.Message {
	msgs := make([]domain.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		switch i % 4 {
		case 0:
			msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("Question %d: what does function f%d do?", i, i)})
		case 1:
			msgs = append(msgs, domain.Message{Kind: domain.KindAssistant, Text: "Checking.", ToolCalls: []domain.ToolCall{bashCall(fmt.Sprintf("k%d", i), fmt.Sprintf("grep -n f%d *.go", i))}})
		case 2:
			msgs = append(msgs, domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: fmt.Sprintf("k%d", i-1), Name: "bash", Outcome: domain.OutcomeSuccess, Content: "main.go:12: func f() {}"}})
		default:
			msgs = append(msgs, domain.Message{Kind: domain.KindAssistant, Text: fmt.Sprintf("It **returns** the answer to question %d, as `main.go` line 12 shows.\n\n- one\n- two", i)})
		}
	}
	return msgs[:n]
}

func TestSidebarListsUserConversationsAndArchives(t *testing.T) {
	var a, b string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		a = f.add(domain.NewConversationParams{Title: "Alpha", Cwd: "/a", Model: "gpt-4o"}).ID
		f.now = f.now.Add(1)
		b = f.add(domain.NewConversationParams{Title: "Beta", Cwd: "/b", Model: "gpt-4o"}).ID
		f.add(domain.NewConversationParams{Title: "sub", Cwd: "/b", Model: "gpt-4o", ParentID: "x", Task: "t"})
	})
	h.waitFor("two rows", func() bool { return len(h.m.side) == 2 })
	if h.m.side[0].id != b || h.m.side[1].id != a {
		t.Fatalf("order %s %s, want newest first", h.m.side[0].id, h.m.side[1].id)
	}
	h.m.setArchived(h.m.side[1], true)
	h.waitFor("Alpha archived", func() bool { return len(h.m.side) == 1 })
	if !h.f.archived[a] {
		t.Error("the backend did not archive")
	}
	h.m.showArchived = true
	h.m.refreshSidebar()
	if len(h.m.side) != 2 {
		t.Error("Show archived does not show it")
	}
}

func TestLastConversationReopens(t *testing.T) {
	var a, b string
	setup := func(f *fakeBackend, _ *Deps) {
		a = f.add(domain.NewConversationParams{Title: "Alpha", Cwd: "/a", Model: "gpt-4o"}).ID
		b = f.add(domain.NewConversationParams{Title: "Beta", Cwd: "/b", Model: "gpt-4o"}).ID
	}
	h := newHarness(t, setup)
	h.open(a)
	if got := h.app.Preferences().String(prefLastConv); got != a {
		t.Fatalf("remembered %q", got)
	}
	// A second window on the same preferences opens it again.
	m2 := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	defer m2.win.Close()
	h.waitFor("the last conversation", func() bool { return m2.current != nil && m2.current.id == a })
	_ = b
}

func TestSubAgentCardOpensReadOnlyView_REQ_BED_008(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("split the work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Splitting.", []domain.ToolCall{spawnCall("s1", "Read the parser", "Read the tests")}, domain.Usage{InputTokens: 100})
	h.waitFor("waiting for sub-agents", func() bool { return strings.HasPrefix(h.status(), "Waiting for sub-agents (0 of 2 done)") })
	st := h.f.state(id).(domain.AwaitingSubAgents)
	for _, o := range st.Outcomes {
		h.f.add(domain.NewConversationParams{ID: o.AgentID, Cwd: "/x", Model: "gpt-4o", ParentID: id, Task: o.Task})
	}
	h.settle()
	var card *agentsPart
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowAgents {
			card = v.parts[rowAgents].(*agentsPart)
		}
	}
	if card == nil {
		t.Fatal("no sub-agent card on screen")
	}
	if card.title.Text != "Sub-agents: 0 of 2 finished" || len(card.list.Objects) != 2 {
		t.Fatalf("card %q with %d lines", card.title.Text, len(card.list.Objects))
	}
	if card.lines[0].task.String() != "Read the parser" {
		t.Errorf("first task %q", card.lines[0].task.String())
	}

	// One finishes: the card says so.
	if _, err := h.f.apply(id, domain.SubAgentFinished{Exec: st.Exec, Outcome: domain.SubAgentOutcome{AgentID: st.Outcomes[0].AgentID, Task: "Read the parser", Status: domain.SubAgentSucceeded, Result: "It parses ints."}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("one finished", func() bool { return card.title.Text == "Sub-agents: 1 of 2 finished" })
	if !strings.Contains(card.lines[0].result.String(), "It parses ints.") {
		t.Errorf("result %q", card.lines[0].result.String())
	}

	test.Tap(card.lines[1].open)
	h.waitFor("the sub-agent window", func() bool {
		return h.m.subWins[st.Outcomes[1].AgentID] != nil && h.m.convs[st.Outcomes[1].AgentID].loaded
	})
	w := h.m.subWins[st.Outcomes[1].AgentID]
	if w.cv.readOnly != true {
		t.Error("the sub-agent view is writable")
	}
	if !strings.HasPrefix(w.win.Title(), "Sub-agent — Read the tests") {
		t.Errorf("title %q", w.win.Title())
	}
	for _, cs := range h.m.side {
		if cs.conv.IsSubAgent() {
			t.Error("a sub-agent is listed in the sidebar")
		}
	}
	w.win.Close()
	if h.m.subWins[st.Outcomes[1].AgentID] != nil {
		t.Error("closing the window leaves it registered")
	}
}

func TestToolRowExpandsToOutputAndDiff(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.cv.list.ScrollToBottom()
	h.settle()
	var tp *toolPart
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowTool && v.bound.call.Name == domain.ToolPatch {
			tp = v.parts[rowTool].(*toolPart)
		}
	}
	if tp == nil {
		t.Fatal("the patch row is not on screen")
	}
	if tp.toggle.Text != "Show diff" || tp.details.Visible() {
		t.Fatalf("collapsed row: toggle %q, details visible %v", tp.toggle.Text, tp.details.Visible())
	}
	test.Tap(tp.toggle)
	h.settle()
	if !tp.details.Visible() || !strings.Contains(tp.details.Text(), "+\treturn strconv.Atoi(s)") {
		t.Fatalf("expanded row shows %q", tp.details.Text())
	}
	// The diff's colours are the markdown package's (TestDiffBlockColours).
	if got := detailTexts(&domain.ToolResult{Outcome: domain.OutcomeSuccess, Display: &domain.ToolDisplay{Diff: sampleDiff}}); len(got) != 1 || !got[0].Diff {
		t.Errorf("a successful patch shows %+v, want its diff alone", got)
	}
}

func TestFindInConversation(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.showFind()
	if !h.m.findBar.Visible() || h.m.win.Canvas().Focused() != fyne.Focusable(h.m.findEntry) {
		t.Fatal("Ctrl+F does not open the find bar with the focus")
	}
	test.Type(h.m.findEntry, "parse")
	if h.m.findCount.Text == "" || h.m.findCount.Text == "No matches" {
		t.Fatalf("count %q", h.m.findCount.Text)
	}
	n := len(h.m.findHits)
	h.m.findStep(1)
	if h.m.findCount.Text != fmt.Sprintf("1 of %d", n) {
		t.Errorf("after next: %q", h.m.findCount.Text)
	}
	h.m.findEntry.SetText("zebra")
	if h.m.findCount.Text != "No matches" {
		t.Errorf("count %q", h.m.findCount.Text)
	}
	// Escape closes the bar and gives the focus back to the composer.
	h.m.findEntry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.m.findBar.Visible() || len(h.m.findHits) != 0 {
		t.Error("Escape left the find bar open")
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(h.m.entry) {
		t.Errorf("after Escape the focus is on %T, want the composer", h.m.win.Canvas().Focused())
	}
}

func TestNewConversationDialog_REQ_BED_014(t *testing.T) {
	h := newHarness(t, nil)
	dir := t.TempDir()
	h.app.Preferences().SetString(prefLastCwd, dir)
	h.m.showNewConversation()
	f := h.m.newForm
	if f.cwd.Text != dir {
		t.Errorf("default directory %q, want the last used %q", f.cwd.Text, dir)
	}
	if f.mode.Selected != modeRestrictedLabel {
		t.Errorf("default mode %q", f.mode.Selected)
	}
	if f.model.Text != domain.DemoModel || !strings.Contains(f.hint.Text, "Demo (offline)") {
		t.Errorf("model %q, hint %q", f.model.Text, f.hint.Text)
	}
	if err := validDir(dir + "/missing"); err == nil {
		t.Error("a missing directory is accepted")
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(f.cwd) {
		t.Error("the directory field does not have the focus")
	}
	f.title.SetText("Tidy up")
	// Enter in a field creates the conversation.
	f.title.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the new conversation to open", func() bool { return h.m.current != nil })
	got := h.f.created[0]
	if got.Cwd != dir || got.Unrestricted || got.Model != domain.DemoModel || got.Title != "Tidy up" {
		t.Errorf("created %+v", got)
	}
	if h.m.mode.text != "Restricted" {
		t.Errorf("badge %q", h.m.mode.text)
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(h.m.entry) {
		t.Error("the composer does not have the focus")
	}
}

func TestLandlockUnavailable_REQ_BED_014(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox = sandboxStatus(false, 0, "kernel 5.4 has no Landlock")
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
	})
	if !h.m.landlockNote.Visible() || !strings.Contains(h.m.landlockNote.Text, "kernel 5.4 has no Landlock") {
		t.Fatalf("note %q visible %v", h.m.landlockNote.Text, h.m.landlockNote.Visible())
	}
	h.open(h.m.side[0].id)
	if h.m.mode.text != "Unrestricted" || h.m.switchBox.Visible() {
		t.Errorf("badge %q, switch visible %v", h.m.mode.text, h.m.switchBox.Visible())
	}
	h.m.showNewConversation()
	if !h.m.newForm.mode.Disabled() || h.m.newForm.mode.Selected != modeUnrestrictedLabel {
		t.Error("the dialog offers Restricted mode without Landlock")
	}
}

func TestSettingsDialog(t *testing.T) {
	var applied []Settings
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.ListModels = func(_ context.Context, s Settings) ([]string, error) {
			if s.APIKey != "sk-secret-key-1234" {
				return nil, errors.New("401 unauthorized")
			}
			return []string{"gpt-4o", "gpt-4o-mini"}, nil
		}
		d.Apply = func(s Settings) error { applied = append(applied, s); return nil }
		d.EnvOverrides = func() map[string]string { return map[string]string{FieldBaseURL: "PHOENIX_BASE_URL"} }
	})
	f := h.openSettings()
	if !f.baseURL.Disabled() {
		t.Error("the base URL is editable though the environment sets it")
	}
	f.preset.SetSelected("OpenAI")
	if f.baseURL.Text != "" {
		t.Errorf("a preset overwrote the environment's base URL: %q", f.baseURL.Text)
	}
	test.Type(f.apiKey, "sk-wrong")
	test.Tap(f.test)
	h.waitFor("the failure", func() bool { return strings.HasPrefix(f.result.Text, "Connection failed: 401") })
	f.apiKey.SetText("sk-secret-key-1234")
	test.Tap(f.test)
	h.waitFor("the models", func() bool { return strings.HasPrefix(f.result.Text, "Connected") })
	if !slices.Contains(h.m.modelOptions(), "gpt-4o-mini") {
		t.Error("listed models are not offered")
	}
	f.model.SetText("gpt-4o-mini")
	f.dlg.Submit()
	h.waitFor("the settings applied", func() bool { return len(applied) == 1 })
	// The preset is applied by its name, the one the client's configuration knows.
	if len(applied) != 1 || applied[0].APIKey != "sk-secret-key-1234" || applied[0].Model != "gpt-4o-mini" || applied[0].Preset != "openai" {
		t.Fatalf("applied %+v", applied)
	}
	if LoadSettings(h.app.Preferences()).APIKey != "sk-secret-key-1234" {
		t.Error("the key was not saved")
	}
	// Opened again, the key is never shown back in full.
	f2 := h.openSettings()
	if f2.apiKey.Text != "" || !strings.Contains(f2.apiKey.PlaceHolder, "****1234") || strings.Contains(f2.apiKey.PlaceHolder, "secret") {
		t.Errorf("key field %q / %q", f2.apiKey.Text, f2.apiKey.PlaceHolder)
	}
	// Left empty, the saved key stays.
	if f2.current().APIKey != "sk-secret-key-1234" {
		t.Error("an empty key field drops the saved key")
	}
}

// TestExportIsTheSharedDocument: Ctrl+E saves exactly the bytes of
// transcript's golden export for the same conversation, which the command line's export test
// compares with too: the window and `phoenix-desktop export` write one document.
func TestExportIsTheSharedDocument(t *testing.T) {
	raw, err := os.ReadFile("../transcript/testdata/conversation.json")
	if err != nil {
		t.Fatal(err)
	}
	var sample struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
		Images       map[string][]byte   `json:"images"`
	}
	if err := json.Unmarshal(raw, &sample); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		maps.Copy(f.blobs, sample.Images)
		f.convs[sample.Conversation.ID] = &fakeConv{conv: sample.Conversation, msgs: sample.Messages}
		f.order = append(f.order, sample.Conversation.ID)
	})
	h.open(sample.Conversation.ID)
	got, ok := h.m.exportDocument()
	if !ok {
		t.Fatal("the open conversation cannot be exported")
	}
	want, err := os.ReadFile("../transcript/testdata/export.golden.md")
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("Ctrl+E writes a different document than transcript's golden export:\n%s", got)
	}
}

func TestRetryingStatusCountsDown_REQ_BED_006(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("hi")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	if _, err := h.f.apply(id, domain.LLMError{Exec: h.f.exec(id), Kind: domain.ErrorRateLimit, Message: "rate limited", RetryAfter: 4e9}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("retrying", func() bool { return strings.HasPrefix(h.status(), "Retrying") })
	if h.status() != "Retrying (2 of 3) in 4 s" {
		t.Errorf("status %q", h.status())
	}
	if !h.m.ticking.Load() {
		t.Error("the countdown does not tick")
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestToolRunsThenShowsItsOutput(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("list the files")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "", []domain.ToolCall{bashCall("l1", "ls -la")}, domain.Usage{InputTokens: 100})
	h.waitFor("the tool to run", func() bool { return h.status() == "Running bash: `ls -la` 0:00" })
	// The clock moves on while it runs.
	later := testNow.Add(75 * time.Second)
	h.m.now = func() time.Time { return later }
	h.m.tick()
	if h.status() != "Running bash: `ls -la` 1:15" {
		t.Errorf("status %q", h.status())
	}
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "a.go\nb.go", Display: &domain.ToolDisplay{Summary: "exit 0, 2 lines"}})
	h.waitFor("the request after the tool", func() bool { return h.status() == "Thinking…" })
	var r *row
	for _, x := range h.rows() {
		if x.kind == rowTool {
			r = x
		}
	}
	if r == nil || r.phase != toolDone {
		t.Fatalf("tool row %+v", r)
	}
	if _, sum := toolStatus(r); sum != "exit 0, 2 lines" {
		t.Errorf("summary %q", sum)
	}
}

func TestSendingScrollsToTheNewMessage(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(id)
	h.m.cv.list.ScrollToTop()
	h.m.cv.rowChanged() // as a click on a row would
	h.settle()
	if h.m.cv.atBottom(0) {
		t.Fatal("the view did not scroll up")
	}
	h.typeAndSend("where am I?")
	h.waitFor("the message", func() bool { r := h.lastRow(); return r != nil && r.kind == rowUser && r.msg.Text == "where am I?" })
	h.settle()
	shown := false
	for _, v := range h.visibleRowViews() {
		shown = shown || v.bound == h.lastRow()
	}
	if !shown {
		t.Error("the sent message is not on screen")
	}
}

func TestResizeMeasuresRowsAgain(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Wide", Cwd: "/w", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "Explain."},
			domain.Message{Kind: domain.KindAssistant, Text: strings.Repeat("A long sentence that wraps when the window is narrow. ", 12)},
		).ID
	})
	h.open(id)
	wide := h.m.cv.heights[1]
	if wide == 0 {
		t.Fatal("the reply was not measured")
	}
	h.m.win.Resize(fyne.NewSize(700, 720))
	h.settle()
	narrow := h.m.cv.heights[1]
	if narrow <= wide {
		t.Errorf("the reply is %v tall at 700 px and %v at 1100 px; narrower must be taller", narrow, wide)
	}
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowAssistant && v.Size().Height < narrow {
			t.Errorf("the reply's item is %v tall, its text needs %v", v.Size().Height, narrow)
		}
	}
}

func TestWindowSizeRemembered(t *testing.T) {
	h := newHarness(t, nil)
	h.m.win.Resize(fyne.NewSize(900, 600))
	h.m.saveWindow()
	if got := h.app.Preferences().String(prefGeometry); got != "900 600" {
		t.Fatalf("saved %q (the test driver has no window position)", got)
	}
	m2 := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	defer m2.win.Close()
	if s := m2.win.Canvas().Size(); s != fyne.NewSize(900, 600) {
		t.Errorf("restored size %v", s)
	}
	for _, c := range []struct {
		in string
		ok bool
		g  geometry
	}{
		{"1000 650 130 70", true, geometry{W: 1000, H: 650, X: 130, Y: 70, HasPos: true}},
		{"1000.5 650", true, geometry{W: 1000.5, H: 650}},
		{"", false, geometry{}},
		{"0 650", false, geometry{H: 650}},
	} {
		g, ok := parseGeometry(c.in)
		if ok != c.ok || (ok && g != c.g) {
			t.Errorf("parseGeometry(%q) = %+v, %v", c.in, g, ok)
		}
	}
}

// TestModeBadgeDetailsShowTheSandboxLayers_REQ_BED_014: tapping the mode badge opens the
// sandbox report — the mode, then each layer this machine has or lacks, and why.
func TestModeBadgeDetailsShowTheSandboxLayers_REQ_BED_014(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox.Layers = append(f.sandbox.Layers, actors.SandboxLayer{Name: "mount view", Detail: "off: user namespaces are not allowed here"})
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
	})
	h.open(h.m.side[0].id)
	details := h.m.sandboxDetails()
	for _, want := range []string{"This conversation is Restricted", "Restricted mode: available", "[on ] Landlock: ABI 4", "[off] mount view: off: user namespaces are not allowed here"} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	before := len(h.m.win.Canvas().Overlays().List())
	test.Tap(h.m.mode)
	if len(h.m.win.Canvas().Overlays().List()) != before+1 {
		t.Errorf("tapping the badge opened no dialog")
	}
}

// TestEscapeClosesDialogs: Escape in any text field of the New conversation and Settings
// dialogs cancels them, and so does Escape with no field focused; it does not reach the
// agent's Stop while a dialog is open.
func TestEscapeClosesDialogs(t *testing.T) {
	h := newHarness(t, nil)
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	open := func() bool { return h.m.win.Canvas().Overlays().Top() != nil }

	h.m.showNewConversation()
	if !open() {
		t.Fatal("the New conversation dialog did not open")
	}
	h.m.newForm.cwd.TypedKey(esc)
	if open() || len(h.m.modals) != 0 {
		t.Fatal("Escape in the directory field left the New conversation dialog open")
	}
	h.m.showNewConversation()
	h.m.newForm.model.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the model field left the dialog open")
	}
	n := len(h.f.convs)
	h.m.showNewConversation()
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(esc)
	if open() {
		t.Fatal("Escape with no field focused left the dialog open")
	}
	if len(h.f.convs) != n {
		t.Error("cancelling with Escape created a conversation")
	}

	h.m.showSettings()
	if !open() {
		t.Fatal("the Settings dialog did not open")
	}
	h.m.settings.apiKey.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the API key field left Settings open")
	}
	h.m.showSettings()
	h.m.settings.baseURL.TypedKey(esc)
	if open() {
		t.Fatal("Escape in the base URL field left Settings open")
	}
	// Other keys still edit the field.
	h.m.showSettings()
	test.Type(h.m.settings.baseURL, "x")
	if !strings.HasSuffix(h.m.settings.baseURL.Text, "x") || !open() {
		t.Errorf("typing in the base URL gave %q", h.m.settings.baseURL.Text)
	}
}

// TestEscapeClosesTheModelAndDeleteDialogs: the model switch and the delete confirmation
// close on Escape too, from their field or with nothing focused, and cancel.
func TestEscapeClosesTheModelAndDeleteDialogs(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	open := func() bool { return h.m.win.Canvas().Overlays().Top() != nil }
	model := h.m.current.conv.Model

	h.m.proj.showModelDialog()
	if !open() {
		t.Fatal("the model dialog did not open")
	}
	h.m.proj.modelEntry.SetText("another-model")
	h.m.proj.modelEntry.TypedKey(esc)
	if open() || len(h.m.modals) != 0 {
		t.Fatal("Escape in the model field left the dialog open")
	}
	if h.m.current.conv.Model != model {
		t.Errorf("Escape switched the model to %q", h.m.current.conv.Model)
	}

	n := len(h.f.convs)
	h.m.askDelete(h.m.current)
	if !open() {
		t.Fatal("the delete confirmation did not open")
	}
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(esc)
	if open() {
		t.Fatal("Escape left the delete confirmation open")
	}
	if len(h.f.convs) != n {
		t.Error("cancelling with Escape deleted the conversation")
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
	h.waitFor("one thumbnail", func() bool { return len(h.m.strip.Objects) == 1 && h.m.inline.Text != "" })
	h.m.clearInline()
	h.m.onDropped(fyne.Position{}, []fyne.URI{a})
	h.waitFor("the note", func() bool {
		return strings.Count(h.m.inline.Text, "attached already") == 1 && !strings.Contains(h.m.inline.Text, "Not attached")
	})
	if n := len(h.m.current.draft.atts); n != 1 {
		t.Fatalf("%d attachments of one image", n)
	}
	h.settle()
	chip := h.m.strip.Objects[0].(*fyne.Container)
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

// TestSelectAndCopyInChatRows: the text of a reply and of a tool's output can be selected
// and copied with Ctrl+C in the chat.
func TestSelectAndCopyInChatRows(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.cv.list.ScrollToBottom()
	h.settle()
	var reply *textPart
	var tool *toolPart
	for _, v := range h.visibleRowViews() {
		switch {
		case v.bound.kind == rowAssistant && strings.HasPrefix(v.bound.msg.Text, "Done."):
			reply = v.parts[rowAssistant].(*textPart)
		case v.bound.kind == rowTool && v.bound.call.Name == domain.ToolPatch:
			tool = v.parts[rowTool].(*toolPart)
		}
	}
	if reply == nil || tool == nil {
		t.Fatal("the last reply or the patch row is not on screen")
	}
	reply.text.SelectAll()
	reply.text.TypedShortcut(&fyne.ShortcutCopy{})
	if got := h.app.Clipboard().Content(); got != "Done. The fix:\n\nparse no longer drops the first digit\nthe test passes:\n\nok  parser 0.004s" {
		t.Errorf("copied %q", got)
	}
	test.Tap(tool.toggle)
	h.settle()
	tool.details.SelectAll()
	tool.details.TypedShortcut(&fyne.ShortcutCopy{})
	if got := h.app.Clipboard().Content(); !strings.Contains(got, "+\treturn strconv.Atoi(s)") {
		t.Errorf("copied from the tool output %q", got)
	}
}

// TestStreamingRowRendersMarkdown: while a reply streams, its finished blocks are rendered
// once and kept, and only the paragraph being written is rendered again.
func TestStreamingRowRendersMarkdown(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("write something")
	h.waitFor("thinking", func() bool { return h.m.current.busy() })
	exec := h.f.exec(id)
	streamView := func() *streamPart {
		for _, v := range h.visibleRowViews() {
			if v.bound.kind == rowStreaming {
				return v.parts[rowStreaming].(*streamPart)
			}
		}
		return nil
	}
	h.m.applyBatch([]actors.Event{actors.TextDelta{ConvID: id, Exec: exec, Text: "First `read_file` note.\n\n```go\nx := 1\n```\n\nSecond gro"}})
	h.settle()
	p := streamView()
	if p == nil {
		t.Fatal("no streaming row on screen")
	}
	if got := p.done.Text(); got != "First read_file note.\n\nx := 1" {
		t.Errorf("finished part shows %q", got)
	}
	if got := p.tail.Text(); got != "Second gro ▍" {
		t.Errorf("growing part shows %q", got)
	}
	// The blocks of the finished part (a paragraph, a code block) stay the same objects: it was
	// not parsed or built again.
	widgets := func() []fyne.CanvasObject {
		return slices.Clone(test.WidgetRenderer(p.done).Objects()[0].(*fyne.Container).Objects)
	}
	before := widgets()
	h.m.applyBatch([]actors.Event{actors.TextDelta{ConvID: id, Exec: exec, Text: "wing"}})
	h.settle()
	if got := p.tail.Text(); got != "Second growing ▍" {
		t.Errorf("growing part shows %q", got)
	}
	if len(before) != 2 || !slices.Equal(before, widgets()) {
		t.Errorf("the finished part was built again for a delta to the last paragraph (%d widgets before)", len(before))
	}
}
