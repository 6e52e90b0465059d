package ui

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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
