package button

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// Enter, the keypad's Enter and Space press a focused button; other keys and a disabled button
// do nothing.
func TestEnterPressesTheButton(t *testing.T) {
	test.NewTempApp(t)
	for _, key := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace} {
		n := 0
		b := New("Go", func() { n++ })
		w := test.NewTempWindow(t, b)
		w.Canvas().Focus(b)
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: key})
		if n != 1 {
			t.Errorf("%s on a focused button pressed it %d times, want once", key, n)
		}
		b.Disable()
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: key})
		if n != 1 {
			t.Errorf("%s on a disabled button pressed it", key)
		}
	}
	n := 0
	b := NewWithIcon("Go", nil, func() { n++ })
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyA})
	if n != 0 {
		t.Errorf("the key A pressed the button")
	}
}
