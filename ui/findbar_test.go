package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

func TestFindInConversation(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.find.show()
	if !h.m.find.box.Visible() || h.m.win.Canvas().Focused() != fyne.Focusable(h.m.find.entry) {
		t.Fatal("Ctrl+F does not open the find bar with the focus")
	}
	test.Type(h.m.find.entry, "parse")
	if h.m.find.count.Text == "" || h.m.find.count.Text == "No matches" {
		t.Fatalf("count %q", h.m.find.count.Text)
	}
	n := len(h.m.find.hits)
	h.m.find.step(1)
	if h.m.find.count.Text != fmt.Sprintf("1 of %d", n) {
		t.Errorf("after next: %q", h.m.find.count.Text)
	}
	h.m.find.entry.SetText("zebra")
	if h.m.find.count.Text != "No matches" {
		t.Errorf("count %q", h.m.find.count.Text)
	}
	// Escape closes the bar and gives the focus back to the composer.
	h.m.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.m.find.box.Visible() || len(h.m.find.hits) != 0 {
		t.Error("Escape left the find bar open")
	}
	if h.m.win.Canvas().Focused() != fyne.Focusable(h.m.composer.entry) {
		t.Errorf("after Escape the focus is on %T, want the composer", h.m.win.Canvas().Focused())
	}
}

// rowMarks counts, per visible row, the Find highlights its text views show, and how many of
// those rows show them as the current match.
func rowMarks(h *harness) (rows, marks, current int) {
	for _, v := range h.visibleRowViews() {
		n, strong := 0, false
		eachTextView(v.root, func(t *markdown.View) {
			k, s := t.Marked()
			n += k
			strong = strong || s
		})
		if n > 0 {
			rows++
			marks += n
		}
		if strong {
			current++
		}
	}
	return rows, marks, current
}

// TestFindHighlightsEveryMatchAndTheCurrentOne (issue 28): every match in the visible rows
// is highlighted — the person's message as well as the agent's replies — the current row's
// more strongly; Enter and Shift+Enter step forward and back; Escape closes the bar and
// takes every highlight away.
func TestFindHighlightsEveryMatchAndTheCurrentOne(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.win.Resize(fyne.NewSize(1000, 1400)) // every row of the conversation on screen
	h.settle()
	h.m.find.show()
	test.Type(h.m.find.entry, "parser")
	h.settle()
	rows, marks, current := rowMarks(h)
	// "The parser test fails…" (the person), "The parser drops the first digit" (the agent).
	if rows < 2 || marks < 2 || current != 1 {
		t.Fatalf("find \"parser\": %d rows with %d highlights, %d current; want at least 2 rows and exactly 1 current", rows, marks, current)
	}
	n := len(h.m.find.hits)
	if h.m.find.count.Text != fmt.Sprintf("%d of %d", n, n) {
		t.Fatalf("count %q, want the newest match first", h.m.find.count.Text)
	}
	h.m.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if h.m.find.count.Text != fmt.Sprintf("1 of %d", n) {
		t.Errorf("after Enter: %q, want 1 of %d", h.m.find.count.Text, n)
	}
	h.m.find.entry.KeyDown(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	h.m.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.m.find.entry.KeyUp(&fyne.KeyEvent{Name: desktop.KeyShiftLeft})
	if h.m.find.count.Text != fmt.Sprintf("%d of %d", n, n) {
		t.Errorf("after Shift+Enter: %q, want %d of %d", h.m.find.count.Text, n, n)
	}
	if _, _, current := rowMarks(h); current != 1 {
		t.Errorf("%d rows show the current match, want 1", current)
	}
	h.m.find.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.settle()
	if rows, marks, _ := rowMarks(h); rows != 0 || marks != 0 || h.m.find.box.Visible() {
		t.Errorf("after Escape: bar shown %v, %d rows still show %d highlights", h.m.find.box.Visible(), rows, marks)
	}
}
