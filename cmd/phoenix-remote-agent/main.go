// Command phoenix-remote-agent is the agent role of Phoenix Desktop alone, for the remote
// machine of a remote project: the app copies it there over SSH and starts it (remote.Dial).
// It is built with CGO_ENABLED=0 and imports nothing of the window, so it is one static file
// that starts on a machine without a desktop — no libGL, no X11, not even a libc of its own
// — where the whole app binary, which links Fyne's OpenGL driver, would not start.
//
// It is a thin call into the remote package's agent entry: whatever the agent role does, this
// binary does. Started any other way, it says what it is for and exits.
package main

import (
	"fmt"
	"os"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

func main() {
	// The agent's commands re-execute this binary as the sandbox helper (os.Executable), so
	// the helper's check comes first, as in the app.
	sandbox.MaybeRunHelper()
	remote.MaybeRunAgent()
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Println("phoenix-remote-agent", assets.Version)
		return
	}
	fmt.Fprintf(os.Stderr, "phoenix-remote-agent %s is the part of Phoenix Desktop that runs a remote project's tools; "+
		"Phoenix Desktop copies it to the other machine and starts it there over SSH. Open the project with "+
		"New conversation (user@host:/path) or `phoenix-desktop chat --remote HOST --cwd /path` instead.\n", assets.Version)
	os.Exit(2)
}
