package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// ForkBackend is the part of the command API that forks a conversation (issue 27).
// *actors.Runtime satisfies it; a Backend without it (a test fake) offers no fork.
type ForkBackend interface {
	Fork(ctx context.Context, id string, seq uint64) (domain.Conversation, error)
}

var _ ForkBackend = (*actors.Runtime)(nil)

// forkMenuLabel is the message menu's item.
const forkMenuLabel = "Fork from here"

// messageMenuButton is the "⋮" of a message: a menu of what can be done from it, for now
// "Fork from here" (continue from this message in a new conversation, keeping this one).
// It is hidden where the backend cannot fork.
func messageMenuButton(cv *chatView, seq func() uint64) *button.Button {
	var b *button.Button
	b = button.NewWithIcon("", theme.MoreVerticalIcon(), func() {
		menu := fyne.NewMenu("", fyne.NewMenuItem(forkMenuLabel, func() { cv.m.fork(cv.cs, seq()) }))
		c := fyne.CurrentApp().Driver().CanvasForObject(b)
		if c == nil {
			return
		}
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b).Add(fyne.NewPos(0, b.Size().Height))
		widget.ShowPopUpMenuAtPosition(menu, c, pos)
	})
	b.Importance = widget.LowImportance
	if _, ok := cv.m.b.(ForkBackend); !ok {
		b.Hide()
	}
	return b
}

// fork makes the new conversation and opens it; the one forked from stays as it was.
func (m *MainWindow) fork(cs *convState, seq uint64) {
	fb, ok := m.b.(ForkBackend)
	if !ok || cs == nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		conv, err := fb.Fork(ctx, cs.id, seq)
		m.do(func() {
			if err != nil {
				m.showInline(fmt.Sprintf("Could not fork the conversation: %v.", err))
				return
			}
			m.openCreated(conv, "")
		})
	}()
}
