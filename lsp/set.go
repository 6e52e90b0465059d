package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/hostexec"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Default timeouts: starting a server (up to its answer to initialize), and one question or
// one wait for diagnostics after an edit.
const (
	DefaultStartTimeout   = 30 * time.Second
	DefaultRequestTimeout = 10 * time.Second
)

// Options configure a Set.
type Options struct {
	// Specs are the servers to use; nil is Known.
	Specs []Spec
	// StartTimeout and RequestTimeout default to DefaultStartTimeout and
	// DefaultRequestTimeout.
	StartTimeout, RequestTimeout time.Duration
	// OnChange, when set, is called (on no particular goroutine, never under a lock) after
	// a server's state changed.
	OnChange func()
}

// State is a server's state in a conversation.
type State string

const (
	StateStarting State = "starting"
	StateRunning  State = "running"
	// StateDown is a server that could not start, did not answer in time or died; it is not
	// started again in the conversation.
	StateDown State = "down"
)

// Status is one server as the header shows it.
type Status struct {
	Name   string
	State  State
	Reason string
	// PID is the server's supervisor's process id while it runs.
	PID int
}

// Set is a conversation's language servers.
type Set struct {
	opts Options

	mu      sync.Mutex
	servers map[string]*entry // by Spec.Name
	closed  bool

	// offer is an ending of the project's files a server serves (Offered), found once.
	offerOnce sync.Once
	offer     string
	// found caches where each server's program is (or why it is not), looked up once per
	// conversation: Offered asks before every model request.
	found map[string]lookup
	// closing counts the servers being killed after they went down; Close waits for them.
	closing sync.WaitGroup
}

type lookup struct {
	path string
	err  error
}

type entry struct {
	spec   Spec
	policy string
	// ready is closed when the start has finished, one way or the other.
	ready  chan struct{}
	c      *client
	err    error
	status State
}

// NewSet returns a conversation's set; it starts nothing.
func NewSet(opts Options) *Set {
	if opts.Specs == nil {
		opts.Specs = Known
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	return &Set{opts: opts, servers: map[string]*entry{}}
}

// ErrNoServer says that no language server serves a file.
var ErrNoServer = errors.New("no language server")

// specFor is the server for path: the first of the table that serves its ending and whose
// program is on PATH outside the project. The program's path comes with it.
func (s *Set) specFor(path, cwd string) (Spec, string, error) {
	var why error
	for _, spec := range s.opts.Specs {
		if spec.languageOf(path) == "" {
			continue
		}
		program, err := s.lookPath(spec.Command, cwd)
		if err == nil {
			return spec, program, nil
		}
		if why == nil {
			why = fmt.Errorf("%w for this file: %s, its server, is not installed (not found on PATH)", ErrNoServer, spec.Command)
			if errors.Is(err, hostexec.ErrInTree) {
				why = fmt.Errorf("%w for this file: %v", ErrNoServer, err)
			}
		}
	}
	if why == nil {
		why = fmt.Errorf("%w serves files like %s", ErrNoServer, path)
	}
	return Spec{}, "", why
}

// lookPath is hostexec.LookPath, once per program and tree.
func (s *Set) lookPath(command, cwd string) (string, error) {
	key := command + "\x00" + cwd
	s.mu.Lock()
	l, ok := s.found[key]
	s.mu.Unlock()
	if ok {
		return l.path, l.err
	}
	path, err := hostexec.LookPath(command, cwd)
	s.mu.Lock()
	if s.found == nil {
		s.found = map[string]lookup{}
	}
	s.found[key] = lookup{path, err}
	s.mu.Unlock()
	return path, err
}

// Serves says whether a server for path runs or can start: one is configured for its
// ending, its program is found, and it is not down.
func (s *Set) Serves(path, cwd string) bool {
	spec, _, err := s.specFor(path, cwd)
	if err != nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.servers[spec.Name]
	return !s.closed && (e == nil || e.status != StateDown)
}

// DownError is a server that is down; Fresh says it went down during this call (the one
// turn it may delay).
type DownError struct {
	Name   string
	Reason error
	Fresh  bool
}

func (e *DownError) Error() string {
	return fmt.Sprintf("the language server %s is not available in this conversation: %v", e.Name, e.Reason)
}

func policyKey(env tools.Env) string {
	p := tools.SandboxPolicy(env)
	switch {
	case p.Unrestricted:
		return "unrestricted"
	case p.Project != nil:
		return "project:" + p.Project.Tree + ":" + p.Project.ProxySocket
	}
	return "restricted:" + p.TempDir
}

// server returns the running server for path, starting it on first use (under env's
// policy; a mode change restarts it). It returns ErrNoServer, or a *DownError.
func (s *Set) server(ctx context.Context, env tools.Env, path string) (*client, Spec, error) {
	spec, program, err := s.specFor(path, env.Cwd)
	if err != nil {
		return nil, Spec{}, err
	}
	key := policyKey(env)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, spec, &DownError{Name: spec.Name, Reason: errors.New("the conversation has ended")}
	}
	e := s.servers[spec.Name]
	var stale *client
	if e != nil && e.policy != key && e.status == StateRunning {
		stale, e = e.c, nil
	}
	mine := e == nil
	if mine {
		e = &entry{spec: spec, policy: key, ready: make(chan struct{}), status: StateStarting}
		s.servers[spec.Name] = e
	}
	s.mu.Unlock()
	if stale != nil {
		stale.close()
	}
	if mine {
		s.changed()
		s.startEntry(ctx, e, program, env)
	} else {
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, spec, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.status == StateDown {
		return nil, spec, &DownError{Name: spec.Name, Reason: e.err, Fresh: mine}
	}
	if e.c == nil {
		return nil, spec, ctx.Err()
	}
	return e.c, spec, nil
}

// startEntry starts e's server within the start timeout. A start the caller cancelled (the
// person pressed Stop) leaves no trace: the next call starts it again.
func (s *Set) startEntry(ctx context.Context, e *entry, program string, env tools.Env) {
	startCtx, cancel := context.WithTimeout(ctx, s.opts.StartTimeout)
	c, err := start(startCtx, e.spec, program, env)
	timedOut := errors.Is(startCtx.Err(), context.DeadlineExceeded)
	cancel()
	s.mu.Lock()
	switch {
	case err == nil && s.closed:
		err = errors.New("the conversation has ended")
		e.status, e.err = StateDown, err
	case err == nil:
		e.c, e.status = c, StateRunning
		c.onExit(func() { s.markDown(e, c, c.deadErr()) })
	case ctx.Err() != nil && !timedOut:
		delete(s.servers, e.spec.Name)
	default:
		if timedOut {
			err = fmt.Errorf("it did not answer within %s of starting", s.opts.StartTimeout)
		}
		e.status, e.err = StateDown, err
	}
	s.mu.Unlock()
	close(e.ready)
	if err == nil && c != nil && e.status != StateRunning {
		c.close()
	}
	s.changed()
}

// markDown marks e's server down with reason (if c is still its client) and kills it.
func (s *Set) markDown(e *entry, c *client, reason error) {
	s.mu.Lock()
	if e.c != c || e.status == StateDown {
		s.mu.Unlock()
		return
	}
	e.status, e.err, e.c = StateDown, reason, nil
	s.closing.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.closing.Done()
		c.close()
	}()
	s.changed()
}

// timeout bounds one edit's check or one question: the start timeout until the server has
// answered once (a server loads the project on its first question, which takes as long as a
// start), the request timeout afterwards.
func (s *Set) timeout(c *client) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.warm {
		return s.opts.RequestTimeout
	}
	return s.opts.StartTimeout
}

func (s *Set) changed() {
	if s.opts.OnChange != nil {
		s.opts.OnChange()
	}
}

// Status lists the servers the conversation started, by name.
func (s *Set) Status() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, spec := range s.opts.Specs {
		e := s.servers[spec.Name]
		if e == nil {
			continue
		}
		st := Status{Name: spec.Name, State: e.status}
		if e.err != nil {
			st.Reason = e.err.Error()
		}
		if e.c != nil {
			st.PID = e.c.pid()
		}
		out = append(out, st)
	}
	return out
}

// Close kills every server's process tree and waits until each is reaped. The set starts
// nothing afterwards.
func (s *Set) Close() {
	s.mu.Lock()
	s.closed = true
	var cs []*client
	for _, e := range s.servers {
		if e.c != nil {
			cs = append(cs, e.c)
			e.c = nil
		}
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(c.close)
	}
	wg.Wait()
	s.closing.Wait()
}

// readText reads path for the server, "" with ok false when it does not exist.
func readText(path string) (string, bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}
