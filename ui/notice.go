package ui

import (
	"strings"

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
	// whole is the button that shows the whole text while the notice is folded to one line
	// and the text does not fit in it; readAll shows it (a dialog).
	whole   *button.Button
	readAll func(text string)
	// text is the whole text; the label shows it on one line while folded.
	text string
	// folded is whether the notice keeps to one line (a short window, issue 36: a notice of
	// two lines or more, with Find open, left the chat less than half the window at 800×600).
	folded bool
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
	n.whole = button.NewWithIcon("", theme.MoreHorizontalIcon(), func() {
		if n.readAll != nil {
			n.readAll(n.text)
		}
	})
	n.whole.Importance = widget.LowImportance
	n.whole.Hide()
	n.box = container.NewBorder(nil, nil, n.icon,
		container.NewHBox(n.action, button.NewWithIcon("", theme.CancelIcon(), dismiss)),
		container.New(&noticeLine{n: n}, n.label, n.whole))
	n.box.Hide()
	return n
}

// set shows text with the importance and icon given; the window lays itself out again.
func (n *notice) set(text string, imp widget.Importance, icon fyne.Resource) {
	n.setAction("", nil)
	n.label.Importance = imp
	n.icon.SetResource(icon)
	n.text = text
	n.label.SetText(n.shown())
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
	n.text = ""
	n.label.SetText("")
	n.setAction("", nil)
	n.box.Hide()
	return true
}

// fold keeps the notice to one line (true) or lets it wrap; it reports whether that changed.
func (n *notice) fold(on bool) bool {
	if n.folded == on {
		return false
	}
	n.folded = on
	if on {
		n.label.Wrapping, n.label.Truncation = fyne.TextWrapOff, fyne.TextTruncateEllipsis
	} else {
		n.label.Wrapping, n.label.Truncation = fyne.TextWrapWord, fyne.TextTruncateOff
	}
	n.label.SetText(n.shown())
	return true
}

// shown is what the label shows: the text, on one line while folded.
func (n *notice) shown() string {
	if n.folded {
		return strings.Join(strings.Fields(n.text), " ")
	}
	return n.text
}

// noticeLine lays out the notice's text and, while the notice is folded and the text does not
// fit on its line, the button that shows it whole at the line's end.
type noticeLine struct{ n *notice }

func (l *noticeLine) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	n := l.n
	textW := fyne.MeasureText(n.label.Text, theme.TextSize(), n.label.TextStyle).Width + 2*theme.InnerPadding()
	cut := n.folded && n.text != "" && (textW > size.Width || n.label.Text != n.text)
	n.whole.Hidden = !cut
	w := size.Width
	if cut {
		bw := n.whole.MinSize().Width
		w -= bw
		n.whole.Resize(fyne.NewSize(bw, size.Height))
		n.whole.Move(fyne.NewPos(w, 0))
	}
	n.label.Resize(fyne.NewSize(w, size.Height))
	n.label.Move(fyne.NewPos(0, 0))
}

func (l *noticeLine) MinSize(objs []fyne.CanvasObject) fyne.Size {
	s := l.n.label.MinSize()
	if l.n.folded {
		s = s.Max(fyne.NewSize(0, l.n.whole.MinSize().Height))
	}
	return s
}

// showNoticeWhole shows the whole text of a folded notice in a dialog.
func (m *MainWindow) showNoticeWhole(text string) {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	d := newCloseDialog("Notice", "Close", l, m.win)
	d.Resize(m.fitDialog(fyne.NewSize(560, 220)))
	m.showModal(d)
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
