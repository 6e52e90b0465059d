package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/tools"
)

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
	srv, err := startServer(startCtx, name, rc, launch{cwd: env.Cwd, tempDir: env.TempDir, restricted: restricted, policy: tools.SandboxPolicy(env), elsewhere: s.elsewhere, mode: env.Mode}, s.hub.opts.HTTPClient, s.elicitFunc(), s.hub.storedAuth(rc.URL))
	if err != nil {
		return srv, nil, nil, explainStart(ctx, startCtx, name, timeout, srv, err, restricted && !c.IsURL())
	}
	listCtx, cancelList := context.WithTimeout(ctx, timeout)
	defer cancelList()
	raw, err := srv.listTools(listCtx)
	if err != nil {
		srv.close()
		if srv.auth.failed() {
			return nil, nil, nil, srv.auth.failure(name, srv.cfg)
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
