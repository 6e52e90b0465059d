package transcript

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The Markdown export (the window's Ctrl+E and phoenix-desktop export) quotes each reply's reasoning above its answer, with its
// size when the provider reported it; an encrypted-only reasoning adds nothing.
func TestExportIncludesReasoning(t *testing.T) {
	msgs := []domain.Message{
		{Seq: 1, Kind: domain.KindUser, Text: "why?"},
		{Seq: 2, Kind: domain.KindAssistant, Text: "Because.", Reasoning: &domain.Reasoning{Text: "First idea.\n\nSecond idea."},
			Usage: &domain.Usage{InputTokens: 10, OutputTokens: 1500, ReasoningTokens: 1200}},
		{Seq: 3, Kind: domain.KindAssistant, Text: "More.", Reasoning: &domain.Reasoning{Details: []byte(`[{"type":"reasoning.encrypted","data":"x","index":0}]`)}},
	}
	md := Markdown(domain.Conversation{Title: "T", Cwd: "/tmp"}, msgs)
	want := "## Agent\n\n> *Thinking (1.2k tokens)*\n>\n> First idea.\n> \n> Second idea.\n\nBecause.\n\n*10 in · 1.5k out*\n\n## Agent\n\nMore.\n"
	if !strings.Contains(md, want) {
		t.Fatalf("export:\n%s\nwant it to contain:\n%s", md, want)
	}
}
