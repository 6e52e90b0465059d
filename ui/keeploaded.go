package ui

import "slices"

// What the main window holds for the conversations it does not show (issue 43: a window left
// open for weeks). A conversation that was never opened holds its record (the sidebar's
// row), its draft and its unread mark, and nothing grows with its history. One that was
// opened holds its history, its chat rows and their view (heights, measured rows, the
// list's widgets) only while it is among the keepLoaded shown most recently, so that
// switching back and forth between a few is instant; the others give them back, and load
// again when opened (a snapshot, as on first opening). A sub-agent's window keeps what it
// shows.

// keepLoaded is how many conversations, the open one included, keep their rows loaded.
const keepLoaded = 4

// noteShown records that cs is shown in the main window and unloads the conversation that
// thereby falls out of the keepLoaded most recent.
func (m *MainWindow) noteShown(cs *convState) {
	m.armSweep()
	m.recent = append(slices.DeleteFunc(m.recent, func(id string) bool { return id == cs.id }), cs.id)
	for len(m.recent) > keepLoaded {
		if old := m.convs[m.recent[0]]; old != nil {
			m.unload(old)
		}
		m.recent = slices.Delete(m.recent, 0, 1)
	}
}

// unload gives back what an opened conversation holds beyond its record and draft.
func (m *MainWindow) unload(cs *convState) {
	if cs == m.current || cs.loading {
		return
	}
	if cs.mainView != nil {
		cs.views = slices.DeleteFunc(cs.views, func(v *chatView) bool { return v == cs.mainView })
		cs.mainView = nil
	}
	if len(cs.views) > 0 || !cs.loaded {
		return
	}
	cs.loaded = false
	cs.model, cs.msgs, cs.early = newChatModel(), nil, nil
}
