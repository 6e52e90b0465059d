package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Forget removes, on the remote host, every copy of Phoenix's agent that the app put there
// (the remote user's cache folder of them), over a connection of its own that copies nothing.
// The host's master connection ends first, and with it every agent running there.
func Forget(ctx context.Context, opts Options) error {
	if err := CheckDestination(opts.Destination); err != nil {
		return err
	}
	sshPath, err := findSSH(opts)
	if err != nil {
		return err
	}
	// The agent may run from the file about to go: its sessions end with the master.
	EndMaster(ctx, opts)
	script := `d=` + agentDirShell + `; rm -rf "$d" && { rmdir "$(dirname "$d")" 2>/dev/null; true; }`
	cmd := sshCommand(ctx, sshPath, opts, opts.Destination, remoteSh(script))
	var stderr boundedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("removing Phoenix's agent from %s took too long (%v)", opts.Destination, context.Cause(ctx))
		}
		msg := stderr.String()
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("could not remove Phoenix's agent from %s: %s. Check that `ssh %s` works in a terminal without asking anything", opts.Destination, msg, opts.Destination)
	}
	return nil
}

// Doctor writes which sandbox layers the remote host's kernel enforces for the conversations
// there — the same report `doctor` gives for this machine — after connecting (and copying the
// agent when it is not there yet).
func Doctor(ctx context.Context, opts Options, w io.Writer, asJSON bool) error {
	c, err := Dial(ctx, opts)
	if err != nil {
		return err
	}
	defer c.Close()
	info := c.Info()
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Host   string `json:"host"`
			OS     string `json:"os"`
			Arch   string `json:"arch"`
			Agent  string `json:"agent"`
			Copied bool   `json:"copied"`
			Layers any    `json:"layers"`
		}{opts.Destination, info.OS, info.Arch, info.BinaryPath, info.Copied, info.Hello.Layers})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "On %s (%s %s; Phoenix's agent at %s", opts.Destination, info.OS, info.Arch, info.BinaryPath)
	if info.Copied {
		b.WriteString(", copied now")
	}
	b.WriteString("):\n\n")
	b.WriteString(info.Hello.Layers.String())
	_, err = io.WriteString(w, b.String())
	return err
}
