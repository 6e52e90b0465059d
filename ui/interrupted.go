package ui

import (
	"context"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// interruptedPart: the notice under a turn the app stopped in (a crash, a full disk, a power
// cut; issue 25), in the core's words (domain.InterruptedTurnText), with Retry, which sends
// the person's message again. Retry is offered only while nothing has followed the notice.
type interruptedPart struct {
	cv *chatView
	*actionNotice
}

func newInterruptedPart(cv *chatView) *interruptedPart {
	p := &interruptedPart{cv: cv}
	p.actionNotice = newActionNotice("Retry", theme.ViewRefreshIcon(), func() {
		if p.cv.cs != nil {
			p.cv.m.retryTurn(p.cv.cs)
		}
	})
	return p
}

func (p *interruptedPart) bind(r *row) {
	p.show(r.msg.Text, !p.cv.readOnly && !r.superseded)
}

// retryTurn sends again the message of the turn the app stopped in, without touching the
// person's draft.
func (m *MainWindow) retryTurn(cs *convState) {
	m.sendForPerson(cs, func(ctx context.Context) error { return m.b.Retry(ctx, cs.id) })
}

// actionNotice is a warning row of the chat with one button: a reply cut off (Continue), a
// turn the app stopped in (Retry).
type actionNotice struct {
	bg     *canvas.Rectangle
	stripe *canvas.Rectangle
	text   *widget.RichText
	button *button.Button
	obj    fyne.CanvasObject
}

func newActionNotice(label string, icon fyne.Resource, tapped func()) *actionNotice {
	n := &actionNotice{text: newWrapText(), button: button.NewWithIcon(label, icon, tapped)}
	n.bg, n.stripe, n.obj = noticeFrame(widget.NewIcon(theme.WarningIcon()), n.text, n.button)
	return n
}

func (n *actionNotice) object() fyne.CanvasObject { return n.obj }

// show says text and offers the button when it can be used.
func (n *actionNotice) show(text string, offer bool) {
	tint(n.stripe, n.bg, theme.ColorNameWarning)
	setPlain(n.text, text, widget.RichTextStyleInline)
	n.button.Hidden = !offer
	n.button.Refresh()
}
