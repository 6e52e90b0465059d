package ui

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
)

// The fake backend's MCP resources: what Resources lists, and AttachResources adds a line
// naming each listed resource the message refers to (the real runtime adds its text).
var fakeResources = []actors.MCPResource{
	{Server: "docs", URI: "file:///guide.md", Name: "guide", Description: "The user guide"},
	{Server: "docs", URI: "file:///api.md", Name: "api"},
}

func (f *fakeBackend) Resources(context.Context, string) ([]actors.MCPResource, error) {
	return fakeResources, nil
}

func (f *fakeBackend) AttachResources(_ context.Context, _, text string) (string, []actors.Attachment, error) {
	for _, r := range fakeResources {
		if strings.Contains(text, r.Ref()) {
			text += "\n\nAttached " + r.Ref()
		}
	}
	return text, nil, nil
}

// Issue 26: "@" in the composer lists the conversation's MCP resources; typing narrows them,
// Tab writes the chosen reference in place of the "@" word (what came before stays), and the
// message is sent with the resource attached.
func TestAtMenuAttachesAnMCPResource(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "explain @")
	h.waitFor("the @ menu", func() bool { return h.m.slash.visible() && len(h.m.slash.shown) == 2 })
	first := h.m.slash.box.Objects[0].(*menuRow)
	if !strings.Contains(first.label(), "@docs:file:///guide.md — guide: The user guide  (MCP docs)") {
		t.Fatalf("first line %q", first.label())
	}
	test.Type(h.m.composer.entry, "AP")
	h.waitFor("the menu narrowed", func() bool { return len(h.m.slash.shown) == 1 })
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	if h.m.composer.entry.Text != "explain @docs:file:///api.md " || h.m.slash.box.Visible() {
		t.Fatalf("after Tab: %q, menu visible %v", h.m.composer.entry.Text, h.m.slash.box.Visible())
	}
	test.Type(h.m.composer.entry, "briefly")
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the message sent", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 1
	})
	h.f.mu.Lock()
	got := h.f.sent[0]
	h.f.mu.Unlock()
	if got.id != id || got.text != "explain @docs:file:///api.md briefly\n\nAttached @docs:file:///api.md" {
		t.Fatalf("sent %q to %s", got.text, got.id)
	}
	// An "@" inside a word (an address) opens nothing.
	test.Type(h.m.composer.entry, "mail me@example.org")
	h.q.drain()
	if h.m.slash.box.Visible() {
		t.Fatal("the @ menu opened inside a word")
	}
}
