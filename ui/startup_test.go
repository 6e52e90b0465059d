package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// The window the caller made while it opened the backend (issue 36: the two overlap) is the
// one the main window is built in.
func TestMainWindowUsesTheGivenWindow(t *testing.T) {
	a := test.NewTempApp(t)
	w := a.NewWindow(AppTitle)
	f := newFakeBackend()
	m := NewMainWindow(a, f, f.sub, Deps{Window: w, Do: newQueue().push})
	t.Cleanup(func() { m.win.Close() })
	if m.Window() != w {
		t.Fatal("the main window made a window of its own")
	}
}
