package ui

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// TestSmallWindowCollapsesTheSidebar (issue 36): at 800×600 the sidebar collapses to a
// toggle; Ctrl+B brings it back no narrower than sidebarTitlePrefix characters of a title,
// and hides it again.
func TestSmallWindowCollapsesTheSidebar(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	s := h.m.small
	if !s.frame.Visible() || s.toggle.Visible() {
		t.Fatal("at 1100 px the sidebar is not shown")
	}
	h.m.win.Resize(fyne.NewSize(800, 600))
	h.settle()
	if s.frame.Visible() || !s.toggle.Visible() {
		t.Fatalf("at 800 px: sidebar shown %v, toggle shown %v", s.frame.Visible(), s.toggle.Visible())
	}
	// The resize alone lays the split out (apply no longer refreshes it then): the chat's
	// pane takes the whole width the sidebar gave up.
	if w := h.m.right.Size().Width; w < 800-4*pad() {
		t.Fatalf("at 800 px with the sidebar collapsed the right pane is %v px wide", w)
	}
	h.press("Ctrl+B")
	h.settle()
	if !s.frame.Visible() || s.toggle.Visible() {
		t.Fatal("Ctrl+B did not bring the sidebar back")
	}
	if w, min := s.frame.Size().Width, sidebarMinWidth(h.m); w < min {
		t.Fatalf("the sidebar is %v px wide, narrower than %v (a title's %d characters)", w, min, sidebarTitlePrefix)
	}
	r := sideRowOf(h, h.m.current.id)
	if r == nil {
		t.Fatal("no row for the open conversation")
	}
	twelve := fyne.MeasureText("nnnnnnnnnnnn", r.title.Theme().Size("text"), fyne.TextStyle{Bold: true}).Width
	if r.title.Size().Width < twelve {
		t.Fatalf("the title gets %v px, less than %v for %d characters", r.title.Size().Width, twelve, sidebarTitlePrefix)
	}
	h.press("Ctrl+B")
	h.settle()
	if s.frame.Visible() {
		t.Fatal("Ctrl+B did not hide the sidebar")
	}
	s.chosen = nil // the width decides again
	h.m.win.Resize(fyne.NewSize(1100, 720))
	h.settle()
	if !s.frame.Visible() || s.frame.Size().Width < sidebarMinWidth(h.m) || h.m.right.Size().Width > 1100-sidebarMinWidth(h.m) {
		t.Fatalf("back at 1100 px: sidebar shown %v, %v px wide; right pane %v px", s.frame.Visible(), s.frame.Size().Width, h.m.right.Size().Width)
	}
}

// TestShortWindowFoldsTheTaskList (issue 36): below shortWindowHeight the task list shows only
// its summary, and the chat keeps at least half the window's height.
func TestShortWindowFoldsTheTaskList(t *testing.T) {
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
	for _, size := range []fyne.Size{fyne.NewSize(1024, 640), fyne.NewSize(800, 600)} {
		h.m.win.Resize(size)
		h.settle()
		head, lines := h.todoShown()
		if head == "" || len(lines) != 0 {
			t.Errorf("at %v the task list shows %q and %d lines; want only its summary", size, head, len(lines))
		}
		if h.m.header.subtitle.Visible() || !strings.Contains(h.m.header.title.Text, "/home/ada/src/parser") {
			t.Errorf("at %v the header has two rows (title %q)", size, h.m.header.title.Text)
		}
		if chat := h.m.chatHolder.Size().Height; chat < size.Height/2 {
			t.Errorf("at %v the chat gets %v px, less than half the window", size, chat)
		}
	}
	h.m.win.Resize(fyne.NewSize(1100, 800))
	h.settle()
	if !h.m.header.subtitle.Visible() || strings.Contains(h.m.header.title.Text, "/home/ada") {
		t.Errorf("at 1100×800 the header is still folded (title %q)", h.m.header.title.Text)
	}
	if _, lines := h.todoShown(); !slices.Equal(lines, []string{"read the parser", "fix the bug", "run the tests", "write the notes", "tidy up", "ask for review"}[:len(lines)]) || len(lines) == 0 {
		t.Errorf("at 1100×800 the task list shows %q", lines)
	}
}

// TestSidebarDividerKeptAcrossRestarts (issue 41): a moved divider is where it was in the
// next window on the same preferences.
func TestSidebarDividerKeptAcrossRestarts(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	h.m.small.split.SetOffset(0.4)
	h.settle()
	m2 := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	defer m2.win.Close()
	if got := m2.small.split.Offset; got != 0.4 {
		t.Fatalf("the divider comes back at %v, want 0.4", got)
	}
}
