package transcript

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 13: the Markdown export keeps the mark, so a cut-off reply is not exported as a
// complete one.
func TestMarkdownMarksCutOffReply(t *testing.T) {
	msgs := []domain.Message{
		{Seq: 0, Kind: domain.KindUser, Text: "write it"},
		{Seq: 1, Kind: domain.KindAssistant, Text: "half of it", StopReason: domain.StopLength},
	}
	md := Markdown(domain.Conversation{Title: "t", Cwd: "/w", Model: "demo"}, msgs)
	if !strings.Contains(md, "half of it\n\n> **The reply was cut off at the model's output limit.**") {
		t.Fatalf("export:\n%s", md)
	}
}
