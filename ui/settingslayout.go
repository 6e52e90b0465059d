package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// settingsSize is the Settings dialog's size where the window has room for it: wide enough
// for a URL and a key, and fixed, so that a long hint wraps instead of widening the dialog
// (issue 28: it grew to 1,130 units and was cut off at 800×600).
var settingsSize = fyne.NewSize(600, 520)

// dialogMargin is what a dialog leaves free of the window on each side.
const dialogMargin float32 = 24

// fitDialog is a dialog size no larger than the window, less a margin on each side.
func (m *MainWindow) fitDialog(want fyne.Size) fyne.Size {
	c := m.win.Canvas().Size()
	if c.Width <= 0 || c.Height <= 0 {
		return want
	}
	return fyne.NewSize(min(want.Width, c.Width-2*dialogMargin), min(want.Height, c.Height-2*dialogMargin))
}

// hintLabel is a form hint that wraps: Fyne draws a FormItem's HintText as one line of
// canvas.Text, which makes the form as wide as its longest hint.
func hintLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.SizeName = theme.SizeNameCaptionText
	l.Importance = widget.LowImportance
	l.Hidden = text == ""
	return l
}

// wrapHints moves each item's HintText into a wrapping label under its widget and returns
// the labels by the items' texts. The key field stays the item's widget (the form asks it
// whether Save may be pressed), so its hint goes into its box; the other fields validate
// nothing.
func wrapHints(items []*widget.FormItem) map[string]*widget.Label {
	out := map[string]*widget.Label{}
	for _, it := range items {
		if it == nil || it.HintText == "" {
			continue
		}
		l := hintLabel(it.HintText)
		switch w := it.Widget.(type) {
		case *keyField:
			w.box.Add(l)
		default:
			it.Widget = container.NewVBox(w, l)
		}
		out[it.Text] = l
		it.HintText = ""
	}
	return out
}

// setHint changes a hint label's text, hiding it while empty.
func setHint(l *widget.Label, text string) {
	l.Hidden = text == ""
	l.SetText(text)
}

// scrollingForm is a form dialog whose fields scroll when the window is too short for them
// (dialog.NewForm grows with its form and, at 800×600, ran off the window). Save is enabled
// while every field validates, as in dialog.NewForm.
type scrollingForm struct {
	*dialog.CustomDialog
	form     *widget.Form
	confirm  *button.Button
	onSubmit func()
	// check, when set, is asked before submitting too: a field that is not a form item of
	// its own says what is wrong, and the dialog stays open with what was typed.
	check func() error
	// scroll holds the form; a wheel catcher lies over it, so that the wheel scrolls the
	// dialog over a field too (a Fyne entry takes the wheel for itself).
	scroll *container.Scroll
}

func newScrollingForm(title, confirm string, items []*widget.FormItem, onSubmit func(), parent fyne.Window) *scrollingForm {
	d := &scrollingForm{form: widget.NewForm(items...), onSubmit: onSubmit}
	d.scroll = container.NewVScroll(d.form)
	catcher := newWheelCatcher(func(ev *fyne.ScrollEvent) { d.scroll.Scrolled(ev) })
	d.CustomDialog = dialog.NewCustomWithoutButtons(title, container.NewStack(d.scroll, catcher), parent)
	d.confirm = button.NewWithIcon(confirm, theme.ConfirmIcon(), d.Submit)
	d.confirm.Importance = widget.HighImportance
	cancel := button.NewWithIcon("Cancel", theme.CancelIcon(), d.Hide)
	d.form.SetOnValidationChanged(func(err error) {
		if err != nil {
			d.confirm.Disable()
		} else {
			d.confirm.Enable()
		}
	})
	if d.form.Validate() != nil {
		d.confirm.Disable()
	}
	d.SetButtons([]fyne.CanvasObject{cancel, d.confirm})
	return d
}

// reveal scrolls the form so that o is in view whole (a message that grew under the fold).
func (d *scrollingForm) reveal(o fyne.CanvasObject) {
	// A label that grew does not resize the scrolled form by itself: lay it out again first.
	d.form.Refresh()
	d.scroll.Refresh()
	drv := fyne.CurrentApp().Driver()
	top := drv.AbsolutePositionForObject(o).Y - drv.AbsolutePositionForObject(d.form).Y
	view := d.scroll.Size().Height
	off := d.scroll.Offset.Y
	switch {
	case top+o.Size().Height > off+view:
		off = top + o.Size().Height - view
	case top < off:
		off = top
	}
	if off != d.scroll.Offset.Y {
		d.scroll.ScrollToOffset(fyne.NewPos(0, off))
	}
}

// Submit does what the confirm button does: nothing while a field does not validate.
func (d *scrollingForm) Submit() {
	if d.form.Validate() != nil || (d.check != nil && d.check() != nil) {
		return
	}
	d.Hide()
	d.onSubmit()
}
