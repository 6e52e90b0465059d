package domain

import "testing"

// A command written for Claude Code names Anthropic's ids; each provider serves the same
// model under its own id, which OfferedAs finds only where the mapping is certain (issue 38).
func TestOfferedAsMapsOnlyCertainIDs(t *testing.T) {
	openRouter := []string{"anthropic/claude-3.5-haiku", "anthropic/claude-3.7-sonnet", "anthropic/claude-3.7-sonnet:thinking",
		"anthropic/claude-opus-4.1", "anthropic/claude-sonnet-4", "anthropic/claude-sonnet-4.5", "openai/gpt-4.1", "openai/gpt-4o"}
	anthropic := []string{"claude-3-5-haiku-20241022", "claude-opus-4-1-20250805", "claude-sonnet-4-20250514", "claude-sonnet-4-5-20250929"}
	openAI := []string{"gpt-4.1", "gpt-4o", "gpt-4o-2024-08-06", "gpt-4o-mini"}
	ollama := []string{"llama3.1:8b", "qwen3:latest"}
	tests := []struct {
		model   string
		offered []string
		want    string
	}{
		{"claude-sonnet-4-0", openRouter, "anthropic/claude-sonnet-4"},
		{"claude-sonnet-4-20250514", openRouter, "anthropic/claude-sonnet-4"},
		{"claude-sonnet-4-5", openRouter, "anthropic/claude-sonnet-4.5"},
		{"claude-opus-4-1-20250805", openRouter, "anthropic/claude-opus-4.1"},
		{"claude-3-5-haiku-20241022", openRouter, "anthropic/claude-3.5-haiku"},
		{"claude-3-7-sonnet-latest", openRouter, "anthropic/claude-3.7-sonnet"},
		{"gpt-4.1", openRouter, "openai/gpt-4.1"},
		{"claude-sonnet-4-0", anthropic, "claude-sonnet-4-20250514"},
		{"claude-3-5-haiku-latest", anthropic, "claude-3-5-haiku-20241022"},
		{"anthropic/claude-sonnet-4.5", anthropic, "claude-sonnet-4-5-20250929"},
		{"openai/gpt-4o", openAI, "gpt-4o"},
		{"gpt-4o-mini", openAI, "gpt-4o-mini"},
		// Not certain, or not offered: no mapping.
		{"sonnet", openRouter, ""},
		{"claude-opus-4-0", openRouter, ""},         // 4.0 is not 4.1
		{"claude-sonnet-4-0", openAI, ""},           // another provider's model
		{"claude-3-5-sonnet-latest", anthropic, ""}, // an alias that moved between snapshots
		{"gpt-4o-2024-05-13", openAI, ""},           // a snapshot is not the alias
		{"claude-sonnet-4-0", ollama, ""},
		{"", openRouter, ""},
	}
	for _, tt := range tests {
		got, ok := OfferedAs(tt.model, tt.offered)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("OfferedAs(%q) = %q, %v; want %q", tt.model, got, ok, tt.want)
		}
	}
	if !SameModel("claude-sonnet-4-0", "anthropic/claude-sonnet-4") || SameModel("anthropic/claude-3.7-sonnet", "anthropic/claude-3.7-sonnet:thinking") {
		t.Error("SameModel disagrees with OfferedAs")
	}
}
