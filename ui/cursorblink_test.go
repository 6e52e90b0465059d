package ui

import (
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestComposerCursorIsReachable fails when a Fyne upgrade renames the entry's cursor fields
// that cursorBlink reads: the composer would then fall back to Fyne's endless fade, which keeps
// an idle window repainting (the bench's idle row would show it too).
func TestComposerCursorIsReachable(t *testing.T) {
	test.NewTempApp(t)
	e := newComposerEntry()
	w := test.NewWindow(e)
	defer w.Close()
	if _, cursor, ok := entryCursor(&e.Entry); !ok || cursor == nil {
		t.Fatal("the composer's cursor cannot be reached: cursorBlink cannot replace Fyne's cursor animation")
	}
}

// fakeTimers steps a cursorBlink by hand: what it scheduled, and a clock to move.
type fakeTimers struct {
	now     time.Time
	pending []func()
}

func (f *fakeTimers) install(b *cursorBlink) {
	b.now = func() time.Time { return f.now }
	b.after = func(_ time.Duration, fn func()) { f.pending = append(f.pending, fn) }
}

// fire runs what is scheduled after moving the clock by d, and reports whether anything was.
func (f *fakeTimers) fire(d time.Duration) bool {
	f.now = f.now.Add(d)
	run := f.pending
	f.pending = nil
	for _, fn := range run {
		fn()
	}
	return len(run) > 0
}

func TestComposerCursorBlinksOnlyAfterActivity(t *testing.T) {
	test.NewTempApp(t)
	e := newComposerEntry()
	w := test.NewWindow(e)
	defer w.Close()
	clock := &fakeTimers{now: time.Unix(1000, 0)}
	clock.install(e.blink)
	_, cursor, _ := entryCursor(&e.Entry)
	primary := theme.Color(theme.ColorNamePrimary)

	w.Canvas().Focus(e)
	if len(clock.pending) != 1 || cursor.FillColor != primary {
		t.Fatalf("focus: %d steps scheduled, cursor %v; want one, and the cursor on", len(clock.pending), cursor.FillColor)
	}
	clock.fire(blinkHalfPeriod)
	if cursor.FillColor != color.Color(color.Transparent) {
		t.Fatalf("after half a period the cursor is %v, want it off", cursor.FillColor)
	}
	clock.fire(blinkHalfPeriod)
	if cursor.FillColor != primary {
		t.Fatalf("after a period the cursor is %v, want it on", cursor.FillColor)
	}
	// Nobody types: once blinkTimeout has passed the cursor stays on and nothing is scheduled,
	// so the window draws no frame at rest.
	steps := 0
	for clock.fire(blinkHalfPeriod) {
		if steps++; steps > int(blinkTimeout/blinkHalfPeriod)+2 {
			t.Fatal("the cursor still blinks long after the last key press")
		}
	}
	if cursor.FillColor != primary {
		t.Fatalf("at rest the cursor is %v, want it on", cursor.FillColor)
	}
	// A key press blinks it again, and losing the focus ends that at the next step.
	test.Type(e, "x")
	if len(clock.pending) != 1 {
		t.Fatalf("typing scheduled %d steps, want 1", len(clock.pending))
	}
	w.Canvas().Unfocus()
	clock.fire(blinkHalfPeriod)
	if len(clock.pending) != 0 {
		t.Fatal("the cursor still blinks after the composer lost the focus")
	}
}
