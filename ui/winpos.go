package ui

import (
	"fmt"

	"fyne.io/fyne/v2"
)

// This file keeps the main window's size and place across starts. Fyne has no API for a
// window's position. Where the native window is an X11 window the position is read and set
// through Xlib (winpos_x11.go); elsewhere only the size is kept.

func windowPosition(w fyne.Window) (x, y int, ok bool) { return nativePosition(w) }

func restorePosition(w fyne.Window, x, y int) { nativeMove(w, x, y) }

// geometry is the window's remembered size and, where the platform tells it, position. It is
// kept in one preference so that saving it is one write: Fyne writes the preferences file at
// once for the first change and defers the writes of changes that follow it closely, which
// can be lost when the app exits right after.
type geometry struct {
	W, H   float32
	X, Y   int
	HasPos bool
}

func (g geometry) String() string {
	if g.HasPos {
		return fmt.Sprintf("%g %g %d %d", g.W, g.H, g.X, g.Y)
	}
	return fmt.Sprintf("%g %g", g.W, g.H)
}

func parseGeometry(s string) (geometry, bool) {
	var g geometry
	if n, _ := fmt.Sscanf(s, "%g %g %d %d", &g.W, &g.H, &g.X, &g.Y); n == 4 {
		g.HasPos = true
		return g, g.W > 0 && g.H > 0
	}
	if n, _ := fmt.Sscanf(s, "%g %g", &g.W, &g.H); n == 2 {
		return g, g.W > 0 && g.H > 0
	}
	return geometry{}, false
}

// restoreWindow gives the window its remembered size. The position can only be set once the
// window exists on the screen: restorePlace does that after it is shown.
func (m *MainWindow) restoreWindow() {
	size := fyne.NewSize(1180, 780)
	if g, ok := parseGeometry(m.app.Preferences().String(prefGeometry)); ok {
		size = fyne.NewSize(max(g.W, 640), max(g.H, 420))
	}
	m.win.Resize(size)
}

// restorePlace moves the shown window to its remembered position.
func (m *MainWindow) restorePlace() {
	if g, ok := parseGeometry(m.app.Preferences().String(prefGeometry)); ok && g.HasPos && g.X >= 0 && g.Y >= 0 {
		restorePosition(m.win, g.X, g.Y)
	}
}

// saveWindow remembers the window's size and position for the next start.
func (m *MainWindow) saveWindow() {
	s := m.win.Canvas().Size()
	if s.Width <= 0 || s.Height <= 0 {
		return
	}
	g := geometry{W: s.Width, H: s.Height}
	g.X, g.Y, g.HasPos = windowPosition(m.win)
	m.app.Preferences().SetString(prefGeometry, g.String())
}
