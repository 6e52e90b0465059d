package ui

import (
	"context"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// askDelete asks before deleting a conversation: it names it and says that it cannot be
// undone.
func (m *MainWindow) askDelete(cs *convState) {
	if cs == nil {
		return
	}
	title := transcript.Title(cs.conv.Title, cs.conv.Cwd)
	msg := fmt.Sprintf("“%s” will be deleted with all its messages, its sub-agents and the images no other conversation uses. This cannot be undone.", title)
	if cs.busy() {
		msg += "\n\nThe agent is working in it: it will be stopped first."
	}
	d := newConfirm("Delete conversation?", msg, func(ok bool) {
		m.deleteDlg = nil
		if ok {
			m.deleteConv(cs)
		}
	}, m.win)
	d.SetConfirmText("Delete")
	d.SetConfirmImportance(widget.DangerImportance)
	d.SetDismissText("Keep it")
	m.deleteDlg = d
	m.showModal(d)
}

// deleteConv deletes a conversation; the window forgets it when ConversationDeleted arrives.
func (m *MainWindow) deleteConv(cs *convState) {
	m.call("delete the conversation", func(ctx context.Context) error { return m.b.Delete(ctx, cs.id) }, nil)
}

// forgetConv drops a deleted conversation from the window: the sidebar, the search hits,
// the open view and any sub-agent window of it.
func (m *MainWindow) forgetConv(id string) {
	cs := m.convs[id]
	if cs == nil {
		return
	}
	delete(m.convs, id)
	for subID, sc := range m.convs {
		if sc.conv.ParentID == id {
			delete(m.convs, subID)
			if w := m.subWins[subID]; w != nil {
				w.win.Close()
			}
		}
	}
	if m.current == cs {
		m.current, m.cv = nil, nil
		m.chatHolder.Objects = []fyne.CanvasObject{m.empty}
		m.chatHolder.Refresh()
		m.find.hide()
		m.clearInline()
		m.app.Preferences().SetString(prefLastConv, "")
	}
	g := m.sidebar.search
	kept := g.hits[:0]
	for _, h := range g.hits {
		if h.ConvID != id {
			kept = append(kept, h)
		}
	}
	g.hits = kept
	g.list.Refresh()
	m.sidebar.refresh()
	m.refreshAll()
}

// isDeleted reports a ConversationDeleted event.
func isDeleted(ev actors.Event) (string, bool) {
	d, ok := ev.(actors.ConversationDeleted)
	return d.ConvID, ok
}
