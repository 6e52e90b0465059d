package ui

import (
	"context"
	"errors"
	"time"

	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
)

// remoteSandboxBackend describes the sandbox of a remote conversation's host
// (*actors.Runtime.RemoteSandbox). A backend without it leaves the badge's details of a
// remote conversation saying that the host was not asked.
type remoteSandboxBackend interface {
	RemoteSandbox(ctx context.Context, host string) (actors.RemoteSandbox, error)
}

// remoteSandboxWait bounds the question: a host that cannot be reached is said to be so
// rather than waited for (the session's own tries take longer).
const remoteSandboxWait = 30 * time.Second

// remoteSandboxAsking is what the details say of a remote host until it answers.
func remoteSandboxAsking(host string) string {
	return "Its commands run on " + host + ", under that machine's sandbox. Asking " + host + " which layers its kernel enforces…"
}

// remoteSandboxText is what the details say of the remote machine's sandbox: the report of
// `phoenix-desktop doctor --remote HOST`, for the machine where this conversation's commands
// run — not this one's.
func remoteSandboxText(host string, rs actors.RemoteSandbox, err error) string {
	if err != nil {
		return "Its commands run on " + host + ", under that machine's sandbox, which Phoenix could not ask for: " + err.Error() +
			"\n`phoenix-desktop doctor --remote " + host + "` lists it once " + host + " can be reached."
	}
	// The head already says what this conversation's mode allows (issue 36), as for a local one.
	layers := rs.Layers
	layers.Summary = ""
	return "Its commands run on " + host + " (" + rs.OS + " " + rs.Arch + "), under that machine's sandbox " +
		"(as `phoenix-desktop doctor --remote " + host + "` reports it):\n\n" + layers.String()
}

// askRemoteSandbox asks the backend, off the UI goroutine, for host's sandbox and shows the
// answer under head in text. The runtime answers from the live connection when there is one.
func (h *header) askRemoteSandbox(host, head string, text *widget.Label) {
	b, ok := h.m.b.(remoteSandboxBackend)
	if !ok {
		text.SetText(head + "\n\n" + remoteSandboxText(host, actors.RemoteSandbox{}, errNoRemoteSandbox))
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(h.m.ctx, remoteSandboxWait)
		defer cancel()
		rs, err := b.RemoteSandbox(ctx, host)
		h.m.do(func() { text.SetText(head + "\n\n" + remoteSandboxText(host, rs, err)) })
	}()
}

// errNoRemoteSandbox is the answer of a backend that cannot ask a host.
var errNoRemoteSandbox = errors.New("this build does not ask remote machines")
