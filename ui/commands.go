package ui

import (
	"context"
	"errors"
	"fmt"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// The commands the window sends to the runtime for the open conversation; each runs off the UI
// goroutine and reports a failure above the composer.

// call runs a runtime command off the UI goroutine and reports its error there.
func (m *MainWindow) call(what string, f func(ctx context.Context) error, onErr func(error)) {
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		err := f(ctx)
		if err == nil {
			return
		}
		m.do(func() {
			if onErr != nil {
				onErr(err)
			}
			if !errors.Is(err, context.Canceled) {
				m.showInline(fmt.Sprintf("Could not %s: %v.", what, err))
			}
		})
	}()
}

// stopAgent is Stop and Esc (REQ-BED-005).
func (m *MainWindow) stopAgent() {
	cs := m.current
	if cs == nil || !cs.busy() {
		return
	}
	m.call("stop the agent", func(ctx context.Context) error {
		err := m.b.Cancel(ctx, cs.id)
		// The turn ended by itself just before the click, or an earlier click is being
		// handled: either way the agent stops, and nothing needs saying.
		if errors.Is(err, domain.ErrNothingToStop) || errors.Is(err, actors.ErrAlreadyStopping) {
			return nil
		}
		return err
	}, nil)
}

// decide answers a mode-upgrade request (REQ-BED-015) with the mode granted, or
// actors.DenyUpgrade.
func (m *MainWindow) decide(cs *convState, exec domain.ExecID, grant domain.Mode, onErr func()) {
	m.call("send your decision", func(ctx context.Context) error {
		return m.b.DecideUpgrade(ctx, cs.id, exec, grant)
	}, func(error) { onErr() })
}

// downgrade is "Switch to Restricted" and "Switch to Project" (REQ-BED-016): offered from
// any higher mode, and at once.
func (m *MainWindow) downgrade(to domain.Mode) {
	cs := m.current
	if cs == nil || cs.conv.Mode.Rank() <= to.Rank() {
		return
	}
	m.call("switch to "+to.Title()+" mode", func(ctx context.Context) error { return m.b.Downgrade(ctx, cs.id, to) }, nil)
}

// wrapUpQuestion is what the wrap-up asks before it ends a conversation for good.
const wrapUpQuestion = "The agent writes a continuation summary of this conversation. Then the conversation becomes read-only: " +
	"nothing more can be sent in it. “Continue in new conversation” opens a new one that starts from the summary."

// wrapUp triggers the continuation by hand (REQ-BED-023), once the person has said yes: it
// ends the conversation for good. It is offered only past the warning (wrapUpOffered).
func (m *MainWindow) wrapUp() {
	cs := m.current
	if !wrapUpOffered(cs) || cs.busy() {
		return
	}
	d := newConfirm("Wrap up this conversation?", wrapUpQuestion, func(ok bool) {
		m.wrapDlg = nil
		if ok {
			m.call("wrap up", func(ctx context.Context) error { return m.b.WrapUp(ctx, cs.id) }, nil)
		}
	}, m.win)
	d.SetConfirmText("Wrap up")
	d.SetDismissText("Keep working")
	m.wrapDlg = d
	m.showModal(d)
}
