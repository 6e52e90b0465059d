package ui

import (
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// fakeDesktop records the desktop notifications and their clicks.
type fakeDesktop struct {
	mu    sync.Mutex
	sent  []string // "title: body"
	click []func()
}

func (d *fakeDesktop) Send(title, body string, onClick func()) (uint32, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sent = append(d.sent, title+": "+body)
	d.click = append(d.click, onClick)
	return uint32(len(d.sent)), nil
}

func (d *fakeDesktop) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.sent)
}

// Issue 34: the sidebar says which conversation works, waits for the person, finished
// unseen, or failed; while the window is not focused a desktop notification says so, and its
// click opens the conversation; the Settings switch turns them off.
func TestSidebarStatesAndNotifications_Issue34(t *testing.T) {
	desk := &fakeDesktop{}
	var fyneNotes []*fyne.Notification
	var other string
	h, id := newOpenConversation(t, func(f *fakeBackend, d *Deps) {
		other = f.add(domain.NewConversationParams{Title: "Other", Cwd: "/home/ada/src/other", Model: "gpt-4o"}).ID
		d.Desktop = desk
		d.Notify = func(n *fyne.Notification) { fyneNotes = append(fyneNotes, n) }
	})
	a := h.m.convs[id]
	h.typeAndSend("go")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	if got := h.m.attentionOf(a); got != attWorking {
		t.Errorf("a thinking conversation shows %v", got)
	}
	h.open(other)
	h.m.focused = false
	h.f.respond(t, id, "done", nil, domain.Usage{InputTokens: 10})
	h.waitFor("the turn's end", func() bool { return !a.busy() })
	h.settle()
	if h.m.attentionOf(a) != attUnread || h.m.sideWord(a) != unreadWord {
		t.Errorf("a finished turn not seen yet shows %v, %q", h.m.attentionOf(a), h.m.sideWord(a))
	}
	if desk.count() != 1 || !strings.Contains(desk.sent[0], "The agent has finished.") || len(fyneNotes) != 0 {
		t.Fatalf("desktop notifications %q, window ones %d", desk.sent, len(fyneNotes))
	}

	// A host card of the other conversation: waiting for the person, and said.
	b := h.m.convs[other]
	h.f.publish(actors.HostApprovalRequested{ConvID: other, RequestID: "r1", Host: "example.org", Port: 443, Project: "/home/ada/src/other"})
	h.waitFor("the host card", func() bool { return h.m.attentionOf(b) == attWaiting })
	if h.m.sideWord(b) != waitingWord || desk.count() != 2 {
		t.Errorf("waiting shows %q; notifications %q", h.m.sideWord(b), desk.sent)
	}

	// The first notification's click opens its conversation, which is then seen.
	desk.mu.Lock()
	click := desk.click[0]
	desk.mu.Unlock()
	click()
	h.waitFor("the notified conversation to open", func() bool { return h.m.current == a })
	if a.unread || h.m.attentionOf(a) != attIdle {
		t.Errorf("an opened conversation is still unseen: %v", h.m.attentionOf(a))
	}

	// Failed.
	failed := &convState{listKind: domain.StateError}
	if h.m.attentionOf(failed) != attFailed {
		t.Error("an error does not show as failed")
	}

	// Off in Settings: nothing is sent.
	item := h.m.notificationsSettingsItem()
	item.Widget.(interface{ SetChecked(bool) }).SetChecked(false)
	h.m.notify(id, "Work", "The agent has finished.")
	if desk.count() != 2 || len(fyneNotes) != 0 {
		t.Errorf("notified with notifications off: %q", desk.sent)
	}
}
