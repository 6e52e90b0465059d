package actors

import (
	_ "embed"
	"runtime"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

var (
	//go:embed prompts/system.md
	systemPrompt string
	//go:embed prompts/subagent.md
	subAgentPrompt string
)

// SystemPrompt is the system message of a conversation. It names the working directory and
// the platform so the model does not spend turns discovering them, and it is the same for
// the whole conversation: mode changes reach the model as system notices (REQ-BED-017).
func SystemPrompt(c domain.Conversation) string {
	tmpl := systemPrompt
	modeNote := ": the file system is read-only and the network is closed"
	if c.Mode == domain.ModeUnrestricted {
		modeNote = " because Restricted mode is unavailable on this machine"
	}
	if c.IsSubAgent() {
		tmpl = subAgentPrompt
	}
	return strings.NewReplacer(
		"{{cwd}}", c.Cwd,
		"{{platform}}", runtime.GOOS+"/"+runtime.GOARCH,
		"{{mode}}", string(c.Mode),
		"{{mode_note}}", modeNote,
	).Replace(tmpl)
}
