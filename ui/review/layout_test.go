package review

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// moveCounter is an object that counts the moves it is given: fyne.Container.Move asks for
// a frame whether or not the place changes, so a layout must not move what is in place.
type moveCounter struct {
	*canvas.Rectangle
	moves int
}

func (m *moveCounter) Move(p fyne.Position) {
	m.moves++
	m.Rectangle.Move(p)
}

// TestRowLayoutsMoveNothingInPlace_Issue34: laid out again at the same size, as Fyne does
// within a frame when a bar's text changed its minimum size, a row's layouts move nothing;
// Fyne's stack and border layouts moved every object, and each move of a container drew a
// second, identical frame after every scroll step. The bars still place the text on the
// left and the controls at the right end, a padding apart.
func TestRowLayoutsMoveNothingInPlace_Issue34(t *testing.T) {
	test.NewTempApp(t)
	c := newRowCell(NewView(Options{}))
	size := fyne.NewSize(600, 20)
	for name, l := range map[string]fyne.Layout{"row": c.all.Layout, "file bar": c.fileBar.Layout, "hunk bar": c.hunkBar.Layout} {
		objs := make([]fyne.CanvasObject, 3)
		counters := make([]*moveCounter, 3)
		for i := range objs {
			counters[i] = &moveCounter{Rectangle: canvas.NewRectangle(nil)}
			counters[i].SetMinSize(fyne.NewSize(float32(50*(i+1)), 16))
			objs[i] = counters[i]
		}
		l.Layout(objs, size)
		for _, m := range counters {
			m.moves = 0
		}
		l.Layout(objs, size)
		for i, m := range counters {
			if m.moves != 0 {
				t.Errorf("%s: laid out again at the same size, object %d was moved %d times", name, i, m.moves)
			}
		}
	}
	l := c.fileBar.Layout
	label, a, b := canvas.NewRectangle(nil), canvas.NewRectangle(nil), canvas.NewRectangle(nil)
	a.SetMinSize(fyne.NewSize(80, 16))
	b.SetMinSize(fyne.NewSize(60, 16))
	l.Layout([]fyne.CanvasObject{label, a, b}, size)
	pad := theme.Padding()
	if b.Position().X != 540 || a.Position().X != 540-pad-80 || label.Position().X != 0 || label.Size().Width != 540-pad-80-pad {
		t.Errorf("file bar: text at %v %v, controls at %v and %v", label.Position(), label.Size(), a.Position(), b.Position())
	}
}
