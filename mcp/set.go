package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Set is one conversation's servers. It starts a server when a request first needs its tools,
// keeps it for the conversation's later requests and calls, restarts it under the other
// policy when the conversation's mode changes, and kills every server's process tree on
// Close (the conversation's actor stopping: closed, passivated or the app quitting).
//
// Tools and Call run on the conversation's worker goroutines (never its mailbox); the mutex
// keeps a late, cancelled worker and the next one apart.
type Set struct {
	hub *Hub
	cwd string

	// forceEnabled narrows a set to one server, enabled or not, for Hub.Check.
	forceEnabled map[string]ServerConfig

	mu         sync.Mutex
	closed     bool
	restricted bool
	// policy names the sandbox policy the running servers started under (policyKey); a
	// change of mode or of the proxy's socket restarts them.
	policy  string
	servers map[string]*server
	// failed remembers a server that could not start under the current mode and
	// configuration (by fingerprint), so that every request does not wait for it again.
	failed map[string]failure
	// lists holds each running server's checked tools until it announces a change.
	lists map[string][]offered
	// routes are the tools offered with the latest request, by the name the model sees.
	routes map[string]offered
	// offeredNoticed is the list of waiting project servers the person was last told of.
	offeredNoticed string
}

type failure struct {
	fingerprint string
	err         error
}

// NewSet returns the servers of a conversation in cwd; nothing starts until Tools is called.
func (h *Hub) NewSet(cwd string) *Set {
	return &Set{hub: h, cwd: cwd, restricted: true, policy: policyKey(tools.Env{}), servers: map[string]*server{},
		failed: map[string]failure{}, lists: map[string][]offered{}, routes: map[string]offered{}}
}

func restrictedMode(env tools.Env) bool { return env.Mode != domain.ModeUnrestricted }

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

// Tools returns the tools of the conversation's servers for one request, starting the servers
// that are not running yet, and the notes the model should read about servers it cannot use
// (a URL server in Restricted mode, one that failed to start). notices are for the person:
// tools skipped for a bad schema, servers that failed; each is returned once per instance.
func (s *Set) Tools(ctx context.Context, env tools.Env) (specs []domain.ToolSpec, modelNotes, notices []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, nil
	}
	restricted := restrictedMode(env)
	s.switchMode(env)
	cfgs, offeredOnly := s.configs()
	for name, srv := range s.servers {
		if c, ok := cfgs[name]; !ok || fingerprint(c) != fingerprint(srv.cfg) {
			s.drop(srv)
		}
	}
	var usable []string
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		if !(cfgs[name].IsURL() && restricted) {
			usable = append(usable, name)
		}
	}
	failedNow := s.startMissing(ctx, usable, cfgs, env)
	routes := map[string]offered{}
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		c := cfgs[name]
		if c.IsURL() && restricted {
			modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s (%s) is %v", name, c.URL, ErrUnreachable))
			s.hub.report(name, func(st *Status) {
				st.State, st.Error, st.Restricted, st.Tools = StateUnreachable, ErrUnreachable.Error(), true, nil
			})
			continue
		}
		srv, fresh, err := s.ensure(ctx, name, c, env)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, nil
			}
			modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s is not available: %s", name, brief(err)))
			if fresh || failedNow[name] {
				notices = append(notices, fmt.Sprintf("The MCP server %s could not start: %v", name, err))
			}
			continue
		}
		list, ok := s.lists[name]
		if !ok || srv.listChanged.Load() {
			raw, err := s.listTools(ctx, srv)
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, nil
				}
				s.drop(srv)
				if errors.Is(err, errListTimedOut) {
					// Remembered like a start that timed out: the next request does not wait again.
					s.failed[name] = failure{fingerprint: fingerprint(c), err: err}
				}
				modelNotes = append(modelNotes, fmt.Sprintf("The MCP server %s is not available: %s", name, brief(err)))
				notices = append(notices, err.Error())
				s.hub.report(name, func(st *Status) { st.State, st.Error = StateFailed, err.Error() })
				continue
			}
			var infos []ToolInfo
			list, infos = convert(name, raw)
			s.lists[name] = list
			for _, info := range infos {
				if info.Skipped != "" {
					notices = append(notices, fmt.Sprintf("The tool %s of the MCP server %s is not offered to the model: %s.", info.ServerTool, name, info.Skipped))
				}
			}
			s.hub.report(name, func(st *Status) {
				st.State, st.Error, st.Restricted, st.Tools = StateRunning, "", srv.restricted, infos
			})
		}
		for _, o := range list {
			routes[o.spec.Name] = o
			specs = append(specs, o.spec)
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

// configs is the servers this set uses.
func (s *Set) configs() (map[string]ServerConfig, []string) {
	if s.forceEnabled != nil {
		return s.forceEnabled, nil
	}
	return s.hub.serversFor(s.cwd)
}

// switchMode stops every server when the conversation's mode (or its proxy) changed since
// they started: an approved upgrade or a downgrade restarts them under the new policy before
// their next use. Called with mu held.
func (s *Set) switchMode(env tools.Env) {
	key := policyKey(env)
	if key == s.policy {
		return
	}
	for _, srv := range s.servers {
		s.drop(srv)
	}
	clear(s.failed)
	s.restricted, s.policy = restrictedMode(env), key
}

// ensure returns the running server of that name, starting it if needed. fresh reports that
// this call made the attempt (so a failure is news). Called with mu held.
func (s *Set) ensure(ctx context.Context, name string, c ServerConfig, env tools.Env) (srv *server, fresh bool, err error) {
	if srv, err, known := s.existing(name, c); known {
		return srv, false, err
	}
	srv, err = s.start(ctx, name, c, env)
	s.record(ctx, name, c, srv, err)
	return srv, true, err
}

// existing returns the running server of that name, or the failure of its last start under
// this mode and configuration; known is false when it has to be started. Called with mu held.
func (s *Set) existing(name string, c ServerConfig) (srv *server, err error, known bool) {
	if srv := s.servers[name]; srv != nil {
		if srv.alive() {
			return srv, nil, true
		}
		s.drop(srv)
	}
	if f, ok := s.failed[name]; ok && f.fingerprint == fingerprint(c) {
		return nil, f.err, true
	}
	return nil, nil, false
}

// start starts one server. It touches none of the set's maps, so several run at once (see
// startMissing); mu is held by the caller throughout.
func (s *Set) start(ctx context.Context, name string, c ServerConfig, env tools.Env) (*server, error) {
	s.hub.report(name, func(st *Status) {
		st.State, st.Error, st.Restricted = StateStarting, "", s.restricted
	})
	startCtx, cancel := context.WithTimeout(ctx, s.hub.opts.StartTimeout)
	defer cancel()
	srv, err := startServer(startCtx, name, c, launch{cwd: env.Cwd, tempDir: env.TempDir, restricted: s.restricted, policy: tools.SandboxPolicy(env)}, s.hub.opts.HTTPClient)
	if err != nil && errors.Is(startCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		err = fmt.Errorf("MCP server %s did not complete its start within %s: %w", name, s.hub.opts.StartTimeout, err)
	}
	if err != nil && s.restricted && !c.IsURL() && ctx.Err() == nil {
		if env.Mode == domain.ModeProject {
			err = fmt.Errorf("%w (it ran in the Project sandbox: only the working tree is writable and the network goes through the proxy to the hosts you allowed)", err)
		} else {
			err = fmt.Errorf("%w (it ran in the Restricted sandbox: no network, a read-only file system; a server that npx or uvx would download must be installed beforehand)", err)
		}
	}
	return srv, err
}

// errListTimedOut marks a server that did not list its tools within the start timeout.
var errListTimedOut = errors.New("timed out")

// listTools lists a server's tools within the start timeout: a server that completed its
// handshake and then never answers tools/list must not keep the request (and the set's
// mutex) waiting forever. Called with mu held.
func (s *Set) listTools(ctx context.Context, srv *server) ([]*sdk.Tool, error) {
	listCtx, cancel := context.WithTimeout(ctx, s.hub.opts.StartTimeout)
	defer cancel()
	raw, err := srv.listTools(listCtx)
	if err != nil && errors.Is(listCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, fmt.Errorf("MCP server %s did not list its tools within %s (%w): check that it answers tools/list, then send again",
			srv.name, s.hub.opts.StartTimeout, errListTimedOut)
	}
	return raw, err
}

// record notes the outcome of a start. Called with mu held.
func (s *Set) record(ctx context.Context, name string, c ServerConfig, srv *server, err error) {
	if err != nil {
		if ctx.Err() == nil {
			s.failed[name] = failure{fingerprint: fingerprint(c), err: err}
		}
		s.hub.report(name, func(st *Status) {
			st.State, st.Error, st.stderr = StateFailed, err.Error(), nil
			if srv != nil {
				st.stderr = srv.stderr
			}
		})
		return
	}
	delete(s.failed, name)
	delete(s.lists, name)
	s.servers[name] = srv
	s.hub.report(name, func(st *Status) { st.Running++; st.stderr = srv.stderr })
}

// startMissing starts every server of names that is not running, all at once, so that a
// request waits for the slowest server rather than for the sum of them. It returns the names
// whose start failed just now. Called with mu held.
func (s *Set) startMissing(ctx context.Context, names []string, cfgs map[string]ServerConfig, env tools.Env) map[string]bool {
	type outcome struct {
		name string
		srv  *server
		err  error
	}
	var todo []string
	for _, name := range names {
		if _, _, known := s.existing(name, cfgs[name]); !known {
			todo = append(todo, name)
		}
	}
	results := make(chan outcome, len(todo))
	for _, name := range todo {
		go func() {
			srv, err := s.start(ctx, name, cfgs[name], env)
			results <- outcome{name, srv, err}
		}()
	}
	failed := map[string]bool{}
	for range todo {
		o := <-results
		s.record(ctx, o.name, cfgs[o.name], o.srv, o.err)
		failed[o.name] = o.err != nil
	}
	return failed
}

// drop stops a server and forgets it. Called with mu held.
func (s *Set) drop(srv *server) {
	if s.servers[srv.name] == srv {
		delete(s.servers, srv.name)
		delete(s.lists, srv.name)
		s.hub.report(srv.name, func(st *Status) {
			st.Running = max(st.Running-1, 0)
			if st.Running == 0 && st.State == StateRunning {
				st.State = StateStopped
			}
		})
	}
	srv.close()
}

// Call runs one MCP tool call of the conversation: the arguments are checked against the
// tool's schema, the server is (re)started under the conversation's current mode if needed,
// and the answer becomes the tool's output. Cancelling ctx (Stop) cancels the request through
// the SDK and kills the server's process tree; it starts again when next needed.
func (s *Set) Call(ctx context.Context, env tools.Env, call domain.ToolCall, onProgress func(Progress)) tools.Output {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errorOutput("The conversation's MCP servers were stopped; %s was not run.", call.Name)
	}
	route, ok := s.routes[call.Name]
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
	srv, _, err := s.ensure(ctx, route.server, c, env)
	s.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return cancelledOutput("Cancelled while the MCP server " + route.server + " was starting.")
		}
		return errorOutput("The MCP server %s could not start, so %s was not called: %v", route.server, call.Name, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, s.hub.opts.CallTimeout)
	defer cancel()
	res, err := srv.call(callCtx, route.tool, []byte(call.Arguments), onProgress)
	switch {
	case ctx.Err() != nil:
		s.stop(srv)
		return cancelledOutput(fmt.Sprintf("Cancelled by the user. The MCP server %s was stopped (it starts again when next needed).", route.server))
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		s.stop(srv)
		return errorOutput("The MCP server %s did not answer %s within %s; it was stopped and starts again when next needed.", route.server, route.tool, s.hub.opts.CallTimeout)
	case err != nil && !isServerError(err):
		// The connection ended under the call: the server crashed or closed its stdout.
		s.stop(srv)
		err = srv.describe(err)
		s.hub.report(route.server, func(st *Status) { st.State, st.Error = StateFailed, err.Error() })
		return errorOutput("The MCP server %s stopped during the call of %s: %v. It starts again when next needed.", route.server, route.tool, err)
	case err != nil:
		return errorOutput("The MCP server %s answered the call of %s with an error: %v", route.server, route.tool, err)
	}
	return toOutput(route.server, route.tool, res, env.ImageLimits)
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
	defer s.mu.Unlock()
	s.closed = true
	for _, srv := range s.servers {
		s.drop(srv)
	}
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
