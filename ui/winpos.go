package ui

import (
	"math"
	"os"
	"strconv"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver"
)

// This file keeps the main window's size across starts, and winplace.go its place. Fyne has
// no API for a window's position. Where the native window is an X11 window the position is
// read and set through Xlib (winpos_x11.go); elsewhere only the size is kept.

// defaultWindow is the main window's size on a first start, in device-independent units,
// where the screen has room for it; minWindow is the smallest size it is given.
var (
	defaultWindow = fyne.NewSize(1180, 780)
	minWindow     = fyne.NewSize(640, 420)
)

// screenRoom is what a window leaves of its monitor, in pixels: the window manager's frame
// and the desktop's panels.
const screenRoom = 64

// restoreWindow gives the window its remembered size, never larger than the screen it opens
// on (issue 28: the default was larger than a 1024×640 screen). The size is kept in
// device-independent units (Fyne's units at a user scale of 1), so that it does not grow
// when FYNE_SCALE does. The position can only be set once the window exists on the screen:
// restorePlace does that after it is shown.
func (m *MainWindow) restoreWindow() {
	scale := userScale(m.app)
	size := defaultWindow
	g, ok := parseGeometry(m.app.Preferences().String(prefGeometry))
	if ok {
		size = fyne.NewSize(g.W, g.H)
	}
	size = fyne.NewSize(max(size.Width, minWindow.Width)/scale, max(size.Height, minWindow.Height)/scale)
	x, y := -1, -1
	if ok && g.HasPos {
		x, y = g.X, g.Y
	}
	if room, ok := screenOf(m.win, x, y, scale); ok {
		size = fyne.NewSize(min(size.Width, room.Width), min(size.Height, room.Height))
	}
	m.win.Resize(size)
}

// screenOf is the room a window at x, y (x < 0: placed by the window manager) has on its
// monitor, in the window's units at user scale; tests replace it.
var screenOf = func(w fyne.Window, x, y int, user float32) (fyne.Size, bool) {
	if _, native := w.(driver.NativeWindow); !native {
		return fyne.Size{}, false // the test driver has no screen
	}
	pw, ph, mm, ok := nativeScreen(x, y)
	if !ok {
		return fyne.Size{}, false
	}
	return roomOnScreen(pw, ph, mm, user), true
}

// roomOnScreen turns a monitor's pixels into the window's units: Fyne scales by the user's
// scale times the monitor's own, which it derives from the monitor's DPI against 120
// (internal/driver/glfw/scale.go), never below 1, rounded to a tenth.
func roomOnScreen(pw, ph, mm int, user float32) fyne.Size {
	detected := float32(1)
	if mm > 0 {
		if dpi := float32(pw) / (float32(mm) / 25.4); dpi >= 10 && dpi <= 1000 {
			detected = max(1, dpi/120)
		}
	}
	scale := float32(math.Round(float64(user*detected)*10) / 10)
	if scale <= 0 {
		scale = 1
	}
	return fyne.NewSize(float32(max(pw-screenRoom, 1))/scale, float32(max(ph-screenRoom, 1))/scale)
}

// userScale is the person's scale: FYNE_SCALE, else the one in Fyne's settings, as Fyne's
// GLFW driver reads it ("auto" and anything unreadable count as 1).
func userScale(a fyne.App) float32 {
	if env := os.Getenv("FYNE_SCALE"); env != "" {
		if env == "auto" {
			return 1
		}
		if v, err := strconv.ParseFloat(env, 32); err == nil && v > 0 {
			return float32(v)
		}
		return 1
	}
	if v := a.Settings().Scale(); v > 0 {
		return v
	}
	return 1
}
