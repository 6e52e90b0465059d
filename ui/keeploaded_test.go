package ui

import (
	"fmt"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestOpenedConversationsGiveBackTheirRows (issue 43): of the conversations opened one after
// the other, only the keepLoaded shown most recently keep their history, rows and view; an
// older one holds its record and its draft, and opening it again loads and shows its history.
func TestOpenedConversationsGiveBackTheirRows(t *testing.T) {
	ids := make([]string, keepLoaded+2)
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range ids {
			ids[i] = f.add(domain.NewConversationParams{Title: fmt.Sprintf("Conversation %d", i), Cwd: "/w", Model: "gpt-4o"},
				domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("question %d", i)},
				domain.Message{Kind: domain.KindAssistant, Text: fmt.Sprintf("answer %d", i)}).ID
		}
	})
	h.open(ids[0])
	h.m.composer.entry.SetText("a draft kept while unloaded")
	for _, id := range ids[1:] {
		h.open(id)
	}
	for i, id := range ids {
		cs := h.m.convs[id]
		kept := i >= len(ids)-keepLoaded
		if cs.loaded != kept || (cs.mainView != nil) != kept || (len(cs.msgs) > 0) != kept || (cs.model.len() > 0) != kept {
			t.Errorf("conversation %d of %d: loaded %v, view %v, %d messages, %d rows; want them kept: %v",
				i+1, len(ids), cs.loaded, cs.mainView != nil, len(cs.msgs), cs.model.len(), kept)
		}
		if !cs.listed || cs.conv.Title != fmt.Sprintf("Conversation %d", i) {
			t.Errorf("conversation %d lost its record: listed %v, title %q", i+1, cs.listed, cs.conv.Title)
		}
	}
	h.open(ids[0])
	if got := h.m.composer.entry.Text; got != "a draft kept while unloaded" {
		t.Errorf("the draft after reopening: %q", got)
	}
	if n := h.m.current.model.len(); n != 2 || len(h.m.current.msgs) != 2 {
		t.Fatalf("reopened with %d rows and %d messages, want 2 and 2", n, len(h.m.current.msgs))
	}
	if r := h.lastRow(); r == nil || r.msg.Text != "answer 0" {
		t.Errorf("the last row after reopening: %+v", r)
	}
	if h.m.convs[ids[2]].loaded {
		t.Error("reopening one did not unload the next oldest")
	}
}
