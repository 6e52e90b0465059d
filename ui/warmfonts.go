package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// firstFrameStyles are the text styles the window's first frame draws in (the sidebar, the
// header, the welcome card, the composer): Fyne loads a style's faces (the theme's font, its
// emoji font and the system's font for the language, each parsed whole) the first time text
// in it is measured.
var firstFrameStyles = []fyne.TextStyle{{}, {Bold: true}}

// WarmFonts loads the faces of firstFrameStyles on a goroutine of its own and returns the
// function that waits until they are loaded. The app starts it as soon as the theme is set
// and waits before it builds the window (issue 36: exec → window mapped): loading them took
// tens of milliseconds of the main goroutine's time before the map, which now overlaps with
// GLFW's start and the store's opening. Nothing else measures text until the wait returns, so
// Fyne's font caches are only ever touched by one goroutine at a time.
func WarmFonts() (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, st := range firstFrameStyles {
			fyne.MeasureText("Phoenix", theme.TextSize(), st)
		}
	}()
	return func() { <-done }
}
