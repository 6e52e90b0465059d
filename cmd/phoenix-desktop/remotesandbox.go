package main

import (
	"context"

	"github.com/phoenix-desktop/phoenix/actors"
)

var _ actors.RemoteSandboxReporter = (*remoteHosts)(nil)

// RemoteSandbox is the host's sandbox for the mode badge's details: what the agent there said
// when its connection started (remote.Hosts.Sandbox), the same report as `doctor --remote`.
func (h *remoteHosts) RemoteSandbox(ctx context.Context, host string) (actors.RemoteSandbox, error) {
	info, err := h.hosts.Sandbox(ctx, host)
	if err != nil {
		return actors.RemoteSandbox{}, err
	}
	return actors.RemoteSandbox{Host: host, OS: info.OS, Arch: info.Arch, Layers: info.Hello.Layers}, nil
}
