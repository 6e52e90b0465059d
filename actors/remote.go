package actors

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/tools"
)

// RemoteRunner runs the tool calls of conversations whose project lives on another machine
// (domain.Conversation.Host). cmd wires the remote package's hosts here; the runtime needs
// nothing else of it.
type RemoteRunner interface {
	// Runs says whether a tool's calls run on the remote machine (bash, patch, …); the
	// others (think, todo, fetch_url) run here as for any conversation.
	Runs(tool string) bool
	// RunRemote runs one call on host and returns its output; it returns promptly when ctx
	// is cancelled (Stop) and never waits forever for a host that is gone. status hears, in
	// the person's words, how connecting to the host goes ("Reconnecting to host…").
	RunRemote(ctx context.Context, host string, call RemoteCall, status func(text string)) tools.Output
	// Forget ends the connection to host and removes the copies of Phoenix's agent there.
	Forget(ctx context.Context, host string) error
	// Checkpoints is the shadow repository, kept on host, of conversation conv whose project
	// is the folder dir there (checkpoints_remote.go). Nothing connects until it is used.
	Checkpoints(host, conv, dir string) (CheckpointRepo, error)
	// Connect connects to host now if it is not connected, status hearing how it goes as for
	// RunRemote; its error says, in the person's words, that nothing ran there.
	Connect(ctx context.Context, host string, status func(text string)) error
	// StartStdio prepares, on host, the process of a stdio MCP server of a conversation there:
	// a local command relaying its streams (mcp_remote.go). start bounds the connecting;
	// cancelling life ends the process.
	StartStdio(start, life context.Context, host string, spec mcp.StdioSpec) (mcp.Process, error)
	// LanguageToolsOffered says whether the language tools are offered to the model in
	// conversation conv, whose folder on host is cwd: the host's set of servers (configured
	// by opts) checks its files there, connecting first as RunRemote does. An error says
	// why the host could not answer.
	LanguageToolsOffered(ctx context.Context, host, conv, cwd string, opts lsp.Options, status func(text string)) (bool, error)
	// LanguageServers lists conv's language servers on host as the agent there last
	// reported them; none while not connected.
	LanguageServers(host, conv string) []lsp.Status
}

// RemoteCall is one tool call of a remote conversation.
type RemoteCall struct {
	Conversation string
	// Cwd is the working directory on the remote machine.
	Cwd         string
	Mode        domain.Mode
	ImageLimits imaging.Limits
	Call        domain.ToolCall
	// LanguageServers configures the conversation's language servers, which run on the host;
	// nil when they are off or the call cannot use them.
	LanguageServers *lsp.Options
}

// runsRemotely says whether a call of a remote conversation goes to its host: its tools that
// touch files or run commands, and MCP tools, which have no servers here for a remote project.
func (a *conversationActor) runsRemotely(call domain.ToolCall) bool {
	if a.conv.Host == "" {
		return false
	}
	return domain.IsMCPTool(call.Name) || a.rt.cfg.Remote == nil || a.rt.cfg.Remote.Runs(call.Name)
}

// remoteToolActor runs one call of a remote conversation on its host. The runner itself
// carries Stop across (one cancel to the remote process group) and reports a dropped
// connection as the call's error. A call that can change files is checkpointed as a local
// one is, in the shadow repository on the host; its tool hooks run as a local call's, the
// project's on the host (hooks_remote.go); this machine's proxy does not apply.
type remoteToolActor struct {
	rt     *Runtime
	convID string
	exec   domain.ExecID
	ctx    context.Context
	cancel context.CancelFunc
	host   string
	call   RemoteCall
	// ckpt snapshots the project there around a call that can change files; nil otherwise.
	ckpt *checkpointTask
	// mcp runs an MCP tool's call; its servers run on the host (mcp_remote.go).
	mcp remoteMCP
}

func remoteToolProps(rt *Runtime, convID string, exec domain.ExecID, ctx context.Context, cancel context.CancelFunc, host string, call RemoteCall, ckpt *checkpointTask, m remoteMCP) *actor.Props {
	return actor.PropsFromProducer(func() actor.Actor {
		return &remoteToolActor{rt: rt, convID: convID, exec: exec, ctx: ctx, cancel: cancel, host: host, call: call, ckpt: ckpt, mcp: m}
	})
}

func (w *remoteToolActor) Receive(ctx actor.Context) {
	switch ctx.Message().(type) {
	case *actor.Started:
		parent, root := ctx.Parent(), w.rt.system.Root
		go w.rt.runWithCheckpoint(w.convID, w.ckpt, w.run, func(res domain.ToolResult) {
			root.Send(parent, toolDone{Exec: w.exec, Result: res})
		})
	case *actor.Stopping:
		w.cancel()
	}
}

// run runs the call on the host; complete, when not nil, completes its checkpoint.
func (w *remoteToolActor) run() (res domain.ToolResult, complete func()) {
	call := w.call.Call
	fail := func(text string) domain.ToolResult {
		return domain.ToolResult{CallID: call.ID, Name: call.Name, Outcome: domain.OutcomeError, Content: text}
	}
	switch {
	case w.rt.cfg.Remote == nil:
		return fail(fmt.Sprintf("This conversation's project is on %s, and this session of Phoenix Desktop cannot reach other machines; open it in the app or with `chat --remote`.", w.host)), nil
	case domain.IsMCPTool(call.Name) && w.mcp.servers == nil:
		return fail("The MCP servers of this conversation could not be used, so " + call.Name + " cannot run: " + w.mcp.why), nil
	}
	hooks := &callHooks{rt: w.rt, ctx: w.ctx, convID: w.convID, host: w.host, cwd: w.call.Cwd, mode: w.call.Mode, call: call}
	if refused, ok := hooks.pre(); ok {
		return refused, nil
	}
	if w.ckpt != nil {
		// Connected first, the person seeing "Connecting to host…": the snapshot before the
		// call is taken there, and a host that cannot be reached is tried once, not twice.
		if err := w.rt.cfg.Remote.Connect(w.ctx, w.host, w.notice); err != nil {
			res := fail(upperFirst(err.Error()) + ".")
			if w.ctx.Err() != nil {
				res.Outcome = domain.OutcomeCancelled
			}
			return res, nil
		}
		if cp, ok := w.ckpt.before(w.ctx, w.exec, call); ok {
			complete = func() { w.ckpt.after(cp) }
		}
	}
	var out tools.Output
	if domain.IsMCPTool(call.Name) {
		out = w.mcp.servers.Call(w.ctx, w.mcp.env, call, func(p mcp.Progress) {
			w.rt.publish(ToolProgress{ConvID: w.convID, Exec: w.exec, Progress: p.Progress, Total: p.Total, Message: p.Message})
		})
	} else {
		out = w.rt.cfg.Remote.RunRemote(w.ctx, w.host, w.call, w.notice)
	}
	for _, img := range out.Images {
		if _, err := w.rt.cfg.Store.PutBlob(img.Data); err != nil {
			return fail("The image could not be saved: " + err.Error()), complete
		}
	}
	return hooks.post(out.Result(call)), complete
}

// notice shows how connecting to the host goes ("Reconnecting to host…").
func (w *remoteToolActor) notice(text string) {
	w.rt.publish(Notice{ConvID: w.convID, Level: NoticeInfo, Text: text})
}

// upperFirst capitalises an error's first letter for a sentence of its own.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// checkRemote refuses a remote conversation this runtime cannot serve, before it exists.
func (r *Runtime) checkRemote(host, cwd string) error {
	if r.cfg.Remote == nil {
		return fmt.Errorf("create conversation on %s: this session of Phoenix Desktop cannot reach other machines", host)
	}
	if len(cwd) == 0 || cwd[0] != '/' {
		return fmt.Errorf("create conversation on %s: the folder there must be an absolute path, not %q", host, cwd)
	}
	return nil
}

// ParseRemoteLocation reads what a person types for a project on another machine —
// "user@host:/path" or "host:/path" with a Host of ~/.ssh/config — into its host and folder;
// ok is false, with no error, for a local path (remote.ParseLocation, the one reader of it).
func ParseRemoteLocation(s string) (host, dir string, ok bool, err error) {
	loc, ok, err := remote.ParseLocation(s)
	return loc.Destination, loc.Path, ok, err
}

// RemoteHosts lists, sorted, the hosts of the person's conversations on other machines
// (archived ones included): Settings → Remote hosts.
func (r *Runtime) RemoteHosts(ctx context.Context) ([]string, error) {
	list, err := r.List(ctx, true)
	if err != nil {
		return nil, err
	}
	var hosts []string
	for _, s := range list {
		if s.Host != "" && !slices.Contains(hosts, s.Host) {
			hosts = append(hosts, s.Host)
		}
	}
	slices.Sort(hosts)
	return hosts, nil
}

// ForgetHost ends the connection to host and removes the copies of Phoenix's agent there
// (Settings → Forget). Its conversations stay; their next tool call connects and copies the
// agent again.
func (r *Runtime) ForgetHost(ctx context.Context, host string) error {
	if r.cfg.Remote == nil {
		return fmt.Errorf("this session of Phoenix Desktop cannot reach other machines, so nothing was removed from %s", host)
	}
	return r.cfg.Remote.Forget(ctx, host)
}

// continuedHost is the host of a new conversation: the one asked for, else — when it
// continues a conversation on another machine in the same folder there — that one's.
func (r *Runtime) continuedHost(p NewConversation) string {
	if p.Host != "" || p.ContinuedFrom == "" {
		return p.Host
	}
	if src, err := r.cfg.Store.Get(p.ContinuedFrom); err == nil && src.Cwd == p.Cwd {
		return src.Host
	}
	return ""
}
