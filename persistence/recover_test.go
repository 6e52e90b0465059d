package persistence

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/phoenix-desktop/phoenix/domain"
)

// spawn returns the spawn_agents call for tasks.
func spawn(id string, tasks ...string) domain.ToolCall {
	return call(id, domain.ToolSpawnAgents, fmt.Sprintf(`{"tasks":[%s]}`, quoteAll(tasks)))
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ",")
}

// subAgent creates the sub-agent the parent's SpawnSubAgents effect asked for and drives it
// with the given events.
func subAgent(t *testing.T, s *Store, parent domain.Conversation, i int, events ...func(domain.Conversation) domain.Event) domain.Conversation {
	t.Helper()
	st := parent.State.(domain.AwaitingSubAgents)
	o := st.Outcomes[i]
	c := newConv(t, s, o.AgentID, withParent(parent.ID, st.Exec, o.Task))
	for _, ev := range events {
		c = step(t, s, c, ev(c))
	}
	return c
}

func userMsg(text string) func(domain.Conversation) domain.Event {
	return func(domain.Conversation) domain.Event { return domain.UserMessage{Text: text} }
}

func respond(text string, calls ...domain.ToolCall) func(domain.Conversation) domain.Event {
	return func(c domain.Conversation) domain.Event {
		e, _ := domain.CurrentExec(c.State)
		return domain.LLMResponse{Exec: e, Text: text, ToolCalls: calls, Usage: domain.Usage{InputTokens: 10, OutputTokens: 5}}
	}
}

func llmError(kind domain.ErrorKind) func(domain.Conversation) domain.Event {
	return func(c domain.Conversation) domain.Event {
		e, _ := domain.CurrentExec(c.State)
		return domain.LLMError{Exec: e, Kind: kind, Message: string(kind) + " failure"}
	}
}

func submit(result string, success bool) domain.ToolCall {
	return call("s1", domain.ToolSubmitResult, fmt.Sprintf(`{"result":%q,"success":%t}`, result, success))
}

func drive(t *testing.T, s *Store, c domain.Conversation, events ...func(domain.Conversation) domain.Event) domain.Conversation {
	t.Helper()
	for _, ev := range events {
		c = step(t, s, c, ev(c))
	}
	return c
}

func TestRecoverFromEveryWorkingState_REQ_BED_007(t *testing.T) {
	cases := []struct {
		name string
		// build leaves the store as a crash would; it returns the conversation to check.
		build func(t *testing.T, s *Store) string
		want  domain.StateKind
		check func(t *testing.T, c domain.Conversation, msgs []domain.Message, s *Store)
	}{
		{
			name: "llm_requesting",
			build: func(t *testing.T, s *Store) string {
				drive(t, s, newConv(t, s, "a"), userMsg("hi"))
				return "a"
			},
			want: domain.StateIdle,
		},
		{
			name: "llm_requesting with a retry pending",
			build: func(t *testing.T, s *Store) string {
				drive(t, s, newConv(t, s, "a"), userMsg("hi"), llmError(domain.ErrorServer))
				return "a"
			},
			want: domain.StateIdle,
		},
		{
			name: "tool_executing the first of three",
			build: func(t *testing.T, s *Store) string {
				drive(t, s, newConv(t, s, "a"), userMsg("hi"),
					respond("", bash("t1"), bash("t2"), call("t3", domain.ToolThink, `{"thoughts":"x"}`)))
				return "a"
			},
			want:  domain.StateIdle,
			check: wantInterrupted("t1", "t2", "t3"),
		},
		{
			name: "tool_executing after one result",
			build: func(t *testing.T, s *Store) string {
				c := drive(t, s, newConv(t, s, "a"), userMsg("hi"), respond("", bash("t1"), bash("t2")))
				step(t, s, c, domain.ToolComplete{Exec: execOf(t, c), Result: okResult("done")})
				return "a"
			},
			want:  domain.StateIdle,
			check: wantInterrupted("t2"),
		},
		{
			name: "awaiting_mode_approval",
			build: func(t *testing.T, s *Store) string {
				drive(t, s, newConv(t, s, "a"), userMsg("fix it"),
					respond("", call("u1", domain.ToolRequestModeUpgrade, `{"reason":"edit main.go"}`), bash("t2")))
				return "a"
			},
			want: domain.StateIdle,
			check: func(t *testing.T, c domain.Conversation, msgs []domain.Message, s *Store) {
				wantInterrupted("u1", "t2")(t, c, msgs, s)
				if c.Mode != domain.ModeRestricted {
					t.Errorf("an undecided upgrade changed the mode to %s", c.Mode)
				}
			},
		},
		{
			name: "awaiting_sub_agents with finished, busy and missing sub-agents",
			build: func(t *testing.T, s *Store) string {
				p := drive(t, s, newConv(t, s, "p"), userMsg("research"),
					respond("", spawn("sp", "one", "two", "three", "four", "five", "six"), bash("after")))
				subAgent(t, s, p, 0, userMsg("one"), respond("", submit("found it", true)))
				subAgent(t, s, p, 1, userMsg("two"), respond("", submit("could not", false)))
				subAgent(t, s, p, 2, userMsg("three"), llmError(domain.ErrorAuth))
				subAgent(t, s, p, 3, userMsg("four"), respond("", bash("k1")))
				subAgent(t, s, p, 4, userMsg("five"))
				// Sub-agent six was never created: the crash came before the spawn.
				return "p"
			},
			want: domain.StateIdle,
			check: func(t *testing.T, c domain.Conversation, msgs []domain.Message, s *Store) {
				wantInterrupted("sp", "after")(t, c, msgs, s)
				res := findResult(t, msgs, "sp")
				type o struct {
					status domain.SubAgentStatus
					kind   domain.ErrorKind
					result string
				}
				var got []o
				for _, x := range res.Display.SubAgents {
					got = append(got, o{x.Status, x.Kind, x.Result})
				}
				want := []o{
					{domain.SubAgentSucceeded, "", "found it"},
					{domain.SubAgentFailed, "", "could not"},
					{domain.SubAgentFailed, domain.ErrorAuth, ""},
					{domain.SubAgentFailed, domain.ErrorInterrupted, ""},
					{domain.SubAgentFailed, domain.ErrorInterrupted, ""},
					{domain.SubAgentFailed, domain.ErrorInterrupted, ""},
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("sub-agent outcomes\n got %+v\nwant %+v", got, want)
				}
				for _, id := range []string{"p-sub-2-4", "p-sub-2-5"} {
					kid, kmsgs, err := s.Load(id)
					if err != nil {
						t.Fatal(err)
					}
					if f, ok := kid.State.(domain.Failed); !ok || f.ErrKind != domain.ErrorInterrupted {
						t.Errorf("busy sub-agent %s recovered to %+v, want failed (interrupted)", id, kid.State)
					}
					if err := checkConsistent(s, kid, kmsgs); err != nil {
						t.Error(err)
					}
				}
			},
		},
		{
			name: "awaiting_sub_agents whose sub-agents all finished before the crash",
			build: func(t *testing.T, s *Store) string {
				p := drive(t, s, newConv(t, s, "p"), userMsg("research"),
					respond("", spawn("sp", "one", "two"), bash("after")))
				subAgent(t, s, p, 0, userMsg("one"), respond("", submit("r1", true)))
				subAgent(t, s, p, 1, userMsg("two"), respond("", submit("r2", true)))
				return "p"
			},
			want: domain.StateIdle,
			check: func(t *testing.T, c domain.Conversation, msgs []domain.Message, s *Store) {
				res := findResult(t, msgs, "sp")
				if res.Outcome != domain.OutcomeSuccess || !strings.Contains(res.Content, "r1") || !strings.Contains(res.Content, "r2") {
					t.Errorf("results persisted before the crash were lost: %+v", res)
				}
				if r := findResult(t, msgs, "after"); r.Outcome != domain.OutcomeInterrupted {
					t.Errorf("the call after the batch got %s, want interrupted", r.Outcome)
				}
			},
		},
		{
			name: "awaiting_continuation",
			build: func(t *testing.T, s *Store) string {
				c := drive(t, s, newConv(t, s, "a", withWindow(1000)), userMsg("hi"))
				step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), ToolCalls: []domain.ToolCall{bash("t1")}, Usage: domain.Usage{InputTokens: 950}})
				return "a"
			},
			want: domain.StateContextExhausted,
			check: func(t *testing.T, c domain.Conversation, msgs []domain.Message, s *Store) {
				if st := c.State.(domain.ContextExhausted); st.Summary != domain.InterruptedSummary {
					t.Errorf("summary %q", st.Summary)
				}
			},
		},
		{
			name: "awaiting_continuation with a retry pending",
			build: func(t *testing.T, s *Store) string {
				c := drive(t, s, newConv(t, s, "a", withWindow(1000)), userMsg("hi"))
				c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "long", Usage: domain.Usage{InputTokens: 950}})
				step(t, s, c, domain.LLMError{Exec: execOf(t, c), Kind: domain.ErrorRateLimit})
				return "a"
			},
			want: domain.StateContextExhausted,
		},
		{
			name: "busy sub-agent of a resting parent",
			build: func(t *testing.T, s *Store) string {
				newConv(t, s, "p")
				kid := newConv(t, s, "p-sub-1-1", withParent("p", 1, "task"))
				drive(t, s, kid, userMsg("task"), respond("", bash("k1")))
				return "p-sub-1-1"
			},
			want: domain.StateFailed,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := openMem(t)
			id := tc.build(t, s)
			before := snapshot(t, s)
			rep, err := s.Recover()
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Failed) != 0 {
				t.Fatalf("recovery failed: %v", rep.Failed)
			}
			if !slices.Contains(rep.Recovered, id) {
				t.Fatalf("%s not in the report %v", id, rep.Recovered)
			}
			c, msgs, err := s.Load(id)
			if err != nil {
				t.Fatal(err)
			}
			if c.State.Kind() != tc.want {
				t.Fatalf("recovered to %s, want %s", c.State.Kind(), tc.want)
			}
			after := checkAllResting(t, s)
			// Only busy conversations change, and none loses a message.
			for cid, old := range before {
				now := after[cid]
				if !domain.Busy(old.c.State) && !sameJSON(t, old, now) {
					t.Errorf("resting conversation %s changed", cid)
				}
				if len(now.msgs) < len(old.msgs) || !reflect.DeepEqual(now.msgs[:len(old.msgs)], old.msgs) {
					t.Errorf("%s lost or changed stored messages", cid)
				}
			}
			if tc.check != nil {
				tc.check(t, c, msgs, s)
			}
			// Idempotent: a second run finds nothing to do and changes nothing.
			rep, err = s.Recover()
			if err != nil || len(rep.Recovered) != 0 || len(rep.Failed) != 0 {
				t.Fatalf("second Recover = %+v, %v; want nothing", rep, err)
			}
			if again := snapshot(t, s); !reflect.DeepEqual(again, after) {
				t.Fatal("second Recover changed the store")
			}
		})
	}
}

func TestRecoverLeavesRestingStatesAlone_REQ_BED_007(t *testing.T) {
	s := openMem(t)
	drive(t, s, newConv(t, s, "idle"), userMsg("hi"), respond("hello"))
	drive(t, s, newConv(t, s, "error"), userMsg("hi"), llmError(domain.ErrorAuth))
	c := drive(t, s, newConv(t, s, "exhausted", withWindow(1000)), userMsg("hi"))
	c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "x", Usage: domain.Usage{InputTokens: 950}})
	step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "summary"})
	newConv(t, s, "p")
	drive(t, s, newConv(t, s, "p-sub-1-1", withParent("p", 1, "t")), userMsg("t"), respond("", submit("ok", true)))
	before := snapshot(t, s)
	rep, err := s.Recover()
	if err != nil || len(rep.Recovered) != 0 || len(rep.Failed) != 0 {
		t.Fatalf("Recover = %+v, %v; want nothing to do", rep, err)
	}
	if after := snapshot(t, s); !reflect.DeepEqual(before, after) {
		t.Fatal("Recover changed resting conversations")
	}
}

func wantInterrupted(callIDs ...string) func(*testing.T, domain.Conversation, []domain.Message, *Store) {
	return func(t *testing.T, _ domain.Conversation, msgs []domain.Message, _ *Store) {
		t.Helper()
		for _, id := range callIDs {
			if r := findResult(t, msgs, id); r.Outcome != domain.OutcomeInterrupted {
				t.Errorf("call %s answered with %s, want interrupted", id, r.Outcome)
			}
		}
	}
}

func findResult(t *testing.T, msgs []domain.Message, callID string) domain.ToolResult {
	t.Helper()
	for _, m := range msgs {
		if m.Kind == domain.KindToolResult && m.ToolResult.CallID == callID {
			return *m.ToolResult
		}
	}
	t.Fatalf("no result for call %s", callID)
	return domain.ToolResult{}
}

type loaded struct {
	c    domain.Conversation
	msgs []domain.Message
}

// snapshot loads every stored conversation with its messages.
func snapshot(t tester, s *Store) map[string]loaded {
	t.Helper()
	keys, err := s.keysWithPrefix([]byte(prefixConv), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]loaded{}
	for _, k := range keys {
		id := strings.TrimPrefix(k, prefixConv)
		c, msgs, err := s.Load(id)
		if err != nil {
			t.Fatal(err)
		}
		out[id] = loaded{c, msgs}
	}
	return out
}

// checkAllResting asserts what recovery promises for every conversation: at rest, with a
// history the API accepts.
func checkAllResting(t tester, s *Store) map[string]loaded {
	t.Helper()
	all := snapshot(t, s)
	for id, l := range all {
		if domain.Busy(l.c.State) {
			t.Errorf("%s still busy in %s", id, l.c.State.Kind())
		}
		if err := checkConsistent(s, l.c, l.msgs); err != nil {
			t.Error(err)
		}
	}
	return all
}

// TestRecoverAfterRandomRun_REQ_BED_007 drives a conversation and its sub-agents through
// random events with the real core, stops at a random point as a crash would, and checks
// that recovery always reaches rest with a valid history, idempotently.
func TestRecoverAfterRandomRun_REQ_BED_007(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		s, err := OpenInMemory()
		if err != nil {
			rt.Fatal(err)
		}
		defer s.Close()
		sim := &simulator{s: s, rt: rt}
		window := rapid.SampledFrom([]int{1000, 100_000}).Draw(rt, "window")
		c, err := domain.NewConversation(domain.NewConversationParams{ID: "p", Cwd: "/w", Model: "gpt-4o",
			ContextWindow: window, LandlockAvailable: rapid.Bool().Draw(rt, "landlock")})
		if err != nil {
			rt.Fatal(err)
		}
		if _, err := s.Create(c); err != nil {
			rt.Fatal(err)
		}
		n := rapid.IntRange(0, 25).Draw(rt, "events")
		for i := range n {
			sim.randomStep(fmt.Sprintf("e%d", i))
		}
		if _, err := s.Recover(); err != nil {
			rt.Fatal(err)
		}
		after := checkAllResting(rt, s)
		rep, err := s.Recover()
		if err != nil || len(rep.Recovered) != 0 || len(rep.Failed) != 0 {
			rt.Fatalf("second Recover = %+v, %v", rep, err)
		}
		if again := snapshot(rt, s); !reflect.DeepEqual(again, after) {
			rt.Fatal("second Recover changed the store")
		}
	})
}

// simulator plays the actors' part with random outcomes: it applies events through the core,
// commits what they persist, and creates the sub-agents that SpawnSubAgents asks for.
type simulator struct {
	s  *Store
	rt *rapid.T
}

func (sim *simulator) ids() []string {
	keys, err := sim.s.keysWithPrefix([]byte(prefixConv), 1<<20)
	if err != nil {
		sim.rt.Fatal(err)
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = strings.TrimPrefix(k, prefixConv)
	}
	return out
}

func (sim *simulator) randomStep(label string) {
	rt := sim.rt
	id := rapid.SampledFrom(sim.ids()).Draw(rt, label+"-conv")
	c, err := sim.s.Get(id)
	if err != nil {
		rt.Fatal(err)
	}
	sim.apply(c, sim.randomEvent(c, label), label)
}

// apply commits one event and plays the effects that matter for recovery: sub-agents are
// created (or not, as if the crash came first), and a finished sub-agent's outcome reaches
// its parent (or not).
func (sim *simulator) apply(c domain.Conversation, ev domain.Event, label string) {
	rt := sim.rt
	next, effects, err := domain.Transition(c, ev)
	if err != nil || len(effects) == 0 {
		return // rejected or stale: the actor would show the error and change nothing
	}
	if _, _, err := sim.s.Commit(next, persisted(effects)); err != nil {
		rt.Fatalf("commit %T: %v", ev, err)
	}
	for _, e := range effects {
		switch e := e.(type) {
		case domain.SpawnSubAgents:
			for _, a := range e.Agents {
				if rapid.IntRange(0, 4).Draw(rt, label+"-create") == 0 {
					continue
				}
				kid, err := domain.NewConversation(domain.NewConversationParams{ID: a.ID, Cwd: c.Cwd, Model: c.Model,
					ContextWindow: c.ContextWindow, LandlockAvailable: c.LandlockAvailable,
					ParentID: c.ID, ParentExec: e.Exec, Task: a.Task})
				if err != nil {
					rt.Fatal(err)
				}
				if _, err := sim.s.Create(kid); err != nil {
					rt.Fatal(err)
				}
			}
		case domain.NotifyParent:
			if rapid.Bool().Draw(rt, label+"-notify") {
				parent, err := sim.s.Get(e.ParentID)
				if err != nil {
					rt.Fatal(err)
				}
				sim.apply(parent, domain.SubAgentFinished{Exec: e.ParentExec, Outcome: e.Outcome}, label+"-parent")
			}
		}
	}
}

func (sim *simulator) randomEvent(c domain.Conversation, label string) domain.Event {
	rt := sim.rt
	cur, ok := domain.CurrentExec(c.State)
	if !ok || rapid.IntRange(0, 9).Draw(rt, label+"-stale") == 0 {
		cur = domain.ExecID(rapid.Uint64Range(0, uint64(c.LastExec)+1).Draw(rt, label+"-exec"))
	}
	usage := domain.Usage{InputTokens: rapid.SampledFrom([]int{10, 10, 10, 850, 950}).Draw(rt, label+"-usage") * c.ContextWindow / 1000}
	if rapid.IntRange(0, 4).Draw(rt, label+"-natural") > 0 {
		if ev := sim.naturalEvent(c, cur, usage, label); ev != nil {
			return ev
		}
	}
	switch rapid.IntRange(0, 11).Draw(rt, label+"-kind") {
	case 0, 1:
		return domain.UserMessage{Text: "do something"}
	case 2, 3:
		var calls []domain.ToolCall
		for i := range rapid.IntRange(0, 3).Draw(rt, label+"-ncalls") {
			calls = append(calls, sim.randomCall(fmt.Sprintf("%s-c%d", label, i)))
		}
		return domain.LLMResponse{Exec: cur, Text: "reply", ToolCalls: calls, Usage: usage}
	case 4:
		kind := rapid.SampledFrom([]domain.ErrorKind{domain.ErrorServer, domain.ErrorAuth, domain.ErrorRateLimit}).Draw(rt, label+"-err")
		return domain.LLMError{Exec: cur, Kind: kind, Message: "failed"}
	case 5:
		return domain.RetryTimeout{Exec: cur}
	case 6, 7:
		outcome := rapid.SampledFrom([]domain.Outcome{domain.OutcomeSuccess, domain.OutcomeError}).Draw(rt, label+"-outcome")
		return domain.ToolComplete{Exec: cur, Result: domain.ToolResult{Outcome: outcome, Content: "output"}}
	case 8:
		return domain.ModeDecision{Exec: cur, Approve: rapid.Bool().Draw(rt, label+"-approve")}
	case 9:
		return domain.UserCancel{}
	case 10:
		if st, ok := c.State.(domain.AwaitingSubAgents); ok && len(st.Outcomes) > 0 {
			o := rapid.SampledFrom(st.Outcomes).Draw(rt, label+"-agent")
			o.Status = rapid.SampledFrom([]domain.SubAgentStatus{domain.SubAgentSucceeded, domain.SubAgentFailed}).Draw(rt, label+"-status")
			o.Result = "result"
			return domain.SubAgentFinished{Exec: cur, Outcome: o}
		}
		return domain.SubAgentDeadline{Exec: cur}
	default:
		return rapid.SampledFrom([]domain.Event{domain.UserDowngrade{}, domain.UserTriggerContinuation{}}).Draw(rt, label+"-user")
	}
}

// naturalEvent is what the actors would most likely deliver next in this state.
func (sim *simulator) naturalEvent(c domain.Conversation, cur domain.ExecID, usage domain.Usage, label string) domain.Event {
	rt := sim.rt
	switch st := c.State.(type) {
	case domain.Idle, domain.Error:
		return domain.UserMessage{Text: "next task"}
	case domain.LLMRequesting:
		if st.RetryPending {
			return domain.RetryTimeout{Exec: cur}
		}
		var calls []domain.ToolCall
		if c.IsSubAgent() && rapid.Bool().Draw(rt, label+"-submit") {
			calls = []domain.ToolCall{call(label+"-s", domain.ToolSubmitResult, `{"result":"done"}`)}
		} else {
			for i := range rapid.IntRange(0, 3).Draw(rt, label+"-ncalls") {
				calls = append(calls, sim.randomCall(fmt.Sprintf("%s-c%d", label, i)))
			}
		}
		return domain.LLMResponse{Exec: cur, Text: "reply", ToolCalls: calls, Usage: usage}
	case domain.ToolExecuting:
		return domain.ToolComplete{Exec: cur, Result: okResult("output")}
	case domain.AwaitingModeApproval:
		return domain.ModeDecision{Exec: cur, Approve: rapid.Bool().Draw(rt, label+"-approve")}
	case domain.AwaitingContinuation:
		if st.RetryPending {
			return domain.RetryTimeout{Exec: cur}
		}
		return domain.LLMResponse{Exec: cur, Text: "summary"}
	}
	return nil
}

func (sim *simulator) randomCall(id string) domain.ToolCall {
	return rapid.SampledFrom([]domain.ToolCall{
		bash(id),
		call(id, domain.ToolThink, `{"thoughts":"hm"}`),
		call(id, domain.ToolPatch, `{"path":"a","patches":[{"operation":"overwrite","new_text":"x"}]}`),
		call(id, domain.ToolRequestModeUpgrade, `{"reason":"write"}`),
		call(id, domain.ToolSpawnAgents, `{"tasks":["a","b"]}`),
		call(id, domain.ToolSubmitResult, `{"result":"done"}`),
		call(id, "no_such_tool", `{}`),
		call(id, domain.ToolBash, `not json`),
	}).Draw(sim.rt, id)
}
