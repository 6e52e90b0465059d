package transcript

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The speaker words are pinned here: the chat, search hits and the command line take them
// from Speaker, so changing one changes them everywhere, and this test says so.
func TestSpeakerWords(t *testing.T) {
	for k, want := range map[domain.MessageKind]string{
		domain.KindUser:       "You",
		domain.KindAssistant:  "Agent",
		domain.KindToolResult: "Tool",
		domain.KindSystem:     "System",
		"":                    "",
	} {
		if got := Speaker(k); got != want {
			t.Errorf("Speaker(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestTitleIsOneLine (issue 28): a title's line breaks and tabs, real or escaped as text,
// read as spaces wherever a conversation is named.
func TestTitleIsOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"Fix\\nthe parser":         "Fix the parser",
		"Fix\nthe\r\nparser":       "Fix the parser",
		"Fix\\r\\nthe\\tparser\\n": "Fix the parser",
		"  ":                       "work",
	} {
		if got := Title(in, "/home/ada/work"); got != want {
			t.Errorf("Title(%q) = %q, want %q", in, got, want)
		}
	}
}
