package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"pgregory.net/rapid"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The Stop-first tests hold results in a conversation's mailbox on purpose: a store whose
// SetArchived blocks keeps the actor busy, a mailbox that reports every queued message tells
// when a result is waiting behind it, and a tool runner that holds each call until released
// says which tools ever started.

// tb is what the helpers need of a test: *testing.T and *rapid.T both have it.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// postedMailbox is protoactor's default mailbox, reporting each user message once it is queued.
type postedMailbox struct {
	actor.Mailbox
	posted func(msg any)
}

func (m *postedMailbox) PostUserMessage(msg any) {
	m.Mailbox.PostUserMessage(msg)
	m.posted(actor.UnwrapEnvelopeMessage(msg))
}

// mailboxWatch collects the messages queued for conversation actors.
type mailboxWatch struct {
	mu     sync.Mutex
	msgs   []any
	signal chan struct{}
}

func newMailboxWatch() *mailboxWatch { return &mailboxWatch{signal: make(chan struct{}, 1)} }

func (w *mailboxWatch) producer() actor.MailboxProducer {
	return func() actor.Mailbox {
		return &postedMailbox{Mailbox: actor.Unbounded()(), posted: func(msg any) {
			w.mu.Lock()
			w.msgs = append(w.msgs, msg)
			w.mu.Unlock()
			select {
			case w.signal <- struct{}{}:
			default:
			}
		}}
	}
}

// waitQueued waits until a message matching ok has been queued, and forgets that one.
func (w *mailboxWatch) waitQueued(t tb, what string, ok func(any) bool) {
	t.Helper()
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		w.mu.Lock()
		for i, m := range w.msgs {
			if ok(m) {
				w.msgs = append(w.msgs[:i], w.msgs[i+1:]...)
				w.mu.Unlock()
				return
			}
		}
		w.mu.Unlock()
		select {
		case <-w.signal:
		case <-timeout.C:
			t.Fatalf("timed out waiting for %s to be queued", what)
		}
	}
}

// holdStore blocks one SetArchived, once armed, until released: the conversation actor that
// runs it is busy meanwhile, and messages for it wait in its mailbox.
type holdStore struct {
	Store
	armed   atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (s *holdStore) SetArchived(id string, archived bool) error {
	if s.armed.CompareAndSwap(true, false) {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.Store.SetArchived(id, archived)
}

// heldTools runs each call through the real tools once the test releases it (or the call is
// cancelled), and records every call it was asked to run.
type heldTools struct {
	inner   ToolRunner
	started chan domain.ToolCall
	release chan struct{}
	mu      sync.Mutex
	ran     []string
}

func newHeldTools() *heldTools {
	return &heldTools{inner: tools.NewRegistry(), started: make(chan domain.ToolCall, 64), release: make(chan struct{}, 64)}
}

func (h *heldTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	h.mu.Lock()
	h.ran = append(h.ran, call.ID)
	h.mu.Unlock()
	h.started <- call
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	return h.inner.Run(ctx, env, call)
}

func (h *heldTools) runs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.ran...)
}

func (h *heldTools) waitStarted(t tb) domain.ToolCall {
	t.Helper()
	select {
	case c := <-h.started:
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no tool started")
		return domain.ToolCall{}
	}
}

type stopFixture struct {
	h     *harness
	tools *heldTools
	store *holdStore
	watch *mailboxWatch
}

func newStopFixture(t testing.TB) *stopFixture {
	f := &stopFixture{tools: newHeldTools(), watch: newMailboxWatch(),
		store: &holdStore{entered: make(chan struct{}, 1), release: make(chan struct{})}}
	f.h = newHarness(t, withTools(f.tools), func(c *Config) {
		f.store.Store, c.Store = c.Store, f.store
		c.mailbox = f.watch.producer()
	})
	return f
}

// hold makes the conversation's actor busy until the returned function is called.
func (f *stopFixture) hold(t tb, id string) (release func()) {
	t.Helper()
	f.store.release = make(chan struct{})
	f.store.armed.Store(true)
	done := make(chan error, 1)
	go func() { done <- f.h.rt.SetArchived(context.Background(), id, false) }()
	select {
	case <-f.store.entered:
	case <-time.After(20 * time.Second):
		t.Fatal("the actor never reached the held SetArchived")
	}
	return func() {
		close(f.store.release)
		if err := <-done; err != nil {
			t.Errorf("held SetArchived: %v", err)
		}
	}
}

// queuedToolDone matches the result of one execution entering the mailbox.
func queuedToolDone(exec domain.ExecID) func(any) bool {
	return func(m any) bool { d, ok := m.(toolDone); return ok && d.Exec == exec }
}

func queuedStop(m any) bool { _, ok := m.(cmdStop); return ok }

// REQ-BED-005 ("process cancel with higher priority than operation completion"), orchestration
// items 12–15: a tool result is waiting in the conversation's mailbox when the person presses
// Stop. The Stop is applied first, so the next tool never starts: no process (its marker file
// never appears), no ExecuteTool (the tool runner never sees it, and the history answers it
// as skipped, which only happens to a call that was never started). A second Stop meanwhile
// answers "already stopping", and a Stop at rest "nothing to stop".
func TestStopGoesBeforeAQueuedToolResult_REQ_BED_005(t *testing.T) {
	t.Parallel()
	f := newStopFixture(t)
	h := f.h
	c := h.create(NewConversation{})
	marker := filepath.Join(h.cwd, "second-tool-ran")
	h.send(c.ID, "bash: echo first ;; bash: touch "+marker)
	first := f.tools.waitStarted(t)
	exec := h.waitState(c.ID, domain.StateToolExecuting).State.(domain.ToolExecuting).Exec

	release := f.hold(t, c.ID)
	f.tools.release <- struct{}{} // the first tool finishes; its result queues behind the hold
	f.watch.waitQueued(t, "the first tool's result", queuedToolDone(exec))
	stopped := make(chan error, 1)
	go func() { stopped <- h.rt.Cancel(context.Background(), c.ID) }()
	f.watch.waitQueued(t, "the Stop", queuedStop)
	if err := h.rt.Cancel(context.Background(), c.ID); !errors.Is(err, ErrAlreadyStopping) {
		t.Fatalf("a second Stop while the first is handled = %v; want ErrAlreadyStopping", err)
	}
	release()
	if err := <-stopped; err != nil {
		t.Fatalf("Stop = %v", err)
	}

	end := h.waitRest(c.ID)
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s; want idle", end.State.Kind())
	}
	if runs := f.tools.runs(); len(runs) != 1 || runs[0] != first.ID {
		t.Fatalf("the tool runner was asked to run %v; want only %s", runs, first.ID)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the second tool ran: %s exists (%v)", marker, err)
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeCancelled || res[1].Outcome != domain.OutcomeSkipped {
		t.Fatalf("results = %+v; want the first cancelled (Stop wins over its late success) and the second skipped", res)
	}
	if err := h.rt.Cancel(context.Background(), c.ID); !errors.Is(err, domain.ErrNothingToStop) {
		t.Fatalf("Stop at rest = %v; want ErrNothingToStop", err)
	}
}

// For any interleaving of a tool's result and Stop — Stop while the tool still runs, Stop
// before or after the result queues behind a busy actor, after any number of earlier tools of
// the round — no tool starts after Stop, the conversation rests, and its history is valid.
func TestProperty_REQ_BED_005_NoToolStartsAfterStop(t *testing.T) {
	t.Parallel()
	f := newStopFixture(t)
	h := f.h
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(2, 4).Draw(rt, "calls")
		k := rapid.IntRange(0, n-2).Draw(rt, "runningCall") // calls before it completed normally
		order := rapid.SampledFrom([]string{"stop-while-running", "result-then-stop", "stop-then-result", "stop-before-hold"}).Draw(rt, "interleaving")

		c := h.create(NewConversation{})
		for len(f.tools.release) > 0 { // tokens a failed iteration left
			<-f.tools.release
		}
		// Execution ids repeat across conversations; every result of the last iteration
		// was queued before it ended, so forgetting them keeps the matches to this one.
		f.watch.mu.Lock()
		f.watch.msgs = nil
		f.watch.mu.Unlock()
		steps := make([]string, n)
		for i := range steps {
			steps[i] = fmt.Sprintf("think: step %d", i+1)
		}
		h.send(c.ID, strings.Join(steps, " ;; "))
		var running domain.ToolCall
		for i := 0; i <= k; i++ {
			running = f.tools.waitStarted(rt)
			if i < k {
				f.tools.release <- struct{}{}
			}
		}
		exec := h.waitFor(c.ID, "call "+running.ID, func(c domain.Conversation) bool {
			st, ok := c.State.(domain.ToolExecuting)
			return ok && st.Current.ID == running.ID
		}).State.(domain.ToolExecuting).Exec

		stopped := make(chan error, 1)
		stop := func() {
			go func() { stopped <- h.rt.Cancel(context.Background(), c.ID) }()
			f.watch.waitQueued(rt, "the Stop", queuedStop)
		}
		switch order {
		case "stop-while-running":
			stop() // the tool is cancelled out-of-band; its cancelled result follows
			f.watch.waitQueued(rt, "the cancelled tool's result", queuedToolDone(exec))
		case "stop-before-hold":
			stop()
			release := f.hold(rt, c.ID)
			f.watch.waitQueued(rt, "the cancelled tool's result", queuedToolDone(exec))
			release()
		case "stop-then-result":
			release := f.hold(rt, c.ID)
			stop() // cancels the tool out-of-band: its result queues behind the Stop
			f.watch.waitQueued(rt, "the cancelled tool's result", queuedToolDone(exec))
			release()
		case "result-then-stop":
			release := f.hold(rt, c.ID)
			f.tools.release <- struct{}{} // the tool succeeds; its result queues first
			f.watch.waitQueued(rt, "the running tool's result", queuedToolDone(exec))
			stop()
			release()
		}
		if err := <-stopped; err != nil {
			rt.Fatalf("Stop = %v", err)
		}
		end := h.waitRest(c.ID)
		if end.State.Kind() != domain.StateIdle {
			rt.Fatalf("state = %s", end.State.Kind())
		}
		res := results(h.history(c.ID))
		if len(res) != n {
			rt.Fatalf("%d results for %d calls", len(res), n)
		}
		for i, r := range res {
			want := domain.OutcomeSuccess
			switch {
			case i == k:
				want = domain.OutcomeCancelled
			case i > k:
				want = domain.OutcomeSkipped // never started: no ExecuteTool was emitted
			}
			if r.Outcome != want {
				rt.Fatalf("result %d = %s (%q); want %s", i, r.Outcome, r.Content, want)
			}
		}
		// Drain the runner's record for this conversation: exactly the calls up to k ran.
		f.tools.mu.Lock()
		ran := len(f.tools.ran)
		f.tools.ran = nil
		f.tools.mu.Unlock()
		if ran != k+1 {
			rt.Fatalf("%d tools were started for %d calls with call %d running at Stop; want %d", ran, n, k, k+1)
		}
	})
}
