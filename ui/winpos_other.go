//go:build !(linux && cgo && !wayland)

package ui

import "fyne.io/fyne/v2"

func nativeScreen(int, int) (int, int, int, bool) { return 0, 0, 0, false }

// noPlacer is where the window's position cannot be read or set: only its size is kept.
type noPlacer struct{}

func (noPlacer) where(fyne.Window) (place, bool) { return place{}, false }
func (noPlacer) move(fyne.Window, point)         {}
func (noPlacer) maximize(fyne.Window)            {}
func (noPlacer) monitors() []rect                { return nil }

var native placer = noPlacer{}
