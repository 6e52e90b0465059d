package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// notice is the line above the composer that tells of a problem (or of something that
// worked) until it is dismissed or replaced. It may offer one action (Undo after archiving).
type notice struct {
	box    *fyne.Container
	label  *widget.Label
	icon   *widget.Icon
	action *button.Button
	// do is what the action button does.
	do func()
}

// newNotice makes the notice; dismiss is its close button.
func newNotice(dismiss func()) *notice {
	n := &notice{label: widget.NewLabel(""), icon: widget.NewIcon(theme.WarningIcon())}
	n.label.Wrapping = fyne.TextWrapWord
	n.label.Importance = widget.DangerImportance
	n.action = button.New("", func() {
		if do := n.do; do != nil {
			dismiss()
			do()
		}
	})
	n.action.Hide()
	n.box = container.NewBorder(nil, nil, n.icon,
		container.NewHBox(n.action, button.NewWithIcon("", theme.CancelIcon(), dismiss)), n.label)
	n.box.Hide()
	return n
}

// set shows text with the importance and icon given; the window lays itself out again.
func (n *notice) set(text string, imp widget.Importance, icon fyne.Resource) {
	n.setAction("", nil)
	n.label.Importance = imp
	n.icon.SetResource(icon)
	n.label.SetText(text)
	n.box.Show()
}

// setAction offers label as a button that does do and dismisses the notice; an empty label
// offers nothing.
func (n *notice) setAction(label string, do func()) {
	n.do = do
	n.action.SetText(label)
	n.action.Hidden = label == "" || do == nil
}

// clear hides the notice and reports whether it was shown.
func (n *notice) clear() bool {
	if n.box.Hidden {
		return false
	}
	n.label.SetText("")
	n.setAction("", nil)
	n.box.Hide()
	return true
}

// showInline shows a problem above the composer until dismissed or replaced.
func (m *MainWindow) showInline(text string) {
	m.setInline(text, widget.DangerImportance, theme.WarningIcon())
}

// showDone shows news of something that worked (a restore) in the same place, without the
// warning's red and sign.
func (m *MainWindow) showDone(text string) {
	m.setInline(text, widget.SuccessImportance, theme.ConfirmIcon())
}

// showDoneWithAction is showDone with a button (Undo) that does do.
func (m *MainWindow) showDoneWithAction(text, label string, do func()) {
	m.notice.set(text, widget.SuccessImportance, theme.ConfirmIcon())
	m.notice.setAction(label, do)
	m.relayout()
}

func (m *MainWindow) setInline(text string, imp widget.Importance, icon fyne.Resource) {
	m.notice.set(text, imp, icon)
	m.relayout()
}

func (m *MainWindow) clearInline() {
	if m.notice.clear() {
		m.relayout()
	}
}
