package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/tools"
)

// envSSHConfig names an ssh client configuration used instead of ~/.ssh/config for remote
// projects (ssh -F): ssh reads ~/.ssh/config from the account's home, which HOME does not move.
const envSSHConfig = "PHOENIX_SSH_CONFIG"

// remoteHosts runs the tools of remote conversations (actors.RemoteRunner) through one
// remote.Session per host.
type remoteHosts struct{ hosts *remote.Hosts }

func newRemoteHosts(ask proxy.Asker) *remoteHosts {
	return &remoteHosts{hosts: &remote.Hosts{ConfigFile: os.Getenv(envSSHConfig), Ask: ask}}
}

func (h *remoteHosts) Runs(tool string) bool { return slices.Contains(remote.RemoteTools, tool) }

func (h *remoteHosts) RunRemote(ctx context.Context, host string, call actors.RemoteCall, status func(string)) tools.Output {
	s := h.hosts.Session(host)
	if s == nil {
		return tools.Output{Outcome: domain.OutcomeError, Content: "Phoenix Desktop is closing; nothing ran on " + host + "."}
	}
	where := remote.Call{Conversation: call.Conversation, Cwd: call.Cwd, Mode: call.Mode, ImageLimits: call.ImageLimits}
	if o := call.LanguageServers; o != nil {
		servers := remoteLanguageServers(*o)
		where.LanguageServers = &servers
	}
	out, _ := s.Run(ctx, where, call.Call, connectingStatus(status))
	return out
}

// remoteLanguageServers is what of the language servers' configuration goes to the host.
func remoteLanguageServers(o lsp.Options) remote.LanguageServers {
	return remote.LanguageServers{Specs: o.Specs, StartTimeout: o.StartTimeout, RequestTimeout: o.RequestTimeout}
}

func (h *remoteHosts) LanguageToolsOffered(ctx context.Context, host, conv, cwd string, opts lsp.Options, status func(string)) (bool, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return false, errors.New("the app is closing")
	}
	return s.LanguageToolsOffered(ctx, conv, cwd, remoteLanguageServers(opts), connectingStatus(status))
}

func (h *remoteHosts) LanguageServers(host, conv string) []lsp.Status {
	s := h.hosts.Session(host)
	if s == nil {
		return nil
	}
	return s.LanguageServers(conv)
}

func (h *remoteHosts) Connect(ctx context.Context, host string, status func(string)) error {
	s := h.hosts.Session(host)
	if s == nil {
		return errors.New("the app is closing; nothing ran on " + host)
	}
	return s.Ready(ctx, connectingStatus(status))
}

// connectingStatus passes on the states worth a line: connecting and reconnecting
// ("Connected" follows at once).
func connectingStatus(status func(string)) func(remote.Status) {
	if status == nil {
		return nil
	}
	return func(st remote.Status) {
		if st.State == remote.Connecting || st.State == remote.Reconnecting {
			status(st.String())
		}
	}
}

func (h *remoteHosts) Forget(ctx context.Context, host string) error {
	return h.hosts.Forget(ctx, host)
}

func (h *remoteHosts) Checkpoints(host, conv, dir string) (actors.CheckpointRepo, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return nil, errors.New("the app is closing, so the checkpoints on " + host + " cannot be reached")
	}
	return s.Checkpoints(conv, dir), nil
}

func (h *remoteHosts) StartStdio(start, life context.Context, host string, spec mcp.StdioSpec) (mcp.Process, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return mcp.Process{}, errors.New("the app is closing, so nothing starts on " + host)
	}
	cmd, hello, err := s.StreamCommand(start, life, remote.StreamSpec{Command: spec.Command, Args: spec.Args, Env: spec.Env,
		Dir: spec.Dir, Cwd: spec.Cwd, Mode: string(spec.Mode)})
	return mcp.Process{Cmd: cmd, Hello: hello, Where: host}, err
}

func (h *remoteHosts) Close() { h.hosts.Close() }

var _ actors.RemoteProject = (*remoteHosts)(nil)

func (h *remoteHosts) ReadProject(ctx context.Context, host, dir string, status func(string)) (actors.Instructions, actors.Custom, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return actors.Instructions{}, actors.Custom{}, errors.New("the app is closing, so nothing was read on " + host)
	}
	files, err := s.ReadProject(ctx, dir, connectingStatus(status))
	return files.Instructions, files.Custom, err
}

func (h *remoteHosts) RemoteAllowedHosts(ctx context.Context, host string) ([]actors.RemoteProjectHosts, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return nil, errors.New("the app is closing, so nothing was read on " + host)
	}
	return s.AllowedHosts(ctx)
}

func (h *remoteHosts) RemoveRemoteAllowedHost(ctx context.Context, host, project, pattern string) error {
	s := h.hosts.Session(host)
	if s == nil {
		return errors.New("the app is closing, so nothing was changed on " + host)
	}
	return s.RemoveAllowedHost(ctx, project, pattern)
}

var _ actors.RemoteHooks = (*remoteHosts)(nil)

func (h *remoteHosts) ProjectHooks(ctx context.Context, host, dir string, status func(string)) (actors.ProjectHooks, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return actors.ProjectHooks{}, errors.New("the app is closing, so nothing was read on " + host)
	}
	return s.ProjectHooks(ctx, dir, connectingStatus(status))
}

func (h *remoteHosts) RunProjectHooks(ctx context.Context, host string, mode domain.Mode, approved string, in custom.Input, status func(string)) (actors.ProjectHooks, []custom.Result, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return actors.ProjectHooks{}, nil, errors.New("the app is closing, so no hook ran on " + host)
	}
	return s.RunHooks(ctx, remote.Call{Cwd: in.Cwd, Mode: mode}, approved, in, connectingStatus(status))
}

func (h *remoteHosts) PathExists(ctx context.Context, host, path string) (bool, error) {
	s := h.hosts.Session(host)
	if s == nil {
		return false, errors.New("the app is closing")
	}
	return s.PathExists(ctx, path)
}

// createRemote makes a conversation whose project is on host, in the folder dir there.
// It connects first, saying so on status: the project's instructions, commands and skills are
// read there as the conversation is made, before any event of it reaches the printer.
func createRemote(ctx context.Context, rt *actors.Runtime, hosts *remoteHosts, status io.Writer, host, dir, model string, mode domain.Mode, noInstructions bool) (domain.Conversation, error) {
	if err := remote.CheckDestination(host); err != nil {
		return domain.Conversation{}, fmt.Errorf("chat --remote: %w", err)
	}
	if !path.IsAbs(dir) {
		return domain.Conversation{}, fmt.Errorf("chat --remote %s: --cwd must be the absolute path of the project on that machine, as in --cwd /home/you/project (it was %q)", host, dir)
	}
	if err := hosts.Connect(ctx, host, func(text string) { fmt.Fprintln(status, text) }); err != nil {
		return domain.Conversation{}, fmt.Errorf("chat --remote: %w", err)
	}
	return rt.Create(ctx, actors.NewConversation{Cwd: path.Clean(dir), Host: host, Model: model, Mode: mode, NoInstructions: noInstructions})
}
