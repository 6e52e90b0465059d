package ui

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// remoteSandboxFake is the fake backend that also describes remote hosts' sandboxes, as
// *actors.Runtime does through its remote runner.
type remoteSandboxFake struct {
	*fakeBackend
	mu     sync.Mutex
	asked  []string
	answer actors.RemoteSandbox
	err    error
}

func (r *remoteSandboxFake) RemoteSandbox(_ context.Context, host string) (actors.RemoteSandbox, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	return r.answer, r.err
}

func (r *remoteSandboxFake) askedHosts() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

// newRemoteHarness opens the window on a backend with a local conversation ("here") and a
// remote one on dev@box ("there").
func newRemoteHarness(t *testing.T, answer actors.RemoteSandbox, err error) (*harness, *remoteSandboxFake) {
	t.Helper()
	f := newFakeBackend()
	f.add(domain.NewConversationParams{Title: "here", Cwd: "/x", Model: "gpt-4o"})
	f.add(domain.NewConversationParams{Title: "there", Cwd: "/srv/app", Host: "dev@box", Model: "gpt-4o"})
	rf := &remoteSandboxFake{fakeBackend: f, answer: answer, err: err}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(rf, f.sub)
	t.Cleanup(func() {
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	})
	return h, rf
}

func (h *harness) openTitled(title string) {
	h.t.Helper()
	for _, c := range h.m.sidebar.convs {
		if c.conv.Title == title {
			h.open(c.id)
			return
		}
	}
	h.t.Fatalf("no conversation %q in the sidebar", title)
}

// dialogHasLabel reports whether the topmost overlay shows a label with text.
func (h *harness) dialogHasLabel(text string) bool {
	top := h.m.win.Canvas().Overlays().Top()
	found := false
	if top != nil {
		walk(top, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok && l.Text == text {
				found = true
			}
		})
	}
	return found
}

// TestRemoteBadgeDetailsDescribeTheHostsSandbox_REQ_BED_014: the mode badge's details of a
// conversation on another machine describe that machine's sandbox, as its agent reported it
// (`doctor --remote`), not this machine's; a local conversation's describe this machine's and
// ask no host.
func TestRemoteBadgeDetailsDescribeTheHostsSandbox_REQ_BED_014(t *testing.T) {
	var there SandboxStatus
	there.Available, there.Reason = false, "kernel 5.4 has no Landlock"
	there.Layers = []actors.SandboxLayer{{Name: "Landlock", Active: false, Detail: "not in kernel 5.4 on the box"}}
	h, rf := newRemoteHarness(t, actors.RemoteSandbox{Host: "dev@box", OS: "Linux", Arch: "aarch64", Layers: there}, nil)

	h.openTitled("there")
	before := len(h.m.win.Canvas().Overlays().List())
	test.Tap(h.m.header.mode)
	if len(h.m.win.Canvas().Overlays().List()) != before+1 {
		t.Fatalf("tapping the badge opened no dialog")
	}
	if !h.dialogHasLabel("Sandbox on dev@box") {
		t.Errorf("the dialog is not titled for the host")
	}
	h.waitFor("the host's sandbox in the details", func() bool {
		return strings.Contains(h.m.header.detailsText.Text, "not in kernel 5.4 on the box")
	})
	details := h.m.header.detailsText.Text
	for _, want := range []string{"This conversation is Restricted", "Its commands run on dev@box (Linux aarch64)",
		"doctor --remote dev@box", "[off] Landlock: not in kernel 5.4 on the box"} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	if strings.Contains(details, "ABI 4") {
		t.Errorf("the details of a remote conversation describe this machine's sandbox:\n%s", details)
	}
	if got := rf.askedHosts(); len(got) != 1 || got[0] != "dev@box" {
		t.Errorf("hosts asked = %v, want [dev@box] once", got)
	}
	h.m.closeTopModal()

	// A local conversation: this machine's layers, no host asked.
	h.openTitled("here")
	test.Tap(h.m.header.mode)
	h.settle()
	if !h.dialogHasLabel("Sandbox on this machine") || !strings.Contains(h.m.header.detailsText.Text, "[on ] Landlock: ABI 4") {
		t.Errorf("a local conversation's details:\n%s", h.m.header.detailsText.Text)
	}
	if got := rf.askedHosts(); len(got) != 1 {
		t.Errorf("a local conversation's details asked a host: %v", got)
	}
}

// A host that cannot be reached is said to be so, with the command that lists its sandbox
// later; nothing of this machine's sandbox stands in for it.
func TestRemoteBadgeDetailsSayTheHostWasNotReached(t *testing.T) {
	h, _ := newRemoteHarness(t, actors.RemoteSandbox{}, errors.New("could not connect to dev@box over SSH: Connection refused"))
	h.openTitled("there")
	test.Tap(h.m.header.mode)
	h.waitFor("the error in the details", func() bool {
		return strings.Contains(h.m.header.detailsText.Text, "Connection refused")
	})
	details := h.m.header.detailsText.Text
	if !strings.Contains(details, "could not ask for") || !strings.Contains(details, "`phoenix-desktop doctor --remote dev@box`") || strings.Contains(details, "ABI 4") {
		t.Errorf("details:\n%s", details)
	}
}
