//go:build !(linux && cgo && !wayland)

package ui

import "fyne.io/fyne/v2"

func nativePosition(fyne.Window) (int, int, bool) { return 0, 0, false }

func nativeMove(fyne.Window, int, int) {}

func nativeScreen(int, int) (int, int, int, bool) { return 0, 0, 0, false }
