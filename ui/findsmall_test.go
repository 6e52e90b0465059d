package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestFindAtSmallSizesKeepsHalfTheChat (issue 36): at 800×600 and 1024×640, with the task list
// shown, a notice and the Find bar open, the chat keeps at least half the window's height: the
// context meter's row folds while Find is open.
func TestFindAtSmallSizesKeepsHalfTheChat(t *testing.T) {
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
	h.m.showInline("Could not save the draft: the disk is full. Free some space.")
	h.press("Ctrl+F")
	h.settle()
	if !h.m.find.box.Visible() {
		t.Fatal("Ctrl+F did not open the Find bar")
	}
	for _, size := range []fyne.Size{fyne.NewSize(1024, 640), fyne.NewSize(800, 600)} {
		h.m.win.Resize(size)
		h.settle()
		if chat := h.m.chatHolder.Size().Height; chat < size.Height/2 {
			t.Errorf("at %v with Find open the chat gets %v px, less than half the window (top %v, bottom %v)",
				size, chat, h.m.top.Size().Height, h.m.bottom.Size().Height)
		}
		if !h.m.find.box.Visible() || h.m.find.entry.Size().Height == 0 {
			t.Errorf("at %v the Find bar is not shown", size)
		}
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
}
