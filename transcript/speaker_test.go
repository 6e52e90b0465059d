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
