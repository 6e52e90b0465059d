package ui

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// remoteHostsFake is the fake backend with two hosts used.
type remoteHostsFake struct {
	*fakeBackend
	rmu    sync.Mutex
	forgot []string
}

func (f *remoteHostsFake) RemoteHosts(context.Context) ([]string, error) {
	return []string{"devbox", "me@box"}, nil
}

func (f *remoteHostsFake) ForgetHost(_ context.Context, host string) error {
	f.rmu.Lock()
	defer f.rmu.Unlock()
	f.forgot = append(f.forgot, host)
	return nil
}

// Issue 37: Settings → Remote hosts lists the hosts of the person's remote conversations,
// and Forget asks the runtime to remove Phoenix from that one.
func TestSettingsRemoteHostsListsAndForgets(t *testing.T) {
	f := newFakeBackend()
	rb := &remoteHostsFake{fakeBackend: f}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(rb, f.sub)
	p := h.m.showRemoteHosts()
	h.waitFor("the hosts", func() bool { return len(p.body.Objects) == 2 })
	var forget *button.Button
	for _, o := range p.body.Objects[1].(*fyne.Container).Objects {
		if b, ok := o.(*button.Button); ok {
			forget = b
		}
	}
	if forget == nil {
		t.Fatal("the second host has no Forget button")
	}
	test.Tap(forget)
	h.waitFor("Forget's answer", func() bool { return strings.Contains(p.message.Text, "Removed Phoenix from me@box") })
	rb.rmu.Lock()
	defer rb.rmu.Unlock()
	if !slices.Equal(rb.forgot, []string{"me@box"}) {
		t.Errorf("forgot %v", rb.forgot)
	}
}
