package ui

import (
	"image/color"
	"os"
	"runtime/debug"
	"time"

	"fyne.io/fyne/v2/canvas"
)

// The window at rest gives back what Fyne keeps for objects it no longer shows (issue 43).
// Fyne keeps a renderer for every widget it has drawn (its internal cache) and destroys one
// not drawn for the cache's expiry (a minute) only in a frame where a canvas was repainted:
// its Clean skips renderers otherwise, because destroying them between repaints could make
// the screen flicker. A window that nothing changes is never repainted, so the renderers of
// what the last minute of activity replaced or removed (the sidebar's rows re-bound at each
// event, a conversation's rows unloaded, a dialog closed) stayed: 6.6 MiB of the window's
// 11.2 MiB live heap at rest after the 2,000-turn window soak. So once the window has been
// idle for longer than that expiry, it repaints once, what it already shows: the frame
// shows nothing new (no flicker; scroll places, focus and drafts are untouched), and the
// Clean that follows it destroys the expired renderers. After Clean's own gate (it runs at
// most every 10 s) the memory they held goes back to the system. Nothing here runs again
// until the next event: an idle window stays idle.

// rendererExpiry is how long Fyne keeps a renderer not drawn: its default, or FYNE_CACHE,
// which Fyne reads the same way at start.
func rendererExpiry() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("FYNE_CACHE")); err == nil {
		return d
	}
	return time.Minute
}

// sweepMargin is added to the expiry so that what was last drawn with the last event has
// expired when the repaint comes; cleanGate is past the 10 s Fyne's Clean waits between two
// runs, so that it has run when the memory is given back.
const (
	sweepMargin = 5 * time.Second
	cleanGate   = 11 * time.Second
)

// idleSweep repaints the window once after a quiet spell. Its fields are used on the UI
// goroutine only.
type idleSweep struct {
	// after is the quiet spell (rendererExpiry + sweepMargin), free the wait after the
	// repaint (cleanGate); tests shorten both.
	after, free time.Duration
	timer       *time.Timer
	// repaint marks the window's canvas for a repaint; giveBack returns the freed memory to
	// the system (giveBackMemory). Tests watch both.
	repaint  func()
	giveBack func()
}

// armSweep (re)starts the quiet spell: called when the window changed what it holds (an
// event batch applied, a conversation shown).
func (m *MainWindow) armSweep() {
	s := &m.sweep
	if s.repaint == nil {
		s.after, s.free = rendererExpiry()+sweepMargin, cleanGate
		// What is refreshed is a rectangle outside the window's tree: the canvas is marked
		// for a repaint, and the frame counts as refreshed for Clean (the GL driver counts
		// the objects queued for a refresh), while nothing else changes. Refreshing the content instead would make
		// Fyne free the textures of everything in it (every text drawn again from scratch).
		mark := canvas.NewRectangle(color.Transparent)
		s.repaint = func() { m.win.Canvas().Refresh(mark) }
		s.giveBack = giveBackMemory
	}
	if s.timer != nil {
		s.timer.Reset(s.after)
		return
	}
	s.timer = time.AfterFunc(s.after, func() { m.do(m.sweepNow) })
}

// giveBackMemory returns to the system what the Go heap and the C heap freed: Fyne's
// renderers are Go objects, the textures of their text are the C side's.
func giveBackMemory() {
	debug.FreeOSMemory()
	trimCHeap()
}

// sweepNow is the repaint after a quiet spell.
func (m *MainWindow) sweepNow() {
	if m.closed {
		return
	}
	m.sweep.repaint()
	time.AfterFunc(m.sweep.free, m.sweep.giveBack)
}
