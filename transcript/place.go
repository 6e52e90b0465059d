package transcript

import "github.com/phoenix-desktop/phoenix/domain"

// Place is where a conversation works, as a person writes it: its folder, or host:/folder
// for a project on another machine (issue 37) — the header, the sidebar and the CLI show it.
func Place(c domain.Conversation) string {
	if c.Host != "" {
		return c.Host + ":" + c.Cwd
	}
	return c.Cwd
}
