package domain

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMain raises rapid's default number of cases from 100 to 1,000, so that a plain
// `go test ./domain/...` runs every property at least 1,000 times (issue 2). An explicit
// -rapid.checks flag or RAPID_CHECKS variable still wins, so a quick local run or a long soak
// stays possible.
func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			explicit = true
		}
	})
	if _, fromEnv := os.LookupEnv("RAPID_CHECKS"); !explicit && !fromEnv {
		if err := flag.Set("rapid.checks", "1000"); err != nil {
			fmt.Fprintf(os.Stderr, "set rapid.checks: %v\n", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}

// testWindow is small so that tests reach the 80% and 90% thresholds with small numbers.
const testWindow = 10_000

type convOption func(*NewConversationParams)

func subAgent(p *NewConversationParams) {
	p.ParentID, p.ParentExec, p.Task = "parent", 7, "find the bug"
}

func noLandlock(p *NewConversationParams) { p.LandlockAvailable = false }

func unrestricted(p *NewConversationParams) { p.Unrestricted = true }

// newConv returns an Idle conversation: Restricted with Landlock, a parent unless subAgent is
// given.
func newConv(t testing.TB, opts ...convOption) Conversation {
	t.Helper()
	p := NewConversationParams{
		ID: "c1", Cwd: "/work/project", Model: "gpt-4o", ContextWindow: testWindow,
		LandlockAvailable: true, CreatedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	for _, o := range opts {
		o(&p)
	}
	c, err := NewConversation(p)
	if err != nil {
		t.Fatalf("NewConversation: %v", err)
	}
	return c
}

// step applies an event that must be accepted.
func step(t testing.TB, c Conversation, ev Event) (Conversation, []Effect) {
	t.Helper()
	next, effects, err := Transition(c, ev)
	if err != nil {
		t.Fatalf("Transition(%s, %T): unexpected error %v", c.State.Kind(), ev, err)
	}
	return next, effects
}

// requesting brings a new conversation to LLMRequesting with one user message.
func requesting(t testing.TB, opts ...convOption) Conversation {
	t.Helper()
	c, _ := step(t, newConv(t, opts...), UserMessage{Text: "hello"})
	return c
}

// respond answers the current LLM request.
func respond(t testing.TB, c Conversation, text string, calls ...ToolCall) (Conversation, []Effect) {
	t.Helper()
	exec := mustExec(t, c)
	return step(t, c, LLMResponse{Exec: exec, Text: text, ToolCalls: calls, Usage: Usage{InputTokens: 100, OutputTokens: 10}})
}

func mustExec(t testing.TB, c Conversation) ExecID {
	t.Helper()
	exec, ok := CurrentExec(c.State)
	if !ok {
		t.Fatalf("state %s has no current execution", c.State.Kind())
	}
	return exec
}

func call(id, name, args string) ToolCall { return ToolCall{ID: id, Name: name, Arguments: args} }

func bashCall(id string) ToolCall { return call(id, ToolBash, `{"command":"ls"}`) }

func thinkCall(id string) ToolCall { return call(id, ToolThink, `{"thoughts":"plan"}`) }

func patchCall(id string) ToolCall {
	return call(id, ToolPatch, `{"path":"a.go","patches":[{"operation":"overwrite","new_text":"x"}]}`)
}

func upgradeCall(id, reason string) ToolCall {
	b, _ := json.Marshal(ModeUpgradeArgs{Reason: reason})
	return call(id, ToolRequestModeUpgrade, string(b))
}

func spawnCall(id string, tasks ...string) ToolCall {
	b, _ := json.Marshal(SpawnAgentsArgs{Tasks: tasks})
	return call(id, ToolSpawnAgents, string(b))
}

func submitCall(id, result string, success *bool) ToolCall {
	b, _ := json.Marshal(SubmitResultArgs{Result: result, Success: success})
	return call(id, ToolSubmitResult, string(b))
}

// persisted returns the messages of the leading Persist effect and fails when the effect list
// does not start with exactly one Persist (REQ-BED-007).
func persisted(t testing.TB, effects []Effect) []Message {
	t.Helper()
	if len(effects) == 0 {
		t.Fatalf("no effects; want a leading Persist")
	}
	p, ok := effects[0].(Persist)
	if !ok {
		t.Fatalf("first effect is %T; want Persist", effects[0])
	}
	for i, e := range effects[1:] {
		if _, dup := e.(Persist); dup {
			t.Fatalf("effect %d is a second Persist", i+1)
		}
	}
	return p.Messages
}

// ioEffects returns the effects after the leading Persist.
func ioEffects(t testing.TB, effects []Effect) []Effect {
	t.Helper()
	persisted(t, effects)
	return effects[1:]
}

// fataler is the part of testing.TB that rapid.T also has, so helpers serve both.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// only returns the single effect of type E and fails when there is not exactly one.
func only[E Effect](t fataler, effects []Effect) E {
	t.Helper()
	var found []E
	for _, e := range effects {
		if v, ok := e.(E); ok {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		var zero E
		t.Fatalf("want exactly one %T effect, got %d in %s", zero, len(found), describeEffects(effects))
	}
	return found[0]
}

func describeEffects(effects []Effect) string {
	names := make([]string, len(effects))
	for i, e := range effects {
		names[i] = fmt.Sprintf("%T", e)
	}
	return "[" + strings.Join(names, " ") + "]"
}

func wantState[S State](t testing.TB, c Conversation) S {
	t.Helper()
	s, ok := c.State.(S)
	if !ok {
		var zero S
		t.Fatalf("state is %s (%+v); want %s", c.State.Kind(), c.State, zero.Kind())
	}
	return s
}

// wantKinds checks the kinds of persisted messages, in order.
func wantKinds(t testing.TB, msgs []Message, kinds ...MessageKind) {
	t.Helper()
	got := make([]MessageKind, len(msgs))
	for i, m := range msgs {
		got[i] = m.Kind
	}
	if !reflect.DeepEqual(got, kinds) {
		t.Fatalf("persisted message kinds = %v; want %v", got, kinds)
	}
}

// wantResult checks one tool-result message.
func wantResult(t testing.TB, m Message, callID string, outcome Outcome, contains string) {
	t.Helper()
	if m.Kind != KindToolResult || m.ToolResult == nil {
		t.Fatalf("message %d is %s; want a tool result for %s", m.Seq, m.Kind, callID)
	}
	r := m.ToolResult
	if r.CallID != callID || r.Outcome != outcome {
		t.Fatalf("result = {call %s, %s}; want {call %s, %s}: %q", r.CallID, r.Outcome, callID, outcome, r.Content)
	}
	if !strings.Contains(r.Content, contains) {
		t.Fatalf("result for %s = %q; want it to contain %q", callID, r.Content, contains)
	}
}

// wantRejected checks that an event is refused with err and changes nothing.
func wantRejected(t testing.TB, c Conversation, ev Event, want error) {
	t.Helper()
	next, effects, err := Transition(c, ev)
	if !errors.Is(err, want) {
		t.Fatalf("Transition(%s, %T) error = %v; want %v", c.State.Kind(), ev, err, want)
	}
	if effects != nil {
		t.Fatalf("rejected event produced effects %s", describeEffects(effects))
	}
	if !reflect.DeepEqual(next, c) {
		t.Fatalf("rejected event changed the conversation:\n got %+v\nwant %+v", next, c)
	}
}

// wantUnchanged checks that an event is dropped: no error, no effects, nothing changed.
func wantUnchanged(t testing.TB, c Conversation, ev Event) {
	t.Helper()
	next, effects, err := Transition(c, ev)
	if err != nil {
		t.Fatalf("Transition(%s, %T) error = %v; want it dropped silently", c.State.Kind(), ev, err)
	}
	if effects != nil {
		t.Fatalf("dropped event produced effects %s", describeEffects(effects))
	}
	if !reflect.DeepEqual(next, c) {
		t.Fatalf("dropped event changed the conversation:\n got %+v\nwant %+v", next, c)
	}
}

func boolPtr(b bool) *bool { return &b }
