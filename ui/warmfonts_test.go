package ui

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestWarmFontsLoadsTheFirstFrameStyles (issue 36: exec → window mapped): the text styles a
// new window draws before anything arrives from the backend (its first frame: the list of
// conversations comes later) are firstFrameStyles, which WarmFonts loads beside the window's
// making. A style drawn but not warmed would load on the main goroutine before the map again;
// one warmed but not drawn costs CPU the start could use. Built after WarmFonts' wait, with
// -race this also checks that the wait orders the warming before the window's own measuring.
func TestWarmFontsLoadsTheFirstFrameStyles(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(fixedVariant{Theme(), theme.VariantLight})
	WarmFonts()()
	f := newFakeBackend()
	q := newQueue() // not drained: nothing from the backend reaches the first frame
	m := NewMainWindow(a, f, f.sub, Deps{Do: q.push})
	m.win.Resize(fyne.NewSize(1100, 720))
	t.Cleanup(func() {
		m.win.Close()
		q.drain()
	})
	drawn := map[fyne.TextStyle]bool{}
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch o := o.(type) {
		case *canvas.Text:
			if o.Text != "" {
				drawn[o.TextStyle] = true
			}
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(o).Objects() {
				walk(c)
			}
		}
	}
	walk(m.win.Canvas().Content())
	var got []string
	for st := range drawn {
		got = append(got, fmt.Sprintf("%+v", st))
	}
	var want []string
	for _, st := range firstFrameStyles {
		want = append(want, fmt.Sprintf("%+v", st))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the first frame draws text in the styles %q; WarmFonts loads %q", got, want)
	}
}
