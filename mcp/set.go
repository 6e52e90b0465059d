package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

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

// launch starts one server in the background. Called with mu held.
func (s *Set) launch(name string, c ServerConfig) *entry {
	ctx, cancel := context.WithCancel(s.ctx)
	e := &entry{name: name, fp: fingerprint(c), gen: s.hub.retryGen(name), restricted: s.restricted,
		state: entryStarting, done: make(chan struct{}), cancel: cancel}
	s.entries[name] = e
	env := s.env
	s.hub.report(name, func(st *Status) {
		st.State, st.Error, st.Restricted = StateStarting, "", e.restricted
	})
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		srv, list, infos, err := s.bringUp(ctx, name, c, env, e.restricted)
		s.mu.Lock()
		defer s.mu.Unlock()
		defer close(e.done)
		if s.entries[name] != e {
			// Dropped while it started: the set closed, or the mode or configuration changed.
			if srv != nil {
				srv.close()
			}
			return
		}
		if err != nil {
			e.state, e.err = entryFailed, err
			e.notices = append(e.notices, fmt.Sprintf("The MCP server %s could not start: %v", name, err))
			s.hub.report(name, func(st *Status) {
				st.State, st.Error, st.stderr = failedState(err), err.Error(), nil
				if srv != nil {
					st.stderr = srv.stderr
				}
			})
			if srv != nil {
				srv.close()
			}
			return
		}
		e.state, e.srv, e.list = entryReady, srv, list
		e.notices = append(e.notices, skippedNotices(name, infos)...)
		s.hub.report(name, func(st *Status) {
			st.State, st.Error, st.Restricted, st.Tools = StateRunning, "", srv.restricted, infos
			st.Running++
			st.stderr = srv.stderr
		})
	}()
	return e
}

func skippedNotices(name string, infos []ToolInfo) []string {
	var out []string
	for _, info := range infos {
		if info.Skipped != "" {
			out = append(out, fmt.Sprintf("The tool %s of the MCP server %s is not offered to the model: %s.", info.ServerTool, name, info.Skipped))
		}
	}
	return out
}

// bringUp starts one server and lists its tools, each step within the server's start
// timeout. A failed start returns the dead server, if there was one, for its stderr.
func (s *Set) bringUp(ctx context.Context, name string, c ServerConfig, env tools.Env, restricted bool) (*server, []offered, []ToolInfo, error) {
	timeout, _ := c.timeouts(s.hub.opts.StartTimeout, s.hub.opts.CallTimeout)
	rc, err := c.resolved(name, env.Cwd, s.hub.opts.LookupEnv)
	if err != nil {
		return nil, nil, nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	srv, err := startServer(startCtx, name, rc, launch{cwd: env.Cwd, tempDir: env.TempDir, restricted: restricted, policy: tools.SandboxPolicy(env)}, s.hub.opts.HTTPClient, s.elicitFunc(), s.hub.storedAuth(rc.URL))
	if err != nil {
		return srv, nil, nil, explainStart(ctx, startCtx, name, timeout, srv, err, restricted && !c.IsURL())
	}
	listCtx, cancelList := context.WithTimeout(ctx, timeout)
	defer cancelList()
	raw, err := srv.listTools(listCtx)
	if err != nil {
		srv.close()
		if srv.auth.needs() {
			return nil, nil, nil, needsSignInError(name, srv.cfg)
		}
		if errors.Is(listCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("MCP server %s did not list its tools within %s (%w): check that it answers tools/list, or raise its \"timeout\", then retry it in Settings",
				name, timeout, errListTimedOut)
		}
		return nil, nil, nil, err
	}
	list, infos := convert(name, raw)
	if reader, ok := readerTool(listCtx, srv, list); ok {
		list = append(list, reader)
	}
	return srv, list, infos, nil
}

// errListTimedOut marks a server that did not list its tools within its start timeout.
var errListTimedOut = errors.New("timed out")

// explainStart says why a start failed: a server that never answered is reported as such
// (with whatever it wrote on stderr), a server that exited with its exit status and stderr,
// and the Restricted sandbox is named only when the server's own words point at it.
func explainStart(ctx, startCtx context.Context, name string, timeout time.Duration, srv *server, err error, sandboxed bool) error {
	if ctx.Err() != nil {
		return err
	}
	exited := srv != nil && srv.cmd != nil && exitNote(srv.cmd.Process) != ""
	if errors.Is(startCtx.Err(), context.DeadlineExceeded) && !exited {
		err = fmt.Errorf("MCP server %s did not answer within %s: it was started but never completed the MCP handshake (check that the command is an MCP server that speaks over stdin and stdout; a first npx download can take longer: raise its \"timeout\")", name, timeout)
		if srv != nil {
			err = srv.describe(err)
		}
		return err
	}
	if sandboxed && srv != nil && sandboxLikely(srv.stderr.String()) {
		err = fmt.Errorf("%w\nThe Restricted sandbox is the likely cause (no network, a read-only file system): a server that npx or uvx would download must be installed beforehand, or approve write access so that it runs Unrestricted", err)
	}
	return err
}

// sandboxWords are what a program writes when the Restricted sandbox refused it something.
var sandboxWords = []string{"permission denied", "eacces", "read-only file system", "erofs", "operation not permitted",
	"eperm", "enotcached", "enotfound", "eai_again", "network is unreachable", "getaddrinfo", "enetunreach"}

func sandboxLikely(stderr string) bool {
	lower := strings.ToLower(stderr)
	return slices.ContainsFunc(sandboxWords, func(w string) bool { return strings.Contains(lower, w) })
}

// relist lists a ready server's tools again after its tools/list_changed notification, in
// the background; the old list stays offered meanwhile. Called with mu held.
func (s *Set) relist(e *entry) {
	done := make(chan struct{})
	e.relisting = done
	srv := e.srv
	timeout, _ := srv.cfg.timeouts(s.hub.opts.StartTimeout, s.hub.opts.CallTimeout)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(done)
		ctx, cancel := context.WithTimeout(s.ctx, timeout)
		raw, err := srv.listTools(ctx)
		cancel()
		s.mu.Lock()
		defer s.mu.Unlock()
		e.relisting = nil
		if s.entries[e.name] != e || e.srv != srv {
			return
		}
		if err != nil {
			e.notices = append(e.notices, fmt.Sprintf("The MCP server %s changed its tools but could not list them again (%v); its earlier tools stay offered.", e.name, err))
			return
		}
		var infos []ToolInfo
		list, infos := convert(e.name, raw)
		for _, o := range e.list {
			if o.reader {
				list = append(list, o)
			}
		}
		e.list = list
		e.notices = append(e.notices, skippedNotices(e.name, infos)...)
		s.hub.report(e.name, func(st *Status) { st.Tools = infos })
	}()
}

// dropEntry stops a server (or its start) and forgets it. Called with mu held.
func (s *Set) dropEntry(e *entry) {
	if s.entries[e.name] == e {
		delete(s.entries, e.name)
	}
	e.cancel()
	if e.state == entryReady {
		e.state = entryFailed
		e.err = errors.New("stopped")
		s.hub.report(e.name, func(st *Status) {
			st.Running = max(st.Running-1, 0)
			if st.Running == 0 && st.State == StateRunning {
				st.State = StateStopped
			}
		})
		e.srv.close()
	}
}

// drop stops a running server and forgets it. Called with mu held.
func (s *Set) drop(srv *server) {
	if e := s.entries[srv.name]; e != nil && e.srv == srv {
		s.dropEntry(e)
		return
	}
	srv.close()
}

// ready returns the running server of that name, starting it if needed and waiting for its
// start (a call needs it), or the error of its start. Called with mu held; returns with mu
// released.
func (s *Set) ready(ctx context.Context, name string, c ServerConfig) (*server, error) {
	for range 3 {
		if s.closed {
			s.mu.Unlock()
			return nil, errors.New("the conversation's MCP servers were stopped")
		}
		e := s.current(name)
		if e == nil {
			e = s.launch(name, c)
		}
		switch e.state {
		case entryReady:
			s.mu.Unlock()
			return e.srv, nil
		case entryFailed:
			s.mu.Unlock()
			return nil, e.err
		}
		s.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		if s.entries[name] == e {
			continue // settled: the next round returns it
		}
	}
	s.mu.Unlock()
	return nil, fmt.Errorf("MCP server %s was restarted while it started (the mode or its configuration changed): send again", name)
}

// awaitTools waits until a server that was still starting at the latest request has settled,
// and returns the route of one of its tools. Called with mu held; returns with it held.
func (s *Set) awaitTools(ctx context.Context, name, tool string) (offered, bool) {
	e := s.entries[name]
	if e == nil {
		return offered{}, false
	}
	if e.state == entryStarting {
		s.mu.Unlock()
		select {
		case <-e.done:
		case <-ctx.Done():
		}
		s.mu.Lock()
	}
	if s.entries[name] != e || e.state != entryReady {
		return offered{}, false
	}
	for _, o := range e.list {
		if o.spec.Name == tool {
			s.routes[tool] = o
			return o, true
		}
	}
	return offered{}, false
}

// WaitStarted waits until no server of the set is starting, or ctx ends: for a check of a
// server (Hub.Check) and for benchmarks, never for a model request.
func (s *Set) WaitStarted(ctx context.Context) {
	s.mu.Lock()
	var waits []chan struct{}
	for _, e := range s.entries {
		if e.state == entryStarting {
			waits = append(waits, e.done)
		}
	}
	s.mu.Unlock()
	for _, w := range waits {
		select {
		case <-w:
		case <-ctx.Done():
			return
		}
	}
}

// serverOf is the server part of an mcp__SERVER__TOOL name.
func serverOf(toolName string) string {
	rest, _ := strings.CutPrefix(toolName, domain.MCPToolPrefix)
	server, _, _ := strings.Cut(rest, "__")
	return server
}

// Call runs one MCP tool call of the conversation: the arguments are checked against the
// tool's schema, the server is (re)started under the conversation's current mode if needed
// (the call waits for that start; Stop ends the wait), and the answer becomes the tool's
// output. Cancelling ctx (Stop) cancels the request through the SDK and kills the server's
// process tree; it starts again when next needed.
func (s *Set) Call(ctx context.Context, env tools.Env, call domain.ToolCall, onProgress func(Progress)) tools.Output {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errorOutput("The conversation's MCP servers were stopped; %s was not run.", call.Name)
	}
	route, ok := s.routes[call.Name]
	if !ok && s.waitable[serverOf(call.Name)] {
		route, ok = s.awaitTools(ctx, serverOf(call.Name), call.Name)
		if !ok && ctx.Err() != nil {
			s.mu.Unlock()
			return cancelledOutput("Cancelled while the MCP server " + serverOf(call.Name) + " was starting.")
		}
	}
	if !ok {
		names := slices.Sorted(maps.Keys(s.routes))
		s.mu.Unlock()
		if len(names) == 0 {
			return errorOutput("There is no MCP tool named %q in this conversation: no MCP server offers tools here now.", call.Name)
		}
		return errorOutput("There is no MCP tool named %q in this conversation. The MCP tools are: %s.", call.Name, strings.Join(names, ", "))
	}
	if err := route.checkArgs(call.Arguments); err != nil {
		s.mu.Unlock()
		return errorOutput("The arguments of %s do not match its input schema, so it was not called: %v", call.Name, err)
	}
	s.callCtx = ctx
	defer func() {
		s.mu.Lock()
		if s.callCtx == ctx {
			s.callCtx = nil
		}
		s.mu.Unlock()
	}()
	if route.destructive && restrictedMode(env) {
		asker := s.asker
		s.mu.Unlock()
		if out, ok := s.confirm(ctx, asker, route, call); !ok {
			return out
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return errorOutput("The conversation's MCP servers were stopped; %s was not run.", call.Name)
		}
	}
	s.env = env
	restricted := restrictedMode(env)
	s.switchMode(env)
	cfgs, _ := s.configs()
	c, ok := cfgs[route.server]
	if !ok {
		s.mu.Unlock()
		return errorOutput("The MCP server %s was removed or disabled in Settings; %s was not called.", route.server, call.Name)
	}
	if c.IsURL() && restricted {
		s.mu.Unlock()
		return errorOutput("The MCP server %s is %v", route.server, ErrUnreachable)
	}
	srv, err := s.ready(ctx, route.server, c)
	if err != nil {
		if ctx.Err() != nil {
			return cancelledOutput("Cancelled while the MCP server " + route.server + " was starting.")
		}
		return errorOutput("The MCP server %s could not start, so %s was not called: %v", route.server, call.Name, err)
	}
	_, callTimeout := c.timeouts(s.hub.opts.StartTimeout, s.hub.opts.CallTimeout)
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res *sdk.CallToolResult
	var readOut tools.Output
	if route.reader {
		readOut, err = readResource(callCtx, srv, call.Arguments)
	} else {
		res, err = srv.call(callCtx, route.tool, []byte(call.Arguments), onProgress)
	}
	switch {
	case ctx.Err() != nil:
		s.stop(srv)
		return cancelledOutput(fmt.Sprintf("Cancelled by the user. The MCP server %s was stopped (it starts again when next needed).", route.server))
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		s.stop(srv)
		return errorOutput("The MCP server %s did not answer %s within %s; it was stopped and starts again when next needed.", route.server, route.tool, callTimeout)
	case err != nil && srv.auth.needs():
		s.stop(srv)
		err = needsSignInError(route.server, srv.cfg)
		s.hub.report(route.server, func(st *Status) { st.State, st.Error = StateNeedsSignIn, err.Error() })
		return errorOutput("%s was not called: %v", call.Name, err)
	case err != nil && !isServerError(err):
		// The connection ended under the call: the server crashed or closed its stdout.
		s.stop(srv)
		err = srv.describe(err)
		s.hub.report(route.server, func(st *Status) { st.State, st.Error = StateFailed, err.Error() })
		return errorOutput("The MCP server %s stopped during the call of %s: %v. It starts again when next needed.", route.server, route.tool, err)
	case err != nil:
		return errorOutput("The MCP server %s answered the call of %s with an error: %v", route.server, route.tool, err)
	}
	if route.reader {
		return readOut
	}
	out := toOutput(route.server, route.tool, res, env.ImageLimits)
	if srv.hasResources() && strings.Contains(out.Content, "[resource link: ") {
		out.Content += fmt.Sprintf("\n(Open a linked resource with %s.)", ToolName(route.server, ReadResourceTool))
	}
	return out
}

// confirm asks the person before a tool its server marks destructive runs outside
// Unrestricted mode, unless they always allowed it (or a headless run's --mcp-allow-tools
// names it). ok is false when the call must not run; out then says why.
func (s *Set) confirm(ctx context.Context, asker Asker, route offered, call domain.ToolCall) (out tools.Output, ok bool) {
	if s.hub.ToolAllowed(route.server, route.tool) {
		return tools.Output{}, true
	}
	if asker == nil {
		return errorOutput("%s", DeniedText(route.server, route.tool,
			fmt.Sprintf("nobody can be asked here, so it is denied (a headless run allows it with %s=%s/%s)", AllowToolsFlag, route.server, route.tool))), false
	}
	dec, err := asker.ConfirmTool(ctx, ToolConfirmation{Server: route.server, Tool: route.tool, Arguments: call.Arguments})
	switch {
	case ctx.Err() != nil:
		return cancelledOutput(fmt.Sprintf("Cancelled while the person was asked whether %s of the MCP server %s may run; it did not run.", route.tool, route.server)), false
	case err != nil:
		return errorOutput("%s", DeniedText(route.server, route.tool, "the person could not be asked ("+err.Error()+")")), false
	case dec == ToolDeny:
		return errorOutput("%s", DeniedText(route.server, route.tool, "they denied it")), false
	case dec == ToolAlwaysAllow:
		// A failed save still allows it for this session; the person learns why on the card.
		_ = s.hub.AllowTool(route.server, route.tool)
	}
	return tools.Output{}, true
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

// isServerError reports whether err is the server's own JSON-RPC error answer (the server is
// fine and said no), as opposed to the connection failing.
func isServerError(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire)
}

// brief is an error on one line, cut to a length that suits the system prompt.
func brief(err error) string {
	r := []rune(oneLine(err.Error()))
	if len(r) > 300 {
		return string(r[:299]) + "…"
	}
	return string(r)
}
