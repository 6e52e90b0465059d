package ui

import (
	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// The event stream reaches the window here: the pump (pump.go) hands over batches on the UI
// goroutine.

// applyBatch applies a batch of events from the pump, then re-draws what they changed once.
func (m *MainWindow) applyBatch(evs []actors.Event) {
	if m.closed {
		return
	}
	m.armSweep()
	// Whether each view follows new rows is decided before the rows arrive.
	touched := map[string]bool{}
	for _, ev := range evs {
		touched[ev.Conversation()] = true
	}
	for id := range touched {
		if cs := m.convs[id]; cs != nil {
			for _, v := range cs.views {
				v.noteFollow()
			}
		}
	}

	rows := map[*convState]bool{}
	states := map[*convState]bool{}
	deltas := map[*convState]bool{}
	sidebar := false
	for _, ev := range evs {
		if id, ok := isDeleted(ev); ok {
			m.forgetConv(id)
			continue
		}
		if m.mcpCards.onEvent(ev) {
			continue
		}
		cs := m.conv(ev.Conversation())
		m.rv.noteEvent(ev)
		switch e := ev.(type) {
		case actors.ConversationCreated:
			if !cs.hasState {
				cs.setConv(e.Conv, e.Conv.CreatedAt)
			}
			if e.Conv.UserInitiated() {
				cs.listed, sidebar = true, true
			}
			continue
		case actors.StateChanged:
			if e.Conv.UserInitiated() {
				cs.listed, sidebar = true, true
			}
		case actors.ApprovalRequested:
			m.notify(cs.id, transcript.Title(cs.conv.Title, cs.conv.Cwd), "The agent asks for write access: "+transcript.OneLine(e.Reason, 160))
		case actors.ToolProgress:
			states[cs] = true
		case actors.HostApprovalRequested, actors.HostApprovalAnswered:
			m.hosts.onEvent(ev)
			continue
		}
		if e, ok := ev.(actors.CustomChanged); ok {
			m.slash.onCustomChanged(e)
			states[cs] = true
			continue
		}
		switch ev.(type) {
		case actors.QueueChanged, actors.InstructionsChanged, actors.CheckpointSaved:
			if m.proj.onEvent(ev) {
				m.gen++ // rows gain Undo and Rewind buttons
			}
			states[cs] = true
			continue
		}
		wasBusy := cs.busy()
		if cs.applyEvent(ev) {
			rows[cs] = true
		}
		if _, ok := ev.(actors.TextDelta); ok {
			// The status counts the reasoning while the model thinks (cs.status).
			deltas[cs] = true
		}
		if _, ok := ev.(actors.StateChanged); ok {
			states[cs] = true
			if wasBusy && !cs.busy() && cs.conv.UserInitiated() {
				m.turnEnded(cs)
			}
		}
	}
	for cs := range rows {
		for _, v := range cs.views {
			v.changed()
		}
	}
	m.rv.reloadChanged()
	if sidebar {
		m.sidebar.refresh()
	}
	for cs := range states {
		m.refreshConv(cs)
	}
	for cs := range deltas {
		if states[cs] {
			continue // refreshed above
		}
		if cs == m.current {
			m.status.refresh()
		}
		if w := m.subWins[cs.id]; w != nil {
			w.refresh()
		}
	}
}

// refreshConv re-draws the parts of the window that show cs.
func (m *MainWindow) refreshConv(cs *convState) {
	if cs == m.current {
		m.refreshAll()
	}
	if w := m.subWins[cs.id]; w != nil {
		w.refresh()
	}
}
