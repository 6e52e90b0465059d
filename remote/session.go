package remote

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/tools"
)

// State is where a session's connection is.
type State int

const (
	// Disconnected: no connection yet, or the last one dropped; the next call connects.
	Disconnected State = iota
	// Connecting is the first connection of the session under way.
	Connecting
	// Connected: calls go straight to the agent.
	Connected
	// Reconnecting: the connection dropped and a call is connecting again, with backoff.
	Reconnecting
	// Closed: the session ended; calls are refused.
	Closed
)

// Status is one change of a session's state, for the window's header and status line.
type Status struct {
	Destination string
	State       State
	// Attempt counts the tries of this (re)connection, from 1.
	Attempt int
	// Err is why the last try failed, or why the connection dropped.
	Err error
}

// String is the status in the person's words (one home for them: header, status line, CLI).
func (s Status) String() string {
	switch s.State {
	case Connecting:
		return "Connecting to " + s.Destination + "…"
	case Connected:
		return "Connected to " + s.Destination
	case Reconnecting:
		if s.Attempt > 1 && s.Err != nil {
			return fmt.Sprintf("Reconnecting to %s… (try %d: %v)", s.Destination, s.Attempt, s.Err)
		}
		return "Reconnecting to " + s.Destination + "…"
	case Closed:
		return "Disconnected from " + s.Destination
	}
	if s.Err != nil {
		return "Connection to " + s.Destination + " lost: " + s.Err.Error()
	}
	return "Not connected to " + s.Destination
}

// backoff is the wait before each try of one (re)connection: the first at once, then
// doubling. Its length bounds the tries, so a call never waits forever for a host that is down.
var backoff = []time.Duration{0, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// dialTimeout bounds one try, the copy of the binary included.
const dialTimeout = 60 * time.Second

// ErrSessionClosed is the error of a call on a closed session.
var ErrSessionClosed = errors.New("the remote session is closed")

// Session is the app's one link to a remote host, shared by the conversations there: it
// connects on the first call, and again — with backoff, its state reported — on the first call
// after the connection dropped. A call that was running when it dropped is reported lost, never
// run again behind the person's back.
type Session struct {
	opts     Options
	onStatus func(Status)
	backoff  []time.Duration

	mu      sync.Mutex
	cur     *Client
	dialing chan struct{}
	dropped bool // a connection of this session was lost: the next is a reconnection
	closed  bool
	// life ends with Close: a connection made for no one call in particular (lsp.go).
	life context.Context
	end  context.CancelFunc
	// offered is each conversation's last answer about its language tools (lsp.go).
	offered map[string]bool
}

// NewSession makes a session; nothing connects until the first call. onStatus, when set, hears
// every change of state; it runs on the caller's goroutine and must not block.
func NewSession(opts Options, onStatus func(Status)) *Session {
	if onStatus == nil {
		onStatus = func(Status) {}
	}
	life, end := context.WithCancel(context.Background())
	return &Session{opts: opts, onStatus: onStatus, backoff: backoff, life: life, end: end, offered: map[string]bool{}}
}

// Destination is the host as the person named it.
func (s *Session) Destination() string { return s.opts.Destination }

// Run runs one tool call on the remote host, connecting first when needed; report, when set,
// hears the states of a connection this call makes (the conversation shows "Reconnecting to
// host…"). An error output wrapping ErrConnectionLost means the host could not be reached or
// the connection dropped while the call ran: retryable, and the next call reconnects.
func (s *Session) Run(ctx context.Context, where Call, call domain.ToolCall, report func(Status)) (tools.Output, error) {
	c, err := s.client(ctx, report)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return tools.Output{Outcome: domain.OutcomeCancelled, Content: "Cancelled while connecting to " + s.opts.Destination + "; nothing ran there."}, nil
		case errors.Is(err, ErrSessionClosed):
			return tools.Output{Outcome: domain.OutcomeError, Content: "The connection to " + s.opts.Destination + " is closed; nothing ran there."}, err
		}
		return tools.Output{Outcome: domain.OutcomeError,
			Content: "Could not reach " + s.opts.Destination + ", so nothing ran there: " + err.Error()}, fmt.Errorf("%w: %w", ErrConnectionLost, err)
	}
	out, err := c.Run(ctx, where, call)
	if errors.Is(err, ErrConnectionLost) {
		s.lost(c, err)
	}
	return out, err
}

// Info is what the live connection found on the remote side; ok is false while there is none.
func (s *Session) Info() (Info, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil {
		return Info{}, false
	}
	return s.cur.Info(), true
}

// Connect connects now if the session is not connected (doctor, a conversation opening).
func (s *Session) Connect(ctx context.Context) (Info, error) {
	c, err := s.client(ctx, nil)
	if err != nil {
		return Info{}, err
	}
	return c.Info(), nil
}

// lost forgets a connection that dropped and says so.
func (s *Session) lost(c *Client, err error) {
	s.mu.Lock()
	mine := s.cur == c
	if mine {
		s.cur, s.dropped = nil, true
	}
	s.mu.Unlock()
	if mine {
		c.Close()
		s.onStatus(Status{Destination: s.opts.Destination, State: Disconnected, Err: err})
	}
}

// client returns the live connection, or connects: one try at a time, shared by every caller
// that arrives meanwhile.
func (s *Session) client(ctx context.Context, report func(Status)) (*Client, error) {
	notify := func(st Status) {
		s.onStatus(st)
		if report != nil {
			report(st)
		}
	}
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, ErrSessionClosed
		}
		if c := s.cur; c != nil {
			select {
			case <-c.Lost():
				s.cur, s.dropped = nil, true
				s.mu.Unlock()
				c.Close()
				continue
			default:
				s.mu.Unlock()
				return c, nil
			}
		}
		if ch := s.dialing; ch != nil {
			s.mu.Unlock()
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		ch := make(chan struct{})
		s.dialing = ch
		again := s.dropped
		s.mu.Unlock()

		// Close ends a connection being made too: its ssh, with a master connection it may
		// have started, must not outlive the session (Close waits for it, then ends the
		// master).
		dialCtx, cancelDial := context.WithCancel(ctx)
		stopOnClose := context.AfterFunc(s.life, cancelDial)
		c, err := s.dialWithBackoff(dialCtx, again, notify)
		stopOnClose()
		cancelDial()

		s.mu.Lock()
		s.dialing = nil
		close(ch)
		if s.closed {
			s.mu.Unlock()
			if err == nil {
				c.Close()
			}
			return nil, ErrSessionClosed
		}
		if err == nil {
			s.cur, s.dropped = c, false
		}
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
		notify(Status{Destination: s.opts.Destination, State: Connected})
		return c, nil
	}
}

// dialWithBackoff tries to connect as many times as backoff says, waiting between tries.
func (s *Session) dialWithBackoff(ctx context.Context, again bool, notify func(Status)) (*Client, error) {
	state := Connecting
	if again {
		state = Reconnecting
	}
	var last error
	for i, wait := range s.backoff {
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			}
		}
		notify(Status{Destination: s.opts.Destination, State: state, Attempt: i + 1, Err: last})
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		c, err := Dial(dctx, s.opts)
		cancel()
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		last = err
	}
	notify(Status{Destination: s.opts.Destination, State: Disconnected, Attempt: len(s.backoff), Err: last})
	return nil, fmt.Errorf("%w (tried %d times)", last, len(s.backoff))
}

// Close ends the session and its connection; the agent there stops what it runs.
func (s *Session) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	c, dialing := s.cur, s.dialing
	s.cur = nil
	s.mu.Unlock()
	s.end()
	if c != nil {
		c.Close()
	}
	if dialing != nil {
		// A connection being made is ended by s.end; its ssh may have started a master
		// connection, which EndMaster can end only once it is there.
		t := time.NewTimer(closeWait)
		select {
		case <-dialing:
		case <-t.C:
		}
		t.Stop()
	}
	// The person is done with the host: its master connection goes too, not in five minutes.
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	EndMaster(ctx, s.opts)
	s.onStatus(Status{Destination: s.opts.Destination, State: Closed})
}

// Hosts keeps one Session per host for the app: the conversations on a host share it.
type Hosts struct {
	// ConfigFile, when set, replaces the person's ~/.ssh/config for every host (ssh -F).
	ConfigFile string
	// Ask shows the person the card about a host a Project-mode command there wants to reach
	// (Options.Ask); nil refuses every host a project does not allow.
	Ask proxy.Asker

	mu       sync.Mutex
	sessions map[string]*Session
	closed   bool
}

// Session returns the host's session, made on first use; nil once Close ran.
func (h *Hosts) Session(dest string) *Session {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	if h.sessions == nil {
		h.sessions = map[string]*Session{}
	}
	s, ok := h.sessions[dest]
	if !ok {
		s = NewSession(Options{Destination: dest, ConfigFile: h.ConfigFile, Ask: h.Ask}, nil)
		h.sessions[dest] = s
	}
	return s
}

// Close ends every session: the agents stop what they run, the master connections end.
func (h *Hosts) Close() {
	h.mu.Lock()
	h.closed = true
	all := h.sessions
	h.sessions = nil
	h.mu.Unlock()
	for _, s := range all {
		s.Close()
	}
}

// Forget ends the host's session, if any, and removes the copies of Phoenix's agent there
// (Forget); a later call to the host makes a new session, which copies the agent again.
func (h *Hosts) Forget(ctx context.Context, dest string) error {
	h.mu.Lock()
	s := h.sessions[dest]
	delete(h.sessions, dest)
	h.mu.Unlock()
	if s != nil {
		s.Close()
	}
	return Forget(ctx, Options{Destination: dest, ConfigFile: h.ConfigFile})
}
