package ui

import (
	"context"
	"errors"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
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

// TestSettingsTestConnectionMessageInViewAndWheelOverAField (issue 41 item 7): at 800×600
// Test connection's long message is scrolled into view whole (it was cut at the dialog's
// bottom), and the wheel over a text field scrolls the dialog (the field took it).
func TestSettingsTestConnectionMessageInViewAndWheelOverAField(t *testing.T) {
	long := "Connection failed: " + strings.Repeat("the provider answered 401 because the key is wrong; ", 6)
	h := newHarness(t, func(_ *fakeBackend, d *Deps) {
		d.ListModels = func(context.Context, Settings) ([]string, error) { return nil, errors.New(long) }
	})
	h.m.win.Resize(fyne.NewSize(800, 600))
	f := h.openSettings()
	h.settle()
	sc := f.dlg.scroll
	if sc.Content.MinSize().Height <= sc.Size().Height {
		t.Fatalf("the form (%v) fits the dialog (%v): the test needs it to scroll", sc.Content.MinSize().Height, sc.Size().Height)
	}
	// The button at the dialog's bottom edge, where the message grows under the fold.
	d := fyne.CurrentApp().Driver()
	testTop := d.AbsolutePositionForObject(f.test).Y - d.AbsolutePositionForObject(f.dlg.form).Y
	sc.ScrollToOffset(fyne.NewPos(0, testTop+f.test.Size().Height-sc.Size().Height))
	test.Tap(f.test)
	h.waitFor("the failure", func() bool { return strings.HasPrefix(f.result.Text, "Connection failed") })
	h.settle()
	top := d.AbsolutePositionForObject(f.result).Y - d.AbsolutePositionForObject(sc).Y
	if top < 0 || top+f.result.Size().Height > sc.Size().Height+1 {
		t.Errorf("the message spans %.0f–%.0f of a dialog %.0f high: not whole in view", top, top+f.result.Size().Height, sc.Size().Height)
	}
	if got, need := f.result.Size().Height, f.result.MinSize().Height; got < need-1 {
		t.Errorf("the message is %.0f high, its lines need %.0f: cut", got, need)
	}

	sc.ScrollToTop()
	at := d.AbsolutePositionForObject(f.baseURL).Add(fyne.NewPos(10, f.baseURL.Size().Height/2))
	test.Scroll(h.m.win.Canvas(), at, 0, -wheelNotch)
	if sc.Offset.Y <= 0 {
		t.Error("the wheel over the base URL field did not scroll the dialog")
	}
}
