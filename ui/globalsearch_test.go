package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
)

// highlighted is the text of the segments drawn as a match.
func highlighted(segs []widget.RichTextSegment) []string {
	var out []string
	for _, s := range segs {
		if t, ok := s.(*widget.TextSegment); ok && t.Style.ColorName == theme.ColorNamePrimary && t.Style.TextStyle.Bold {
			out = append(out, t.Text)
		}
	}
	return out
}

// TestSearchHitsArePlainTextWithTheMatchHighlighted (issue 28): a hit's line shows the words
// without their Markdown, and every word of the query in it stands out, in any case.
func TestSearchHitsArePlainTextWithTheMatchHighlighted(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Parser", Cwd: "/p", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindAssistant, Text: "The **Parser** fails in `parse.go`; see [the log](https://ci.example/1)."}).ID
	})
	h.open(id)
	h.m.sidebar.search.entry.SetText("parser")
	h.waitFor("the hit", func() bool { return len(h.m.sidebar.search.hits) == 1 })
	h.settle()
	var line *widget.RichText
	walk(h.m.sidebar.search.list, func(o fyne.CanvasObject) {
		if r, ok := o.(*widget.RichText); ok && r.Visible() && strings.Contains(r.String(), "fails") {
			line = r
		}
	})
	if line == nil {
		t.Fatal("no hit line on screen")
	}
	if got, want := line.String(), "Agent: The Parser fails in parse.go; see the log."; got != want {
		t.Errorf("hit line %q, want %q (no Markdown)", got, want)
	}
	if got := highlighted(line.Segments); strings.Join(got, "|") != "Parser" {
		t.Errorf("highlighted %q, want Parser", got)
	}
}

// TestHitSegmentsMergeOverlappingTerms: every word of the query is highlighted, and a word
// inside another's match is highlighted once, losing no text.
func TestHitSegmentsMergeOverlappingTerms(t *testing.T) {
	segs := hitSegments(SearchHit{Kind: domain.KindUser, Line: "parse the **parser** log"}, "parse parser LOG")
	var sb strings.Builder
	for _, s := range segs {
		sb.WriteString(s.(*widget.TextSegment).Text)
	}
	if got := sb.String(); got != "You: parse the parser log" {
		t.Errorf("text %q: overlapping terms duplicated or lost text", got)
	}
	if got := strings.Join(highlighted(segs), "|"); got != "parse|parser|log" {
		t.Errorf("highlighted %q", got)
	}
}
