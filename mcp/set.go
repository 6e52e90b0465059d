package mcp

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Set is one conversation's servers. Servers start in the background — when the conversation
// opens (Start) or at its first request — and a model request never waits for one: Tools
// returns the tools of the servers that are ready and says which are still starting; a server
// that becomes ready adds its tools from the next request on. A failed start is remembered for
// the conversation (under its mode and configuration) until the person asks for a retry in
// Settings. A changed mode restarts the servers under the other policy, and Close kills every
// server's process tree (the conversation's actor stopping: closed, passivated or the app
// quitting).
//
// Tools and Call run on the conversation's worker goroutines (never its mailbox); mu guards
// the set's maps and is never held while waiting for a server.
type Set struct {
	hub *Hub
	cwd string

	// forceEnabled narrows a set to one server, enabled or not, for Hub.Check.
	forceEnabled map[string]ServerConfig
	// elsewhere starts the stdio servers on the machine of a remote project (StartElsewhere).
	elsewhere Starter

	// ctx is the parent of every background start; Close cancels it and waits for them (wg).
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	restricted bool
	// policy names the sandbox policy the running servers started under (policyKey); a
	// change of mode or of the proxy's socket restarts them.
	policy string
	// env is the latest tool environment (working and temp directory, mode): what a
	// background start uses.
	env     tools.Env
	entries map[string]*entry
	// routes are the tools offered with the latest request, by the name the model sees.
	routes map[string]offered
	// waitable are the servers that were still starting at the latest request: a call of one
	// of their tools (which the model can only have guessed) waits for the start.
	waitable map[string]bool
	// offeredNoticed and invalidNoticed are what the person was last told of waiting project
	// servers and of entries that cannot be used.
	offeredNoticed, invalidNoticed string
	// asker asks the person for the conversation (Ask); nil asks nobody.
	asker Asker
	// callCtx is the context of the call running now (a conversation runs one tool at a
	// time), so that a server's request for input that is not tied to the call's own request
	// still ends with Stop.
	callCtx context.Context
}

type entryState int

const (
	entryStarting entryState = iota
	entryReady
	entryFailed
)

// entry is one server of the set: starting, ready (running, its tools listed) or failed.
type entry struct {
	name       string
	fp         string // fingerprint of the configuration it started with
	gen        int    // the hub's retry generation of the server when it started
	restricted bool
	state      entryState
	srv        *server
	list       []offered
	err        error
	done       chan struct{} // closed when the start has ended
	cancel     context.CancelFunc
	// notices is news for the person (a failed start, tools skipped), handed out once.
	notices []string
	// toldStarting: a request went without its tools; toldReady: the model was told it is
	// ready since.
	toldStarting, toldReady bool
	// relisting is closed when a listing asked for by tools/list_changed has ended.
	relisting chan struct{}
}

// NewSet returns the servers of a conversation in cwd; nothing starts until Start, Tools or
// Call.
func (h *Hub) NewSet(cwd string) *Set {
	ctx, cancel := context.WithCancel(context.Background())
	return &Set{hub: h, cwd: cwd, ctx: ctx, cancel: cancel, restricted: true, policy: policyKey(tools.Env{}),
		entries: map[string]*entry{}, routes: map[string]offered{}, waitable: map[string]bool{}}
}

// Ask sets who asks the person for this set's servers: their requests for input and the
// confirmation of destructive tools. Call it before Start.
func (s *Set) Ask(a Asker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asker = a
}

// elicitFunc is how the set's servers ask for input: through the set's Asker, else the hub's
// Options.Elicit, else nobody (nil: a clear refusal). The wait ends with the running call
// (Stop) and with the set.
func (s *Set) elicitFunc() ElicitFunc {
	s.mu.Lock()
	a := s.asker
	s.mu.Unlock()
	ask := s.hub.opts.Elicit
	if a != nil {
		ask = a.Elicit
	}
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, server string, req Elicitation) (ElicitAnswer, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
		s.mu.Lock()
		if s.callCtx != nil {
			defer context.AfterFunc(s.callCtx, cancel)()
		}
		s.mu.Unlock()
		return ask(ctx, server, req)
	}
}

func restrictedMode(env tools.Env) bool { return env.Mode != domain.ModeUnrestricted }

// Start starts the servers that are not running yet, in the background, and returns at once:
// the conversation's actor calls it when the conversation opens, so that its servers are
// ready by the time the person has typed.
func (s *Set) Start(env tools.Env) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.sync(env)
	}
}

// Tools returns the tools of the conversation's servers that are ready, for one request,
// without waiting for any: servers that are not running start in the background. modelNotes
// are for the system prompt (servers still starting, unreachable, failed or misconfigured);
// notices are for the person (a server that failed, tools skipped for a bad schema, an entry
// of the file that cannot be used), each given once.
func (s *Set) Tools(_ context.Context, env tools.Env) (specs []domain.ToolSpec, modelNotes, notices []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, nil
	}
	cfgs, offeredOnly := s.sync(env)
	modelNotes, notices = s.configNotes()
	routes := map[string]offered{}
	clear(s.waitable)
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		if c.IsURL() && s.restricted {
			modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s (%s) is %v", name, c.URL, ErrUnreachable))
			s.hub.report(name, func(st *Status) {
				st.State, st.Error, st.Restricted, st.Tools = StateUnreachable, ErrUnreachable.Error(), true, nil
			})
			continue
		}
		e := s.entries[name]
		notices = append(notices, e.notices...)
		e.notices = nil
		switch e.state {
		case entryStarting:
			s.waitable[name] = true
			modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s is still starting; its tools are offered from a later request once it is ready.", name))
			if !e.toldStarting {
				e.toldStarting = true
				notices = append(notices, fmt.Sprintf("The MCP server %s is still starting: this request goes without its tools, which come with the next request once it is ready.", name))
			}
		case entryFailed:
			modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s is not available: %s", name, brief(e.err)))
		case entryReady:
			if e.srv.listChanged.Load() && e.relisting == nil {
				s.relist(e)
			}
			if e.toldStarting && !e.toldReady {
				e.toldReady = true
				modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s has finished starting since an earlier request: its tools are offered from this request on.", name))
			}
			for _, o := range e.list {
				routes[o.spec.Name] = o
				specs = append(specs, o.spec)
			}
			if in := strings.TrimSpace(e.srv.instructions); in != "" {
				modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s says how to use it:\n%s", name, capText(in, MaxInstructions)))
			}
		}
	}
	if len(offeredOnly) > 0 {
		list := strings.Join(offeredOnly, ", ")
		modelNotes = append(modelNotes, fmt.Sprintf("The project's %s also offers the MCP servers %s; they start only once the person allows them in Settings.",
			ProjectFileName, list))
		if list != s.offeredNoticed {
			s.offeredNoticed = list
			notices = append(notices, fmt.Sprintf("This project's %s offers the MCP servers %s. They do not start until you allow them in Settings → MCP servers….",
				ProjectFileName, list))
		}
	}
	s.routes = routes
	return specs, modelNotes, notices
}

// configNotes says which entries of the configuration cannot be used: to the model every time
// (so it does not guess at their tools), to the person when the list changes. Called with mu
// held.
func (s *Set) configNotes() (modelNotes, notices []string) {
	if s.forceEnabled != nil {
		return nil, nil
	}
	invalid, notes := s.hub.problems(s.cwd)
	for _, p := range invalid {
		modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s is configured but cannot be used: %s", p.name, p.reason))
	}
	var all []string
	for _, p := range invalid {
		all = append(all, fmt.Sprintf("The MCP server %s in %s is not used: %s", p.name, p.file, p.reason))
	}
	all = append(all, notes...)
	if joined := strings.Join(all, "\n"); joined != s.invalidNoticed {
		s.invalidNoticed = joined
		notices = all
	}
	return modelNotes, notices
}

// configs is the servers this set uses.
func (s *Set) configs() (map[string]ServerConfig, []string) {
	if s.forceEnabled != nil {
		return s.forceEnabled, nil
	}
	if s.elsewhere != nil {
		// The project's own file is on the other machine and is not read (nor approved) here.
		return s.hub.serversFor("")
	}
	return s.hub.serversFor(s.cwd)
}

// sync brings the set in line with the configuration and env: servers whose configuration
// changed or went away stop, a changed mode restarts every server, and each usable server
// that is not running, not starting and not remembered as failed starts in the background.
// Called with mu held.
func (s *Set) sync(env tools.Env) (map[string]ServerConfig, []string) {
	s.env = env
	s.switchMode(env)
	cfgs, offeredOnly := s.configs()
	for name, e := range s.entries {
		if c, ok := cfgs[name]; !ok || fingerprint(c) != e.fp {
			s.dropEntry(e)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		if c.IsURL() && s.restricted {
			continue
		}
		if s.current(name) == nil {
			s.launch(name, c)
		}
	}
	return cfgs, offeredOnly
}

// current is the server's entry unless it has to start (again): none yet, its server died,
// or it failed and the person asked for a retry since. Called with mu held.
func (s *Set) current(name string) *entry {
	e := s.entries[name]
	switch {
	case e == nil:
		return nil
	case e.state == entryReady && !e.srv.alive(),
		e.state == entryFailed && e.gen != s.hub.retryGen(name):
		s.dropEntry(e)
		return nil
	}
	return e
}

// policyKey names the sandbox policy of env (tools.SandboxPolicy) for comparison: its kind
// and, in Project mode, the proxy's socket.
func policyKey(env tools.Env) string {
	p := tools.SandboxPolicy(env)
	switch {
	case p.Unrestricted:
		return "unrestricted"
	case p.Project != nil:
		return "project " + p.Project.ProxySocket
	}
	return "restricted"
}

// switchMode stops every server when the conversation's mode (or its proxy) changed since
// they started: an approved upgrade or a downgrade restarts them under the new policy before
// their next use. Called with mu held.
func (s *Set) switchMode(env tools.Env) {
	key := policyKey(env)
	if key == s.policy {
		return
	}
	for _, e := range s.entries {
		s.dropEntry(e)
	}
	s.restricted, s.policy = restrictedMode(env), key
}

// stop drops a server outside a locked section.
func (s *Set) stop(srv *server) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop(srv)
}

// Close kills every server's process tree and waits until they are gone. The set starts
// nothing afterwards.
func (s *Set) Close() {
	s.mu.Lock()
	s.closed = true
	s.cancel()
	for _, e := range s.entries {
		s.dropEntry(e)
	}
	s.mu.Unlock()
	s.wg.Wait()
}
