package ui

import (
	"context"
	"fmt"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

func (f *fakeBackend) LastWords(_ context.Context, ids []string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]string{}
	for _, id := range ids {
		fc := f.convs[id]
		if fc == nil {
			continue
		}
		for i := len(fc.msgs) - 1; i >= 0; i-- {
			if w := actors.WordsOf(fc.msgs[i]); w != "" {
				out[id] = w
				break
			}
		}
	}
	return out, nil
}

// TestSidebarTellsEqualTitlesApart (issue 41): 150 conversations titled exactly alike read
// as the first words of their last messages, every row different; a conversation whose title
// is its own keeps it, and one of the alike without words keeps the title.
func TestSidebarTellsEqualTitlesApart(t *testing.T) {
	const n = 150
	var own, silent string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range n {
			f.now = f.now.Add(1)
			f.add(domain.NewConversationParams{Title: "echo: conversation 1", Cwd: "/x", Model: "gpt-4o"},
				domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("task number %d:\nmake the parser faster", i)},
				domain.Message{Kind: domain.KindAssistant, Text: fmt.Sprintf("Done with task %d, the parser is faster now", i)},
				domain.Message{Kind: domain.KindSystem, Text: "Mode changed"})
		}
		f.now = f.now.Add(1)
		silent = f.add(domain.NewConversationParams{Title: "echo: conversation 1", Cwd: "/x", Model: "gpt-4o"}).ID
		f.now = f.now.Add(1)
		own = f.add(domain.NewConversationParams{Title: "Fix the lexer", Cwd: "/x", Model: "gpt-4o"}).ID
	})
	h.waitFor("the rows told apart", func() bool {
		for _, cs := range h.m.sidebar.convs {
			if cs.id != own && cs.id != silent && h.m.sidebar.titleOf(cs) == "echo: conversation 1" {
				return false
			}
		}
		return len(h.m.sidebar.convs) == n+2
	})
	seen := map[string]string{}
	for _, cs := range h.m.sidebar.convs {
		title := h.m.sidebar.titleOf(cs)
		switch cs.id {
		case own:
			if title != "Fix the lexer" {
				t.Errorf("a title of its own reads %q", title)
			}
			continue
		case silent:
			if title != "echo: conversation 1" {
				t.Errorf("a conversation without words reads %q", title)
			}
			continue
		}
		if other, dup := seen[title]; dup {
			t.Errorf("%s and %s both read %q", other, cs.id, title)
		}
		seen[title] = cs.id
	}
	if _, ok := seen["“Done with task 7, the parser is faster now”"]; !ok {
		t.Errorf("no row reads the last words of task 7: %q", keysOf(seen))
	}
	// The rows on screen show it.
	top := h.m.sidebar.convs[0]
	if r := sideRowOf(h, top.id); r == nil || r.title.Text != h.m.sidebar.titleOf(top) {
		t.Fatalf("the first row does not show its words: %v", r)
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
