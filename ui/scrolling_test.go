package ui

import (
	"fmt"
	"math"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/domain"
)

// near reports whether a and b differ by less than a pixel.
func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1 }

// PageUp, PageDown, Ctrl+Home and Ctrl+End move the chat from the composer and with nothing
// focused; in a composer of more than one line PageUp stays the composer's; a wheel notch moves
// the chat three lines and the sidebar one row (issue 41: they did nothing, and a notch moved
// about 20 px).
func TestChatScrollsByKeyboardAndWheel(t *testing.T) {
	var long string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range 40 {
			f.add(domain.NewConversationParams{Title: fmt.Sprintf("Other %d", i), Cwd: "/o", Model: "gpt-4o"})
		}
		long = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/l", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(long)
	cv := h.m.cv
	view := cv.list.Size().Height
	end := cv.list.GetScrollOffset()
	if end <= view || !cv.atBottom(1) {
		t.Fatalf("the long conversation did not open at its end (offset %v, view %v)", end, view)
	}
	e := h.m.composer.entry
	h.m.win.Canvas().Focus(e)

	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	if got := cv.list.GetScrollOffset(); !near(got, end-(view-lineHeight())) {
		t.Fatalf("PageUp in the composer: offset %v, want %v", got, end-(view-lineHeight()))
	}
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
	if got := cv.list.GetScrollOffset(); !near(got, end) {
		t.Fatalf("PageDown in the composer: offset %v, want %v", got, end)
	}
	e.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyHome, Modifier: fyne.KeyModifierShortcutDefault})
	if got := cv.list.GetScrollOffset(); got != 0 {
		t.Fatalf("Ctrl+Home in the composer: offset %v", got)
	}

	// A wheel notch over the rows (found as the driver finds what takes it) moves three lines.
	mid := absPos(cv.list).Add(fyne.NewPos(cv.list.Size().Width/2, cv.list.Size().Height/2))
	test.Scroll(h.m.win.Canvas(), mid, 0, -wheelNotch)
	if got, want := cv.list.GetScrollOffset(), 3*lineHeight(); !near(got, want) || want < 30 {
		t.Fatalf("a wheel notch moved the chat %v, want three lines (%v)", got, want)
	}

	e.TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyEnd, Modifier: fyne.KeyModifierShortcutDefault})
	if !cv.atBottom(1) {
		t.Fatalf("Ctrl+End in the composer: offset %v, not at the end", cv.list.GetScrollOffset())
	}

	// More than one line: PageUp moves the composer's cursor, not the chat.
	e.SetText("first line\nsecond line")
	e.CursorRow = 1
	e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	if !cv.atBottom(1) || e.CursorRow != 0 {
		t.Fatalf("PageUp in a two-line composer: chat moved %v, cursor row %d", !cv.atBottom(1), e.CursorRow)
	}

	// A click in the chat leaves nothing focused, and the window takes the keys.
	h.m.win.Canvas().Focus(cv.list)
	cv.list.Select(len(h.rows()) - 1)
	if f := h.m.win.Canvas().Focused(); f != nil {
		t.Fatalf("a click on a row focused %T", f)
	}
	typed := h.m.win.Canvas().(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()
	typed(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	if got := cv.list.GetScrollOffset(); !near(got, end-(view-lineHeight())) {
		t.Fatalf("PageUp with nothing focused: offset %v", got)
	}
	typed(&fyne.KeyEvent{Name: fyne.KeyDown})
	if got := cv.list.GetScrollOffset(); !near(got, end-(view-lineHeight())+lineHeight()) {
		t.Fatalf("Down with nothing focused: offset %v", got)
	}
	for _, s := range h.m.shortcuts() {
		if c, ok := s.shortcut.(*desktop.CustomShortcut); ok && c.KeyName == fyne.KeyHome {
			s.run()
		}
	}
	if got := cv.list.GetScrollOffset(); got != 0 {
		t.Fatalf("Ctrl+Home with nothing focused: offset %v", got)
	}

	// A wheel notch over the sidebar moves one row.
	var side *sideRow
	walk(h.m.sidebar.list, func(o fyne.CanvasObject) {
		if r, ok := o.(*sideRow); ok && side == nil && r.Visible() {
			side = r
		}
	})
	if side == nil {
		t.Fatal("no sidebar row")
	}
	h.m.sidebar.list.ScrollToTop()
	sl := h.m.sidebar.list
	test.Scroll(h.m.win.Canvas(), absPos(sl).Add(fyne.NewPos(sl.Size().Width/2, sl.Size().Height/2)), 0, -wheelNotch)
	if got, want := h.m.sidebar.list.GetScrollOffset(), side.Size().Height+theme.Padding(); !near(got, want) {
		t.Fatalf("a wheel notch moved the sidebar %v, want one row (%v)", got, want)
	}
}

// TestTouchpadDeltasScrollSmoothly (issue 41 item 4): a touchpad reports a notch's distance in
// small steps; they add up to what the notch moves (three lines in the chat, one row in the
// sidebar), each step moving a little, not nothing and not a whole notch.
func TestTouchpadDeltasScrollSmoothly(t *testing.T) {
	var long string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range 40 {
			f.add(domain.NewConversationParams{Title: fmt.Sprintf("Other %d", i), Cwd: "/o", Model: "gpt-4o"})
		}
		long = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/l", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(long)
	cv := h.m.cv
	cv.list.ScrollToTop()
	mid := absPos(cv.list).Add(fyne.NewPos(cv.list.Size().Width/2, cv.list.Size().Height/2))
	const steps = 5
	prev := cv.list.GetScrollOffset()
	for i := range steps {
		test.Scroll(h.m.win.Canvas(), mid, 0, -wheelNotch/steps)
		got := cv.list.GetScrollOffset()
		if d := got - prev; !near(d, 3*lineHeight()/steps) {
			t.Fatalf("touchpad step %d moved the chat %v, want %v", i+1, d, 3*lineHeight()/steps)
		}
		prev = got
	}
	sl := h.m.sidebar.list
	sl.ScrollToTop()
	var side *sideRow
	walk(sl, func(o fyne.CanvasObject) {
		if r, ok := o.(*sideRow); ok && side == nil && r.Visible() {
			side = r
		}
	})
	if side == nil {
		t.Fatal("no sidebar row")
	}
	at := absPos(sl).Add(fyne.NewPos(sl.Size().Width/2, sl.Size().Height/2))
	for range steps {
		test.Scroll(h.m.win.Canvas(), at, 0, -wheelNotch/steps)
	}
	if got, want := sl.GetScrollOffset(), side.Size().Height+theme.Padding(); !near(got, want) {
		t.Fatalf("%d touchpad steps of a fifth of a notch moved the sidebar %v, want one row (%v)", steps, got, want)
	}
}
