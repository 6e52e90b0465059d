package ui

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

func TestSidebarListsUserConversationsAndArchives(t *testing.T) {
	var a, b string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		a = f.add(domain.NewConversationParams{Title: "Alpha", Cwd: "/a", Model: "gpt-4o"}).ID
		f.now = f.now.Add(1)
		b = f.add(domain.NewConversationParams{Title: "Beta", Cwd: "/b", Model: "gpt-4o"}).ID
		f.add(domain.NewConversationParams{Title: "sub", Cwd: "/b", Model: "gpt-4o", ParentID: "x", Task: "t"})
	})
	h.waitFor("two rows", func() bool { return len(h.m.sidebar.convs) == 2 })
	if h.m.sidebar.convs[0].id != b || h.m.sidebar.convs[1].id != a {
		t.Fatalf("order %s %s, want newest first", h.m.sidebar.convs[0].id, h.m.sidebar.convs[1].id)
	}
	h.m.setArchived(h.m.sidebar.convs[1], true)
	h.waitFor("Alpha archived", func() bool { return len(h.m.sidebar.convs) == 1 })
	if !h.f.archived[a] {
		t.Error("the backend did not archive")
	}
	h.m.sidebar.showArchived = true
	h.m.sidebar.refresh()
	if len(h.m.sidebar.convs) != 2 {
		t.Error("Show archived does not show it")
	}
}

func TestLastConversationReopens(t *testing.T) {
	var a, b string
	setup := func(f *fakeBackend, _ *Deps) {
		a = f.add(domain.NewConversationParams{Title: "Alpha", Cwd: "/a", Model: "gpt-4o"}).ID
		b = f.add(domain.NewConversationParams{Title: "Beta", Cwd: "/b", Model: "gpt-4o"}).ID
	}
	h := newHarness(t, setup)
	h.open(a)
	if got := h.app.Preferences().String(prefLastConv); got != a {
		t.Fatalf("remembered %q", got)
	}
	// A second window on the same preferences opens it again.
	m2 := NewMainWindow(h.app, h.f, &fakeSub{ch: make(chan actors.Event)}, h.deps)
	defer m2.win.Close()
	h.waitFor("the last conversation", func() bool { return m2.current != nil && m2.current.id == a })
	_ = b
}
