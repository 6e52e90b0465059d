package ui

import (
	"context"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// interruptedPart: the notice under a turn the app stopped in (a crash, a full disk, a power
// cut; issue 25), in the core's words (domain.InterruptedTurnText), with Retry, which sends
// the person's message again. Retry is offered only while nothing has followed the notice.
type interruptedPart struct {
	cv     *chatView
	bg     *canvas.Rectangle
	stripe *canvas.Rectangle
	text   *widget.RichText
	retry  *widget.Button
	obj    fyne.CanvasObject
}

func newInterruptedPart(cv *chatView) *interruptedPart {
	p := &interruptedPart{cv: cv, bg: canvas.NewRectangle(color.Transparent), stripe: canvas.NewRectangle(color.Transparent), text: newWrapText()}
	p.retry = widget.NewButtonWithIcon("Retry", theme.ViewRefreshIcon(), func() {
		if p.cv.cs != nil {
			p.cv.m.retryTurn(p.cv.cs)
		}
	})
	body := container.New(&hbar{gap: pad()}, widget.NewIcon(theme.WarningIcon()), p.text, p.retry)
	p.obj = container.New(insetBy(fyne.NewSize(pad(), pad()/2), 3), p.bg, p.stripe, body)
	return p
}

func (p *interruptedPart) object() fyne.CanvasObject { return p.obj }

func (p *interruptedPart) bind(r *row) {
	tint(p.stripe, p.bg, theme.ColorNameWarning)
	setPlain(p.text, r.msg.Text, widget.RichTextStyleInline)
	if !p.cv.readOnly && !r.superseded {
		p.retry.Show()
	} else {
		p.retry.Hide()
	}
}

// retryTurn sends again the message of the turn the app stopped in, without touching the
// person's draft. A rejection is shown like any other.
func (m *MainWindow) retryTurn(cs *convState) {
	if cs.busy() {
		m.showInline("The agent is busy: wait for it to finish, or press Stop (Esc).")
		return
	}
	if cs.mainView != nil {
		cs.mainView.pinned = true
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		if err := m.b.Retry(ctx, cs.id); err != nil {
			m.do(func() {
				if m.current == cs {
					m.showInline(sendErrorText(err))
				}
			})
		}
	}()
}
