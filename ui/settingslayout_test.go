package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// TestSettingsDialogHasAFixedWidth (issue 28): the Settings dialog is as wide as its fixed
// width, not as its longest hint, and fits an 800×600 window; every hint wraps.
func TestSettingsDialogHasAFixedWidth(t *testing.T) {
	long := strings.Repeat("a hint that goes on because there is room ", 3)
	for _, win := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 800, Height: 600}} {
		h := newHarness(t, func(_ *fakeBackend, d *Deps) {
			d.EnvOverrides = func() map[string]string { return map[string]string{FieldBaseURL: long} }
		})
		h.m.win.Resize(win)
		f := h.openSettings()
		h.settle()
		top := h.m.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("the Settings dialog is not shown")
		}
		want := min(settingsSize.Width, win.Width-2*dialogMargin)
		var form *widget.Form
		walk(top, func(o fyne.CanvasObject) {
			if x, ok := o.(*widget.Form); ok && form == nil {
				form = x
			}
		})
		if form == nil {
			t.Fatal("no form in the Settings dialog")
		}
		// The form fills the dialog but for the dialog's padding.
		if w := form.Size().Width; w > want || w < want-60 {
			t.Errorf("%v: the form is %g wide; want about the fixed width %g", win, w, want)
		}
		if need := form.MinSize(); need.Width > want {
			t.Errorf("%v: the form needs %v; more than the dialog's %g", win, need, want)
		}
		// The fields scroll where the window is short: Save stays on the window.
		save := f.dlg.confirm
		at := fyne.CurrentApp().Driver().AbsolutePositionForObject(save)
		if !save.Visible() || at.Y+save.Size().Height > win.Height || at.Y < 0 {
			t.Errorf("%v: Save is at %v, off the window", win, at)
		}
		hint := f.hints["Base URL"]
		if hint == nil || hint.Wrapping != fyne.TextWrapWord || !strings.Contains(hint.Text, long) {
			t.Fatalf("%v: the base URL's hint %+v does not wrap", win, hint)
		}
		if hint.Size().Width > want {
			t.Errorf("%v: the hint is %g wide", win, hint.Size().Width)
		}
	}
}
