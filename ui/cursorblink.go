package ui

import (
	"image/color"
	"reflect"
	"sync"
	"time"
	"unsafe"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Why the composer has a cursor of its own (issue 28, "quiet while idle"): Fyne's entry fades
// its cursor in and out forever while focused, and each step of the fade refreshes it — about
// a dozen frames a second. Fyne repaints the whole window for every frame, and with a
// conversation open a frame is the whole chat, so a window that only waits for the person
// spent ~10% of a core (2.8× a bare window with a focused entry; a CPU profile of the idle app
// is all glCanvas.paint, plus the software rasteriser's threads). The composer instead blinks
// the way GTK does: on and off, twice a second, for blinkTimeout after the last key or focus,
// then it stays on — no frame at all while nobody types.

const (
	// blinkHalfPeriod is how long the cursor stays on, and then off.
	blinkHalfPeriod = 600 * time.Millisecond
	// blinkTimeout is how long it blinks after the last key press or focus (GTK's
	// gtk-cursor-blink-timeout is 10 s too).
	blinkTimeout = 10 * time.Second
)

// cursorBlink drives the cursor of one entry; every method runs on the UI goroutine, except
// the timer's, which hands its step to fyne.Do.
type cursorBlink struct {
	entry *widget.Entry
	now   func() time.Time
	// after schedules f; tests replace it to step the blink without waiting.
	after func(d time.Duration, f func())

	mu       sync.Mutex // guards the fields below against the timer's goroutine
	focused  bool
	active   time.Time // the last key press or focus
	on       bool      // the cursor is drawn
	pending  bool      // a step is scheduled
	fallback bool      // Fyne's cursor could not be reached: its own animation runs
}

func newCursorBlink(e *widget.Entry) *cursorBlink {
	return &cursorBlink{entry: e, now: time.Now, after: func(d time.Duration, f func()) {
		time.AfterFunc(d, func() { fyne.Do(f) })
	}}
}

// entryCursor reaches the cursor of a Fyne entry and the animation Fyne runs on it. Fyne has
// no option to blink its entry's cursor differently, so the fields are read by name; a Fyne
// version that renames them leaves ok false (TestComposerCursorIsReachable fails), and the
// entry keeps Fyne's own animation.
func entryCursor(e *widget.Entry) (anim **fyne.Animation, cursor *canvas.Rectangle, ok bool) {
	v := reflect.ValueOf(e).Elem().FieldByName("cursorAnim")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, nil, false
	}
	a := v.Elem()
	af, cf := a.FieldByName("anim"), a.FieldByName("cursor")
	if !af.IsValid() || af.Type() != reflect.TypeOf((*fyne.Animation)(nil)) ||
		!cf.IsValid() || cf.Type() != reflect.TypeOf((*canvas.Rectangle)(nil)) || cf.IsNil() {
		return nil, nil, false
	}
	anim = (**fyne.Animation)(unsafe.Pointer(af.UnsafeAddr()))
	cursor = *(**canvas.Rectangle)(unsafe.Pointer(cf.UnsafeAddr()))
	return anim, cursor, true
}

// quiet stops Fyne's animation of the cursor, which the entry starts whenever it is drawn
// focused without one, and shows the cursor as the blink has it. It leaves the animation in
// place, stopped, so the entry does not start another until it loses focus.
func (b *cursorBlink) quiet() {
	anim, cursor, ok := entryCursor(b.entry)
	if !ok {
		b.fallback = true
		return
	}
	if *anim != nil {
		(*anim).Stop()
	}
	c := color.Color(color.Transparent)
	b.mu.Lock()
	if b.on || !b.focused {
		c = theme.Color(theme.ColorNamePrimary)
	}
	b.mu.Unlock()
	cursor.FillColor = c
	cursor.Refresh()
}

// activity is a key press or focus: the cursor shows at once and blinks for blinkTimeout.
func (b *cursorBlink) activity() {
	b.mu.Lock()
	b.focused, b.active, b.on = true, b.now(), true
	schedule := !b.pending
	b.pending = b.pending || schedule
	b.mu.Unlock()
	b.quiet()
	if schedule && !b.fallback {
		b.after(blinkHalfPeriod, b.step)
	}
}

// blur is the focus leaving: the entry hides its cursor, and the blink ends at its next step.
func (b *cursorBlink) blur() {
	b.mu.Lock()
	b.focused = false
	b.mu.Unlock()
}

// step toggles the cursor, or leaves it on and schedules nothing once blinkTimeout has passed
// since the last activity or the focus left; so no timer outlives the blink by more than one
// half period.
func (b *cursorBlink) step() {
	b.mu.Lock()
	b.pending = false
	done := !b.focused || b.now().Sub(b.active) >= blinkTimeout
	if done {
		b.on = true
	} else {
		b.on = !b.on
		b.pending = true
	}
	focused := b.focused
	b.mu.Unlock()
	if focused {
		b.quiet()
	}
	if !done {
		b.after(blinkHalfPeriod, b.step)
	}
}

// FocusGained starts the composer's own blink (cursorblink.go).
func (e *composerEntry) FocusGained() {
	e.Entry.FocusGained()
	e.blink.activity()
}

// FocusLost ends it.
func (e *composerEntry) FocusLost() {
	e.blink.blur()
	e.Entry.FocusLost()
}

// TypedRune shows the cursor and blinks it again after typing.
func (e *composerEntry) TypedRune(r rune) {
	e.Entry.TypedRune(r)
	e.blink.activity()
}
