package transcript

import (
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The words that say who wrote a message: the chat's headers, search hits and the command
// line's transcripts.
const (
	speakerYou   = "You"
	speakerAgent = "Agent"
	speakerTool  = "Tool"
)

// Speaker names who wrote a message of kind k; other kinds are named by the kind itself,
// capitalised.
func Speaker(k domain.MessageKind) string {
	switch k {
	case domain.KindUser:
		return speakerYou
	case domain.KindAssistant:
		return speakerAgent
	case domain.KindToolResult:
		return speakerTool
	}
	if k == "" {
		return ""
	}
	return strings.ToUpper(string(k[:1])) + string(k[1:])
}
