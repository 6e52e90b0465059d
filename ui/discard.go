package ui

import (
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
)

// Dialogs with edits ask before discarding them (issue 41): Escape, and a dialog's Close, hide
// a dialog that holds edits not yet saved only once the person says so. A dialog says what
// counts as an edit with guardModal; an explicit Cancel discards without asking.

// guardModal makes dismiss ask before hiding d while edited reports edits; what names them
// in the question ("your settings").
func (m *MainWindow) guardModal(d dialog.Dialog, what string, edited func() bool) {
	if m.guards == nil {
		m.guards = map[dialog.Dialog]modalGuard{}
	}
	m.guards[d] = modalGuard{what: what, edited: edited}
}

type modalGuard struct {
	what   string
	edited func() bool
}

// dismiss hides d, first asking whether to discard its edits when it has some.
func (m *MainWindow) dismiss(d dialog.Dialog) {
	g, ok := m.guards[d]
	if !ok || !g.edited() {
		d.Hide()
		return
	}
	q := newConfirm("Discard your changes?", "Your changes to "+g.what+" are not saved. Discard them, or keep editing and save them.", func(discard bool) {
		if discard {
			d.Hide()
		}
	}, m.win)
	q.SetConfirmText("Discard")
	q.SetConfirmImportance(widget.DangerImportance)
	q.SetDismissText("Keep editing")
	m.showModal(q)
}
