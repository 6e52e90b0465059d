package ui

import (
	"fyne.io/fyne/v2/widget"
)

// close is the Hooks dialog's Close (and Esc): edits that were not saved are discarded only
// once the person says so (issue 41: Close dropped edited text silently).
func (p *hooksPanel) close() {
	if p.text.Text == p.saved {
		p.dlg.Hide()
		return
	}
	d := newConfirm("Discard your changes?", "Your edits to the hooks are not saved. Discard them, or keep editing and press “Save my hooks”.", func(discard bool) {
		p.discardDlg = nil
		if discard {
			p.dlg.Hide()
		}
	}, p.m.win)
	d.SetConfirmText("Discard")
	d.SetConfirmImportance(widget.DangerImportance)
	d.SetDismissText("Keep editing")
	p.discardDlg = d
	p.m.showModal(d)
}
