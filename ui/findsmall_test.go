package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/domain"
)

// longNotice wraps to two lines or more at 800 px.
const longNotice = "Could not save the draft of this conversation: the disk that holds the app's data is full. " +
	"Free some space (empty the trash, remove old builds), then go on typing: nothing you typed is lost."

// TestFindAtSmallSizesKeepsHalfTheChat (issue 36): at 800×600 and 1024×640, with the task list
// shown, a notice (one line, or long enough for two) and the Find bar open, the chat keeps at
// least half the window's height: the context meter's row folds while Find is open, and in a
// short window the notice folds to one line, with a button that shows it whole.
func TestFindAtSmallSizesKeepsHalfTheChat(t *testing.T) {
	for _, text := range []string{"Could not save the draft: the disk is full. Free some space.", longNotice} {
		findAtSmallSizes(t, text)
	}
}

func findAtSmallSizes(t *testing.T, text string) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("fix the parser")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	var items []domain.TodoItem
	for _, c := range []string{"read the parser", "fix the bug", "run the tests", "write the notes", "tidy up", "ask for review"} {
		items = append(items, domain.TodoItem{Content: c, Status: domain.TodoPending})
	}
	h.f.respond(t, id, "", []domain.ToolCall{todoCall("t1", items...)}, domain.Usage{InputTokens: 100})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list saved."})
	h.waitFor("the panel", func() bool { _, l := h.todoShown(); return len(l) == len(items) })
	h.m.showInline(text)
	h.press("Ctrl+F")
	h.settle()
	if !h.m.find.box.Visible() {
		t.Fatal("Ctrl+F did not open the Find bar")
	}
	for _, size := range []fyne.Size{fyne.NewSize(1024, 640), fyne.NewSize(800, 600)} {
		h.m.win.Resize(size)
		h.settle()
		if chat := h.m.chatHolder.Size().Height; chat < size.Height/2 {
			t.Errorf("at %v with Find open and a notice of %d characters the chat gets %v px, less than half the window (top %v, bottom %v)",
				size, len(text), chat, h.m.top.Size().Height, h.m.bottom.Size().Height)
		}
		if !h.m.find.box.Visible() || h.m.find.entry.Size().Height == 0 {
			t.Errorf("at %v the Find bar is not shown", size)
		}
	}
	// The folded notice keeps its whole text a button away, and only when it does not fit.
	if whole := h.m.notice.whole; whole.Visible() != (text == longNotice) {
		t.Errorf("at 800×600 a notice of %d characters shows the button for its whole text: %v", len(text), whole.Visible())
	} else if whole.Visible() {
		h.m.win.Canvas().Focus(whole)
		h.enter(fyne.KeyReturn)
		h.settle()
		top := h.m.win.Canvas().Overlays().Top()
		if top == nil || !strings.Contains(textUnder(top), text) {
			t.Fatalf("the notice's button shows no dialog with its whole text")
		}
		h.m.closeTopModal()
		h.settle()
	}
	// Closing Find gives the context meter its row back.
	h.m.find.hide()
	h.settle()
	if !h.m.header.meterRow.Visible() {
		t.Error("after Find closed the context meter is still folded")
	}
	h.press("Ctrl+F")
	h.m.win.Resize(fyne.NewSize(1100, 800))
	h.settle()
	if !h.m.header.meterRow.Visible() {
		t.Error("at 1100×800 with Find open the context meter is folded")
	}
	if h.m.notice.label.Text != text || h.m.notice.whole.Visible() {
		t.Errorf("at 1100×800 the notice is still folded: %q", h.m.notice.label.Text)
	}
}
