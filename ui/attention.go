package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Several conversations at once, visible (issue 34): each sidebar row says whether its
// conversation is working, waiting for the person, finished and not yet seen, or failed; and
// while the window is not focused a desktop notification says when a turn ends or an
// approval waits, whose click opens the conversation.

// attention is what a conversation's row says about it.
type attention int

const (
	attIdle attention = iota
	attWorking
	attWaiting
	attUnread
	attFailed
)

// Words of the sidebar's states.
const (
	waitingWord = "waiting for you"
	unreadWord  = "finished, not seen yet"
)

// prefDesktopNotifications is the Settings switch of desktop notifications (on by default).
const prefDesktopNotifications = "notifications.desktop"

// The switch's words: short, as a check's label does not wrap; the hint says when.
const (
	notificationsLabel = "Desktop notifications"
	notificationsHint  = "When a turn ends or the agent waits for you while the window is not focused; a click opens the conversation."
)

// DesktopNotifier sends a desktop notification whose click runs onClick
// (desktopnotify.Client).
type DesktopNotifier interface {
	Send(title, body string, onClick func()) (uint32, error)
}

// attentionOf is conv cs's state as its sidebar row shows it.
func (m *MainWindow) attentionOf(cs *convState) attention {
	switch kind := cs.stateKind(cs.listKind); {
	case kind == domain.StateError || kind == domain.StateFailed:
		return attFailed
	case kind == domain.StateAwaitingModeApproval || m.asksPerson(cs.id):
		return attWaiting
	case kind == domain.StateLLMRequesting || kind == domain.StateToolExecuting ||
		kind == domain.StateAwaitingSubAgents || kind == domain.StateAwaitingContinuation:
		return attWorking
	case cs.unread:
		return attUnread
	}
	return attIdle
}

// asksPerson says whether a card of the conversation waits for an answer: a host the
// command wants to reach, an MCP server's question or tool confirmation.
func (m *MainWindow) asksPerson(id string) bool {
	if m.mcpCards != nil && len(m.mcpCards.pending[id]) > 0 {
		return true
	}
	if m.hosts != nil {
		for _, r := range m.hosts.open {
			if r.ConvID == id {
				return true
			}
		}
	}
	return false
}

// sideWord and sideColor are the row's state word and dot.
func (m *MainWindow) sideWord(cs *convState) string {
	kind := cs.stateKind(cs.listKind)
	switch m.attentionOf(cs) {
	case attWaiting:
		if kind == domain.StateAwaitingModeApproval {
			return transcript.StateWord(kind) // "waiting for approval", which says what for
		}
		return waitingWord
	case attUnread:
		return unreadWord
	}
	return transcript.StateWord(kind)
}

func (m *MainWindow) sideColor(cs *convState) fyne.ThemeColorName {
	switch m.attentionOf(cs) {
	case attWaiting:
		return theme.ColorNameWarning
	case attUnread:
		return theme.ColorNameHyperlink
	}
	return stateColor(cs.stateKind(cs.listKind))
}

// turnEnded marks a turn's end: not seen yet unless it is on screen in a focused window,
// and a notification.
func (m *MainWindow) turnEnded(cs *convState) {
	if cs != m.current || !m.focused {
		cs.unread = true
		m.sidebar.refresh()
	}
	m.notifyFinished(cs)
}

// seen clears the conversation's "not seen yet".
func (m *MainWindow) seen(cs *convState) {
	if cs != nil && cs.unread {
		cs.unread = false
		m.sidebar.refresh()
	}
}

// notificationsOn says whether the person wants desktop notifications.
func (m *MainWindow) notificationsOn() bool {
	return m.app.Preferences().BoolWithFallback(prefDesktopNotifications, true)
}

// sendDesktop sends the notification through Deps.Desktop, whose click opens the
// conversation; false when there is none or it failed (no notification service), and the
// window's own notification is sent instead.
func (m *MainWindow) sendDesktop(convID, title, content string) bool {
	if m.deps.Desktop == nil {
		return false
	}
	_, err := m.deps.Desktop.Send(title, content, func() { m.do(func() { m.openFromNotification(convID) }) })
	return err == nil
}

// openFromNotification opens the conversation a notification was about and brings the
// window forward.
func (m *MainWindow) openFromNotification(convID string) {
	if m.convs[convID] != nil {
		m.open(convID)
	}
	m.win.Show()
	m.win.RequestFocus()
}

// notificationsSettingsItem is Settings' switch of desktop notifications; it takes effect at
// once.
func (m *MainWindow) notificationsSettingsItem() *widget.FormItem {
	check := widget.NewCheck(notificationsLabel, func(on bool) {
		m.app.Preferences().SetBool(prefDesktopNotifications, on)
	})
	check.SetChecked(m.notificationsOn())
	return &widget.FormItem{Text: "Notifications", Widget: check, HintText: notificationsHint}
}
