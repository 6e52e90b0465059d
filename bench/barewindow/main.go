// Command barewindow is the baseline of the bench's "exec → window mapped" rows: the least a
// Fyne program does to put a window on the screen (the app's size, one focused multi-line
// entry), with none of the app's packages linked in. The bench builds it with the go tool in
// the same run as it measures the app, so both use the same Fyne, driver and display.
//
// It may import only Fyne.
package main

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("io.github.phoenix-desktop.bench.barewindow")
	w := a.NewWindow("Bare Fyne window")
	e := widget.NewMultiLineEntry()
	e.SetPlaceHolder("A bare Fyne window with a focused multi-line entry")
	w.SetContent(container.NewBorder(nil, e, nil, nil, widget.NewLabel("")))
	w.Resize(fyne.NewSize(1180, 780))
	w.Canvas().Focus(e)
	w.ShowAndRun()
}
