package ui

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

func TestDistinctTitles(t *testing.T) {
	got := distinctTitles([]string{
		"echo: conversation 1 number 17",
		"Fix the parser",
		"echo: conversation 1 number 18",
		"echo: conversation 1 number 18",
		"Fix the lexer",
		"echo: conversation 1 number 2 with more",
	})
	want := []string{
		"…number 17",
		"Fix the parser",
		"echo: conversation 1 number 18",
		"echo: conversation 1 number 18",
		"Fix the lexer",
		"…number 2 with more",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestSidebarTitlesTellRepeatsApart (issue 41): rows whose titles start the same show the
// words that differ.
func TestSidebarTitlesTellRepeatsApart(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		for i := range 3 {
			f.now = f.now.Add(1)
			f.add(domain.NewConversationParams{Title: fmt.Sprintf("echo: conversation 1 of many, number %d", i), Cwd: "/x", Model: "gpt-4o"})
		}
	})
	h.waitFor("three rows", func() bool { return len(h.m.sidebar.convs) == 3 })
	h.settle()
	seen := map[string]bool{}
	for _, cs := range h.m.sidebar.convs {
		r := sideRowOf(h, cs.id)
		if r == nil {
			t.Fatalf("no row for %s", cs.id)
		}
		seen[r.title.Text] = true
	}
	for i := range 3 {
		if !seen[fmt.Sprintf("…number %d", i)] {
			t.Errorf("no row reads …number %d: %v", i, seen)
		}
	}
}
