package ui

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
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
	forget := findButton(p.body.Objects[1], "Forget")
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

// allowedHostsFake keeps, per remote host, the allowed hosts of its projects, as the agent
// there would (the real reading and removal run against a real sshd in remote's tests).
type allowedHostsFake struct {
	*remoteHostsFake
	amu     sync.Mutex
	rules   map[string][]actors.RemoteProjectHosts
	removed []string
}

func (f *allowedHostsFake) RemoteAllowedHosts(_ context.Context, host string) ([]actors.RemoteProjectHosts, error) {
	f.amu.Lock()
	defer f.amu.Unlock()
	if host == "devbox" {
		return nil, errors.New("could not reach devbox")
	}
	return slices.Clone(f.rules[host]), nil
}

func (f *allowedHostsFake) RemoveRemoteAllowedHost(_ context.Context, host, project, pattern string) error {
	f.amu.Lock()
	defer f.amu.Unlock()
	f.removed = append(f.removed, host+" "+project+" "+pattern)
	for i, pr := range f.rules[host] {
		if pr.Project == project {
			f.rules[host][i].Hosts = slices.DeleteFunc(slices.Clone(pr.Hosts), func(h string) bool { return h == pattern })
		}
	}
	return nil
}

// Settings → Remote hosts shows, per host and on demand, the allowed hosts kept there for its
// projects (Project mode's "always" answers), each with Forget, which removes it there; a host
// that cannot be reached says so in its own place.
func TestSettingsRemoteHostsShowAndForgetTheirAllowedHosts(t *testing.T) {
	f := newFakeBackend()
	rb := &allowedHostsFake{remoteHostsFake: &remoteHostsFake{fakeBackend: f}, rules: map[string][]actors.RemoteProjectHosts{
		"me@box": {{Project: "/srv/app", Hosts: []string{"example.org", "*.golang.org"}}, {Project: "/srv/lib", Registries: true}},
	}}
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(rb, f.sub)
	p := h.m.showRemoteHosts()
	h.waitFor("the hosts", func() bool { return len(p.body.Objects) == 2 })
	devbox, box := p.body.Objects[0], p.body.Objects[1]
	if hasLabel(box, "example.org") {
		t.Fatal("the allowed hosts were read before the person asked")
	}
	test.Tap(findButton(devbox, "Allowed hosts"))
	h.waitFor("devbox's error", func() bool { return hasLabel(devbox, "could not be read: could not reach devbox") })
	test.Tap(findButton(box, "Allowed hosts"))
	h.waitFor("me@box's allowed hosts", func() bool { return hasLabel(box, "*.golang.org") })
	for _, want := range []string{"/srv/app", "example.org", "/srv/lib", "Package registries allowed"} {
		if !hasLabel(box, want) {
			t.Errorf("me@box's list lacks %q", want)
		}
	}
	// The first Forget below me@box's own is example.org's.
	var forgets []*button.Button
	walk(box, func(o fyne.CanvasObject) {
		if b, ok := o.(*button.Button); ok && b.Text == "Forget" {
			forgets = append(forgets, b)
		}
	})
	if len(forgets) != 3 {
		t.Fatalf("%d Forget buttons under me@box, want the host's and one per allowed host", len(forgets))
	}
	test.Tap(forgets[1])
	h.waitFor("the list read again", func() bool { return !hasLabel(box, "example.org") && hasLabel(box, "*.golang.org") })
	if !strings.Contains(p.message.Text, "example.org is no longer allowed for /srv/app on me@box") {
		t.Errorf("message %q", p.message.Text)
	}
	rb.amu.Lock()
	defer rb.amu.Unlock()
	if !slices.Equal(rb.removed, []string{"me@box /srv/app example.org"}) {
		t.Errorf("removed %q", rb.removed)
	}
	rb.rmu.Lock()
	defer rb.rmu.Unlock()
	if len(rb.forgot) != 0 {
		t.Errorf("forgetting an allowed host forgot the machine: %q", rb.forgot)
	}
}
