package persistence

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// fakeClock hands out strictly increasing times, so that ordering by UpdatedAt is
// deterministic in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func openMem(t testing.TB) *Store {
	t.Helper()
	s, err := Open("", Options{InMemory: true, Now: newFakeClock().Now})
	if err != nil {
		t.Fatalf("open in-memory store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

func openDir(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("open store in %s: %v", dir, err)
	}
	return s
}

type convOpt func(*domain.NewConversationParams)

func withParent(id string, exec domain.ExecID, task string) convOpt {
	return func(p *domain.NewConversationParams) { p.ParentID, p.ParentExec, p.Task = id, exec, task }
}

func withWindow(n int) convOpt {
	return func(p *domain.NewConversationParams) { p.ContextWindow = n }
}

func newConv(t testing.TB, s *Store, id string, opts ...convOpt) domain.Conversation {
	t.Helper()
	p := domain.NewConversationParams{ID: id, Cwd: "/home/me/project", Model: "gpt-4o", LandlockAvailable: true}
	for _, o := range opts {
		o(&p)
	}
	c, err := domain.NewConversation(p)
	if err != nil {
		t.Fatalf("new conversation %s: %v", id, err)
	}
	c, err = s.Create(c)
	if err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	return c
}

// step applies one event through the pure core and commits what it persists, as a
// conversation actor does. A rejected or stale event fails the test.
func step(t testing.TB, s *Store, c domain.Conversation, ev domain.Event) domain.Conversation {
	t.Helper()
	next, effects, err := domain.Transition(c, ev)
	if err != nil {
		t.Fatalf("%s: transition %T from %s: %v", c.ID, ev, c.State.Kind(), err)
	}
	if len(effects) == 0 {
		t.Fatalf("%s: event %T changed nothing in %s", c.ID, ev, c.State.Kind())
	}
	next, _, err = s.Commit(next, persisted(effects))
	if err != nil {
		t.Fatalf("%s: commit after %T: %v", c.ID, ev, err)
	}
	return next
}

func persisted(effects []domain.Effect) []domain.Message {
	var msgs []domain.Message
	for _, e := range effects {
		if p, ok := e.(domain.Persist); ok {
			msgs = append(msgs, p.Messages...)
		}
	}
	return msgs
}

func execOf(t testing.TB, c domain.Conversation) domain.ExecID {
	t.Helper()
	id, ok := domain.CurrentExec(c.State)
	if !ok {
		t.Fatalf("%s: no current execution in %s", c.ID, c.State.Kind())
	}
	return id
}

func call(id, name, args string) domain.ToolCall {
	return domain.ToolCall{ID: id, Name: name, Arguments: args}
}

func bash(id string) domain.ToolCall { return call(id, domain.ToolBash, `{"command":"ls"}`) }

func okResult(content string) domain.ToolResult {
	return domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: content}
}

// checkConsistent verifies what the crash and recovery tests promise about a stored
// conversation: its history is gap-free and valid for the API (with an open tail only while
// busy), the state refers only to calls the history holds, and every referenced image exists.
func checkConsistent(s *Store, c domain.Conversation, msgs []domain.Message) error {
	if uint64(len(msgs)) != c.NextSeq {
		return fmt.Errorf("%s: %d messages, NextSeq %d", c.ID, len(msgs), c.NextSeq)
	}
	for i, m := range msgs {
		if m.Seq != uint64(i) {
			return fmt.Errorf("%s: message %d has sequence %d", c.ID, i, m.Seq)
		}
		if m.At.IsZero() {
			return fmt.Errorf("%s: message %d has no commit time", c.ID, i)
		}
		for _, img := range imagesOf(m) {
			if _, err := s.Blob(img.SHA256); err != nil {
				return fmt.Errorf("%s: message %d: %w", c.ID, i, err)
			}
		}
	}
	busy := domain.Busy(c.State)
	if err := domain.ValidateHistory(msgs, busy); err != nil {
		return fmt.Errorf("%s in %s: %w", c.ID, c.State.Kind(), err)
	}
	open := domain.UnansweredCalls(msgs)
	var want []domain.ToolCall
	switch st := c.State.(type) {
	case domain.ToolExecuting:
		want = append([]domain.ToolCall{st.Current}, st.Remaining...)
	case domain.AwaitingModeApproval:
		want = append([]domain.ToolCall{st.Call}, st.Remaining...)
	case domain.AwaitingSubAgents:
		want = append([]domain.ToolCall{st.Call}, st.Remaining...)
	}
	if !slices.EqualFunc(open, want, func(a, b domain.ToolCall) bool { return a.ID == b.ID }) {
		return fmt.Errorf("%s in %s: the history leaves %v unanswered but the state waits on %v", c.ID, c.State.Kind(), ids(open), ids(want))
	}
	return nil
}

func ids(calls []domain.ToolCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.ID
	}
	return out
}

func mustErrIs(t testing.TB, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v, want one that wraps %v", err, target)
	}
}

// sameJSON compares two values by their stored form. The domain's JSON drops empty slices
// (omitempty), so a nil and an empty Round.Remaining are the same conversation.
func sameJSON(t tester, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}

// tester is the part of testing.TB that rapid.T also has, so helpers serve both.
type tester interface {
	Helper()
	Error(args ...any)
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}
