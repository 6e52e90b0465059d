package ui

import "fyne.io/fyne/v2"

// Fyne has no API for a window's position. Where the native window is an X11 window the
// position is read and set through Xlib (winpos_x11.go); elsewhere only the size is kept.

func windowPosition(w fyne.Window) (x, y int, ok bool) { return nativePosition(w) }

func restorePosition(w fyne.Window, x, y int) { nativeMove(w, x, y) }
