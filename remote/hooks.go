package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/rpc"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// A remote project's hooks (the files in the project: .phoenix/hooks.json, the "hooks" of
// .claude/settings.json, .codex/hooks.json) are read on its host by the agent, with the same
// code as a local project's (custom.ReadProjectHooks), and run there under the remote
// sandbox in the conversation's mode, as a remote bash call is (tools.RunHook, the one home of
// a walled hook's run). Whether the person approved them is decided on the app's side, where
// the approvals are (custom.Hooks.Judge, keyed by host and folder); the app sends the
// fingerprint it approved with each event, and the agent runs the hooks only when the files
// there, read at that moment, hold exactly that configuration — so a file changed on the host
// since the approval never runs. The person's own hooks never come here: they name programs
// of the person's machine and run there (actors.Runtime.runHooks).

// hooksService is the name of the agent's net/rpc service for a project's hooks.
const hooksService = "Hooks"

// HookRunArgs is one event whose project hooks run on the host.
type HookRunArgs struct {
	// ID names the run for Agent.Cancel (the same numbering as tool calls).
	ID string
	// Cwd is the project's folder there; Mode the conversation's (anything unknown is
	// Restricted there).
	Cwd  string
	Mode string
	// Approved is the fingerprint of the configuration the person approved for this folder
	// on this host ("" for none: nothing runs, the files are only read).
	Approved string
	// Input is the event, as the hooks get it on stdin (its ToolAliases cross too: the
	// matchers match them).
	Input custom.Input
}

// HookRunReply is what the project's files there hold now and what their hooks did.
type HookRunReply struct {
	Project custom.ProjectHooks
	Results []custom.Result
}

// Hooks is the agent's service for a project's hooks.
type Hooks struct{ a *agent }

// Read reads the hooks a project's folder here offers (approval is the app's to decide).
func (s *Hooks) Read(args ProjectArgs, reply *custom.ProjectHooks) error {
	if !filepath.IsAbs(args.Cwd) {
		return fmt.Errorf("the project's folder %q is not an absolute path", args.Cwd)
	}
	*reply = custom.ReadProjectHooks(args.Cwd)
	return nil
}

// Exists says whether a path exists here: for a patch's file, whether hooks are told Write
// (a new file) or Edit. An error to look (other than absence) counts as existing.
func (s *Hooks) Exists(args ProjectArgs, reply *bool) error {
	if !filepath.IsAbs(args.Cwd) {
		return fmt.Errorf("the path %q is not absolute", args.Cwd)
	}
	_, err := os.Lstat(args.Cwd)
	*reply = !errors.Is(err, fs.ErrNotExist)
	return nil
}

// Run reads the project's hooks here and, when they are exactly the approved configuration,
// runs those of the event under the sandbox in the conversation's mode.
func (s *Hooks) Run(args HookRunArgs, reply *HookRunReply) error {
	if !filepath.IsAbs(args.Cwd) {
		return fmt.Errorf("the project's folder %q is not an absolute path", args.Cwd)
	}
	ctx, done, err := s.a.start(args.ID)
	if err != nil {
		return err
	}
	defer done()
	reply.Project = custom.ReadProjectHooks(args.Cwd)
	if args.Approved == "" || reply.Project.Fingerprint != args.Approved {
		return nil
	}
	in := args.Input
	in.Cwd = args.Cwd
	reply.Results = custom.RunProject(ctx, in, reply.Project, hostHookRunner{cwd: args.Cwd, mode: domain.Mode(args.Mode)})
	return nil
}

// hostHookRunner runs a project's hook on the host under the conversation's mode, without
// network in Project mode (no proxy: the hook is the project's code, not the person's
// request — as for a local project's).
type hostHookRunner struct {
	cwd  string
	mode domain.Mode
}

func (h hostHookRunner) Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	return tools.RunHook(ctx, tools.Env{Cwd: h.cwd, Mode: h.mode}, "", command, stdin,
		func(base []string) []string { return custom.Env(base, h.cwd) }, stdout, stderr)
}

// runHooks runs an event's project hooks on the agent. Cancelling ctx (Stop) sends a cancel at
// once, which kills the hooks' process groups there, and waits for the agent's answer at most
// cancelGrace; a dropped connection wraps ErrConnectionLost.
func (c *Client) runHooks(ctx context.Context, args HookRunArgs) (HookRunReply, error) {
	select {
	case <-c.lost:
		return HookRunReply{}, ErrConnectionLost
	default:
	}
	args.ID = "hook-" + strconv.FormatUint(c.nextID.Add(1), 10)
	var reply HookRunReply
	pending := c.rpc.Go(hooksService+".Run", args, &reply, make(chan *rpc.Call, 1))
	select {
	case <-pending.Done:
	case <-ctx.Done():
		c.rpc.Go(agentService+".Cancel", CancelArgs{ID: args.ID}, &Empty{}, make(chan *rpc.Call, 1))
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case <-pending.Done:
		case <-t.C:
			c.Close()
			return HookRunReply{}, fmt.Errorf("the hooks on %s were stopped; the host did not confirm in time, so Phoenix closed the connection, which stops them there", c.opts.Destination)
		}
	}
	var serverErr rpc.ServerError
	switch {
	case pending.Error == nil:
		return reply, nil
	case errors.As(pending.Error, &serverErr):
		return HookRunReply{}, fmt.Errorf("on %s: %s", c.opts.Destination, string(serverErr))
	}
	c.markLost()
	return HookRunReply{}, fmt.Errorf("%w: %w", ErrConnectionLost, pending.Error)
}

// ProjectHooks reads, on the host, the hooks the project in its folder dir there offers.
func (s *Session) ProjectHooks(ctx context.Context, dir string, report func(Status)) (custom.ProjectHooks, error) {
	var p custom.ProjectHooks
	err := s.onAgent(ctx, "read the project's hooks", report, func(c *Client) error {
		return c.callAgent(ctx, hooksService+".Read", ProjectArgs{Cwd: dir}, &p)
	})
	return p, err
}

// PathExists says whether path exists on the host, over the live connection (connecting
// first when there is none, waiting at most hookConnectWait as RunHooks does).
func (s *Session) PathExists(ctx context.Context, path string) (bool, error) {
	wait, cancel := context.WithTimeout(ctx, hookConnectWait)
	c, err := s.connectFor(wait, nil)
	cancel()
	if err != nil {
		return false, fmt.Errorf("could not reach %s to look for %s: %w", s.opts.Destination, path, err)
	}
	var ok bool
	err = c.callAgent(ctx, hooksService+".Exists", ProjectArgs{Cwd: path}, &ok)
	if errors.Is(err, ErrConnectionLost) {
		s.lost(c, err)
	}
	return ok, err
}

// hookConnectWait bounds how long an event waits for a connection to the host before its
// project hooks are said not to have run: a message, a think call or a turn's end must not
// wait through a dead host's whole backoff. The connection goes on being made for the calls
// that follow (connectFor).
const hookConnectWait = 10 * time.Second

// RunHooks runs, on the host, the project hooks of the event in where's folder there, if its
// files still hold the approved configuration; it returns what they hold and the hooks'
// results. report hears how connecting goes, as for Run.
func (s *Session) RunHooks(ctx context.Context, where Call, approved string, in custom.Input, report func(Status)) (custom.ProjectHooks, []custom.Result, error) {
	wait, cancel := context.WithTimeout(ctx, hookConnectWait)
	c, err := s.connectFor(wait, report)
	cancel()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return custom.ProjectHooks{}, nil, fmt.Errorf("stopped while connecting to %s; the project's hooks did not run", s.opts.Destination)
	case errors.Is(err, ErrSessionClosed):
		return custom.ProjectHooks{}, nil, fmt.Errorf("the connection to %s is closed, so the project's hooks did not run", s.opts.Destination)
	case errors.Is(err, context.DeadlineExceeded):
		return custom.ProjectHooks{}, nil, fmt.Errorf("%s could not be reached within %s, so the project's hooks did not run; Phoenix goes on connecting", s.opts.Destination, hookConnectWait)
	default:
		return custom.ProjectHooks{}, nil, fmt.Errorf("could not reach %s, so the project's hooks did not run: %w", s.opts.Destination, err)
	}
	reply, err := c.runHooks(ctx, HookRunArgs{Cwd: where.Cwd, Mode: string(where.Mode), Approved: approved, Input: in})
	if errors.Is(err, ErrConnectionLost) {
		s.lost(c, err)
		return custom.ProjectHooks{}, nil, fmt.Errorf("the connection to %s was lost while the project's hooks ran, so they were stopped there: %w", s.opts.Destination, err)
	}
	return reply.Project, reply.Results, err
}
