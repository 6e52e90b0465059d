package measure

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// wrapped is text whose height is its length divided by the width, like wrapped text.
type wrapped struct {
	*canvas.Rectangle
	length float32
}

func (w wrapped) HeightAt(width float32) float32 { return 10 * float32(int((w.length+width-1)/width)) }

func TestColumnMeasuresAtTheWidthItGives(t *testing.T) {
	test.NewTempApp(t)
	a := wrapped{canvas.NewRectangle(nil), 300}
	b := wrapped{canvas.NewRectangle(nil), 100}
	hidden := canvas.NewRectangle(nil)
	hidden.Hide()
	col := container.New(&Column{Gap: 5}, a, hidden, b)
	if h := HeightAt(col, 100); h != 30+5+10 {
		t.Errorf("height at 100: %v", h)
	}
	if h := HeightAt(col, 300); h != 10+5+10 {
		t.Errorf("height at 300: %v", h)
	}
	col.Resize(fyne.NewSize(100, 45))
	if b.Position().Y != 35 || a.Size().Height != 30 {
		t.Errorf("laid out: b at %v, a %v tall", b.Position().Y, a.Size().Height)
	}
	if col.MinSize().Height != 45 {
		t.Errorf("MinSize %v after a layout at width 100", col.MinSize())
	}
	// Other objects are given the width, then asked their MinSize: a wrapping label grows.
	l := widget.NewLabel("several words that wrap when the label is narrow")
	l.Wrapping = fyne.TextWrapWord
	if HeightAt(l, 80) <= HeightAt(l, 2000) {
		t.Error("a wrapping label is not measured at the width")
	}
}
