package ui

import (
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The app's dialogs are Fyne's dialog frame with buttons of our own (ui/button), so that Enter
// on a focused dialog button presses it as it does everywhere else in the window: Fyne's
// NewConfirm, NewCustom, NewError and NewForm build their buttons inside, from widget.Button,
// which takes only Space. These helpers keep Fyne's words and order (dismiss left, confirm
// right); forms are scrollingForm (settingslayout.go).

// newCloseDialog is dialog.NewCustom: content with one button that closes it.
func newCloseDialog(title, dismiss string, content fyne.CanvasObject, parent fyne.Window) *dialog.CustomDialog {
	d := dialog.NewCustomWithoutButtons(title, content, parent)
	d.SetButtons([]fyne.CanvasObject{button.New(dismiss, d.Hide)})
	return d
}

// newErrorDialog is dialog.NewError: the error's words, first letter capitalised, and OK.
func newErrorDialog(err error, parent fyne.Window) *dialog.CustomDialog {
	msg := err.Error()
	if r, n := utf8.DecodeRuneInString(msg); n > 0 {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	l := widget.NewLabel(msg)
	l.Wrapping = fyne.TextWrapWord
	d := newCloseDialog("Error", "OK", l, parent)
	d.SetIcon(theme.ErrorIcon())
	return d
}

// showError shows err in a dialog over the window (dialog.ShowError with our buttons).
func (m *MainWindow) showError(err error) {
	m.showModal(newErrorDialog(err, m.win))
}

// confirmDialog is dialog.ConfirmDialog with our buttons: the callback hears true from the
// confirm button (or Confirm) and false from the dismiss button, Hide, Dismiss or Escape,
// once per showing, before the functions given to SetOnClosed run, as in Fyne.
type confirmDialog struct {
	*dialog.CustomDialog
	confirm, dismiss *button.Button
	callback         func(bool)
	closed           []func()
	answered         bool
}

// newConfirm is dialog.NewConfirm: a question with No and Yes.
func newConfirm(title, message string, callback func(bool), parent fyne.Window) *confirmDialog {
	l := widget.NewLabel(message)
	l.Wrapping = fyne.TextWrapWord
	d := newCustomConfirm(title, "Yes", "No", l, callback, parent)
	d.SetIcon(theme.QuestionIcon())
	return d
}

// newCustomConfirm is dialog.NewCustomConfirm: content with a dismiss and a confirm button.
func newCustomConfirm(title, confirm, dismiss string, content fyne.CanvasObject, callback func(bool), parent fyne.Window) *confirmDialog {
	d := &confirmDialog{CustomDialog: dialog.NewCustomWithoutButtons(title, content, parent), callback: callback}
	d.dismiss = button.NewWithIcon(dismiss, theme.CancelIcon(), d.Hide)
	d.confirm = button.NewWithIcon(confirm, theme.ConfirmIcon(), d.Confirm)
	d.confirm.Importance = widget.HighImportance
	d.SetButtons([]fyne.CanvasObject{d.dismiss, d.confirm})
	return d
}

func (d *confirmDialog) answer(ok bool) {
	if d.answered {
		return
	}
	d.answered = true
	d.CustomDialog.Hide()
	if d.callback != nil {
		d.callback(ok)
	}
	for _, f := range d.closed {
		f()
	}
}

// Show shows the dialog, ready for a new answer.
func (d *confirmDialog) Show() {
	d.answered = false
	d.CustomDialog.Show()
}

// Confirm closes the dialog as its confirm button does.
func (d *confirmDialog) Confirm() { d.answer(true) }

// Hide closes the dialog as its dismiss button does.
func (d *confirmDialog) Hide() { d.answer(false) }

// Dismiss is Hide.
func (d *confirmDialog) Dismiss() { d.answer(false) }

// SetOnClosed adds f to what runs after the dialog closed, after the callback.
func (d *confirmDialog) SetOnClosed(f func()) { d.closed = append(d.closed, f) }

// SetConfirmText sets the confirm button's words.
func (d *confirmDialog) SetConfirmText(label string) { d.confirm.SetText(label) }

// SetDismissText sets the dismiss button's words.
func (d *confirmDialog) SetDismissText(label string) { d.dismiss.SetText(label) }

// SetConfirmImportance sets how the confirm button is drawn (Danger for what cannot be undone).
func (d *confirmDialog) SetConfirmImportance(i widget.Importance) {
	d.confirm.Importance = i
	d.confirm.Refresh()
}
