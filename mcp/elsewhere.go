package mcp

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A remote conversation's stdio servers run on the machine of its project: the set is given a
// Starter (StartElsewhere), and each server's process is a local command — for the remote
// package, an ssh session to the agent there — whose standard input and output are the
// server's, relayed. The client talks to it exactly as to a local stdio server: the same
// transport, the same handshake, the same kill (cancelling the command's context ends the
// local process, and the far side kills the server's process group when its input ends).

// StdioSpec is a stdio server as another machine starts it, under its own sandbox in the
// conversation's mode.
type StdioSpec struct {
	Name    string
	Command string
	Args    []string
	// Env is the server's own variables (the configured ones, and offline switches in
	// Restricted mode), set over that machine's environment without its credentials.
	Env map[string]string
	// Dir is the conversation's folder there (what the mode's policy opens); Cwd is where the
	// server runs: its configured folder, else Dir.
	Dir, Cwd string
	Mode     domain.Mode
}

// Process is a server started elsewhere: Cmd, which the set starts, relays the server's
// standard streams; Hello, when not empty, is written to its input before the first MCP
// message (the far side reads what to start from it, so no argument shows it).
type Process struct {
	Cmd   *exec.Cmd
	Hello []byte
	// Where names the machine, for the person's words when the server stops ("on box").
	Where string
}

// Starter prepares a stdio server's process on another machine: start bounds the preparing
// (connecting there; the set closing or the start's timeout cancel it), and cancelling life
// ends the process.
type Starter func(start, life context.Context, spec StdioSpec) (Process, error)

// StartElsewhere makes the set start its stdio servers through st, on the machine of a remote
// project, and use only the person's own servers (a project's file is on that machine). Call
// it before Start.
func (s *Set) StartElsewhere(st Starter) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.elsewhere = st
}

// startElsewhere is startStdio for a server on another machine.
func (s *server) startElsewhere(start, procCtx context.Context, kill context.CancelFunc, l launch) (*stdioTransport, error) {
	cwd := l.cwd
	if s.cfg.Cwd != "" {
		cwd = s.cfg.Cwd
	}
	p, err := l.elsewhere(start, procCtx, StdioSpec{Name: s.name, Command: s.cfg.Command, Args: s.cfg.Args,
		Env: ownEnv(s.cfg.Env, l.restricted), Dir: l.cwd, Cwd: cwd, Mode: l.mode})
	if err != nil {
		kill()
		return nil, fmt.Errorf("start MCP server %s: %w", s.name, err)
	}
	p.Cmd.Stderr = s.stderr
	s.kill, s.cmd, s.where = kill, p.Cmd, p.Where
	s.stdoutDone = make(chan struct{})
	s.stdio = &stdioTransport{cmd: p.Cmd, kill: kill, log: s.stderr, done: s.stdoutDone, hello: p.Hello}
	return s.stdio, nil
}
