package remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/rpc"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Language servers of a remote conversation run on the remote machine, in the agent: it keeps
// each conversation's set (package lsp, the same code as for a local project), started lazily
// on the first patch of a file a server serves, and checks each patch and each writing
// command of that conversation with it before it answers the call, so the new errors come
// back with the tool's output. The language tools (diagnostics, definition, …) are answered
// there too. The servers read the project's files where they are: no file of the project
// crosses the wire for them. The person's server table (lsp.json) comes with each call that
// may use it (LanguageServers); the servers die with the agent — the app closed the session,
// or the connection dropped — as its commands do.

// LanguageServers configures a conversation's language servers on the remote side.
type LanguageServers struct {
	// Specs is the person's table of servers (lsp.Known when nil), programs found on the
	// remote PATH.
	Specs                        []lsp.Spec
	StartTimeout, RequestTimeout time.Duration
}

// isLanguageCall says whether a call may use the conversation's language servers: a patch,
// a command that may change the files they have open, a language tool.
func isLanguageCall(tool string) bool {
	return tool == domain.ToolPatch || tool == domain.ToolBash || domain.IsLanguageTool(tool)
}

// languageSets is the agent's sets, by conversation.
type languageSets struct {
	mu     sync.Mutex
	sets   map[string]*lsp.Set
	closed bool
	// seq counts the changes of any server's state; wake is closed at the next (Watch).
	seq  uint64
	wake chan struct{}
}

// set returns the conversation's set, made (starting nothing) on first use; nil when the call
// carries no configuration or the agent is ending.
func (l *languageSets) set(conv string, cfg *LanguageServers) *lsp.Set {
	if cfg == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	if s, ok := l.sets[conv]; ok {
		return s
	}
	s := lsp.NewSet(lsp.Options{Specs: cfg.Specs, StartTimeout: cfg.StartTimeout, RequestTimeout: cfg.RequestTimeout, OnChange: l.changed})
	if l.sets == nil {
		l.sets = map[string]*lsp.Set{}
	}
	l.sets[conv] = s
	return s
}

// closeAll kills every server's process tree and waits until they are reaped.
func (l *languageSets) closeAll() {
	l.mu.Lock()
	l.closed = true
	all := l.sets
	l.sets = nil
	l.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}

// runWithLanguageServers runs one call of a conversation whose set is set (nil: none) as the
// app's tool worker does for a local project: a language tool is answered by the set; a patch
// is followed by the errors it introduced, a writing command by those it introduced in the
// files the servers have open.
func runWithLanguageServers(ctx context.Context, set *lsp.Set, reg *tools.Registry, env tools.Env, call domain.ToolCall) tools.Output {
	if domain.IsLanguageTool(call.Name) {
		return lsp.RunTool(ctx, set, env, call)
	}
	edit := set.BeforePatch(call, env.Cwd)
	out := reg.Run(ctx, env, call)
	if set == nil || ctx.Err() != nil {
		return out
	}
	switch {
	case edit != nil && out.Outcome == domain.OutcomeSuccess:
		out = set.AfterEdit(ctx, env, edit.Path, edit.Before, edit.Existed).AppendTo(out)
	case call.Name == domain.ToolBash && env.Mode.Rank() > domain.ModeRestricted.Rank():
		out = set.AfterCommand(ctx, env).AppendTo(out)
	}
	return out
}

// What the app asks the agent about a conversation's language servers, besides running its
// calls (Agent.Run): whether the language tools are offered in it — the check reads the
// project's files, which are on the host — and the servers' states for the header. Both are
// answered by the agent's lsp.Set, the same code as for a local project.

// languageService is the name of the agent's net/rpc service for the language servers.
const languageService = "Languages"

// OfferArgs asks whether the language tools are offered in a conversation on the host.
type OfferArgs struct {
	Conversation string
	// Cwd is the conversation's working directory on the host.
	Cwd     string
	Servers LanguageServers
}

// OfferReply is lsp.Set.Offered's answer on the host.
type OfferReply struct {
	Offered bool
}

// WatchArgs asks for the servers' states once they have changed past Seen (a WatchReply.Seq).
type WatchArgs struct {
	Seen uint64
}

// WatchReply is every conversation's servers on the host, by conversation, as of Seq.
type WatchReply struct {
	Seq     uint64
	Servers map[string][]lsp.Status
}

// Languages is the net/rpc service through which the app asks about language servers.
type Languages struct{ a *agent }

// Offered says whether the conversation's set offers the language tools in its folder there
// (a server runs, or one on the host's PATH serves the project's files); it makes the set,
// starting nothing.
func (l *Languages) Offered(args OfferArgs, reply *OfferReply) error {
	set := l.a.lsps.set(args.Conversation, &args.Servers)
	if set == nil {
		return errors.New("the remote agent is shutting down")
	}
	reply.Offered = set.Offered(args.Cwd)
	return nil
}

// Watch answers the servers' states as soon as they differ from those the app saw last (at
// once the first time); it fails when the session ends. The app keeps one waiting (watchLoop),
// so a server's start, readiness and failure reach the header while the call that started it
// still runs, as for a local project.
func (l *Languages) Watch(args WatchArgs, reply *WatchReply) error {
	ls := &l.a.lsps
	for {
		ls.mu.Lock()
		if ls.closed {
			ls.mu.Unlock()
			return errSessionEnded
		}
		// Versions count from 1, so that the app's first call (Seen 0) is answered at once.
		if version := ls.seq + 1; version != args.Seen {
			seq, sets := version, maps.Clone(ls.sets)
			ls.mu.Unlock()
			reply.Seq, reply.Servers = seq, map[string][]lsp.Status{}
			for conv, s := range sets {
				if st := s.Status(); len(st) > 0 {
					reply.Servers[conv] = st
				}
			}
			return nil
		}
		if ls.wake == nil {
			ls.wake = make(chan struct{})
		}
		wake := ls.wake
		ls.mu.Unlock()
		select {
		case <-wake:
		case <-l.a.ctx.Done():
			return errSessionEnded
		}
	}
}

// changed wakes every waiting Watch: a server of some conversation changed state.
func (l *languageSets) changed() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	if l.wake != nil {
		close(l.wake)
		l.wake = nil
	}
}

// languageStates is, on the app's side, the last servers' states the agent reported.
type languageStates struct {
	mu      sync.Mutex
	servers map[string][]lsp.Status
}

// of is the conversation's servers as the agent last reported them.
func (s *languageStates) of(conv string) []lsp.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.servers[conv])
}

// watchLoop, on the app's side, keeps one Languages.Watch call waiting on the agent and keeps
// what it answers; it ends when the connection does.
func watchLoop(c *rpc.Client, st *languageStates, wg *sync.WaitGroup) {
	defer wg.Done()
	var seen uint64
	for {
		var r WatchReply
		if err := c.Call(languageService+".Watch", WatchArgs{Seen: seen}, &r); err != nil {
			return
		}
		seen = r.Seq
		st.mu.Lock()
		st.servers = r.Servers
		st.mu.Unlock()
	}
}

// LanguageServers is the conversation's servers on the host as its agent last reported them
// (their states as lsp.Set.Status says); none while the connection is down — its servers
// died with it.
func (s *Session) LanguageServers(conv string) []lsp.Status {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c.Lost():
		return nil
	default:
		return c.langs.of(conv)
	}
}

// LanguageToolsOffered asks the host whether the language tools are offered in the
// conversation in cwd there. It is asked before each model request, which it must not hold
// up: over the live connection it is one round trip; the session's first connection is made
// for it (report hears how, as for Run), and ctx bounds only the wait — the connection goes on
// being made for the call that follows; after a drop it does not reconnect (the next tool call
// does, showing the loss first) and says what the host said last.
func (s *Session) LanguageToolsOffered(ctx context.Context, conv, cwd string, servers LanguageServers, report func(Status)) (bool, error) {
	s.mu.Lock()
	c, dropped, last := s.cur, s.dropped, s.offered[conv]
	s.mu.Unlock()
	if c != nil {
		select {
		case <-c.Lost():
			c, dropped = nil, true
		default:
		}
	}
	if c == nil {
		if dropped {
			return last, nil
		}
		var err error
		if c, err = s.connectFor(ctx, report); err != nil {
			return false, err
		}
	}
	var reply OfferReply
	call := c.rpc.Go(languageService+".Offered", OfferArgs{Conversation: conv, Cwd: cwd, Servers: servers}, &reply, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
	case <-ctx.Done():
		return last, ctx.Err()
	}
	var serverErr rpc.ServerError
	switch {
	case call.Error == nil:
		s.mu.Lock()
		s.offered[conv] = reply.Offered
		s.mu.Unlock()
		return reply.Offered, nil
	case errors.As(call.Error, &serverErr):
		return false, fmt.Errorf("on %s: %s", s.opts.Destination, string(serverErr))
	}
	c.markLost()
	s.lost(c, call.Error)
	return last, fmt.Errorf("%w: %w", ErrConnectionLost, call.Error)
}

// connectFor connects in the session's own lifetime, waiting for it as long as ctx lets: a
// caller that stops waiting does not cut off a connection — a first one copies the agent —
// that the next call will use.
func (s *Session) connectFor(ctx context.Context, report func(Status)) (*Client, error) {
	type result struct {
		c   *Client
		err error
	}
	done := make(chan result, 1)
	// The caller hears the states only while it waits: after, they are the next call's.
	var waiting atomic.Bool
	waiting.Store(true)
	go func() {
		c, err := s.client(s.life, func(st Status) {
			if report != nil && waiting.Load() {
				report(st)
			}
		})
		done <- result{c, err}
	}()
	select {
	case r := <-done:
		return r.c, r.err
	case <-ctx.Done():
		waiting.Store(false)
		return nil, ctx.Err()
	}
}
