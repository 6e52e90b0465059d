package remote

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// AgentBinaryName is the file name of the agent role built alone (cmd/phoenix-remote-agent):
// a static binary, built with CGO_ENABLED=0, that needs nothing of the remote machine — no
// libGL, no X11, no libc — where the app's own binary links the desktop's libraries through
// Fyne and would not start on a machine without a desktop. The packages ship it beside the app.
const AgentBinaryName = "phoenix-remote-agent"

// agentBinary is the program Dial copies when Options.Binary is empty: the agent built alone,
// found beside this executable (bin/, a bundle) or in ../lib/phoenix-desktop (the .deb puts
// it in /usr/lib/phoenix-desktop), else this executable itself — a build of the app alone
// (`go build ./cmd/phoenix-desktop`, the tests) still reaches a remote machine that has the
// desktop's libraries, as VS Code's Remote-SSH falls back to what it has rather than refuse.
// The version and checksum rules are the same for both: the remote file is named by the
// copied file's own checksum, and Hello checks the version.
func agentBinary() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	return agentBinaryFor(self)
}

// agentBinaryFor is agentBinary for the app's executable self.
func agentBinaryFor(self string) (string, error) {
	if resolved, err := filepath.EvalSymlinks(self); err == nil {
		self = resolved
	}
	dir := filepath.Dir(self)
	for _, p := range []string{
		filepath.Join(dir, AgentBinaryName),
		filepath.Join(dir, "..", "lib", "phoenix-desktop", AgentBinaryName),
	} {
		fi, err := os.Stat(p)
		if err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	return self, nil
}
