package actors

import (
	"context"
	"fmt"
)

// RemoteSandboxReporter is the part of a RemoteRunner that says which sandbox a host's kernel
// enforces, for the mode badge's details of a conversation there. cmd's runner has it; a
// runner without it leaves the details to say that the host was not asked.
type RemoteSandboxReporter interface {
	// RemoteSandbox describes host's sandbox as `doctor --remote` reports it. It may connect
	// (a host not reached yet); a live connection answers from what its agent said when it
	// started, without a round trip.
	RemoteSandbox(ctx context.Context, host string) (RemoteSandbox, error)
}

// RemoteSandbox is a remote machine's sandbox, as its agent reported it.
type RemoteSandbox struct {
	Host string
	// OS and Arch are what `uname -s` and `uname -m` said there.
	OS, Arch string
	Layers   SandboxStatus
}

// RemoteSandbox describes the sandbox of host, where a remote conversation's commands run
// (RemoteSandboxReporter). It blocks while it connects: call it off the UI goroutine.
func (r *Runtime) RemoteSandbox(ctx context.Context, host string) (RemoteSandbox, error) {
	rep, ok := r.cfg.Remote.(RemoteSandboxReporter)
	if !ok {
		return RemoteSandbox{}, fmt.Errorf("this Phoenix runs no tool on other machines, so it did not ask %s", host)
	}
	return rep.RemoteSandbox(ctx, host)
}
