package domain

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// everyState has one fully populated value of each state kind, so that a field missing its
// JSON tag or a kind missing from DecodeState fails the round trip.
func everyState() []State {
	calls := []ToolCall{bashCall("a"), patchCall("b")}
	return []State{
		Idle{},
		LLMRequesting{Exec: 4, Attempt: 2, RetryPending: true, RetryDelay: 2 * time.Second, LastError: "503", LastErrorKind: ErrorServer},
		ToolExecuting{Exec: 5, Current: bashCall("c"), Round: Round{Remaining: calls, Completed: []string{"x", "y"}, Notes: []string{"Mode changed to Restricted"}}},
		AwaitingModeApproval{Exec: 6, Call: upgradeCall("u", "edit"), Reason: "edit", Round: Round{Remaining: calls[:1], Completed: []string{"x"}}},
		AwaitingSubAgents{Exec: 7, Call: spawnCall("s", "t1", "t2"), Outcomes: []SubAgentOutcome{
			{AgentID: "s1", Task: "t1", Status: SubAgentSucceeded, Result: "r"},
			{AgentID: "s2", Task: "t2", Status: SubAgentFailed, Error: "late", Kind: ErrorDeadline},
		}, Round: Round{Remaining: calls}},
		AwaitingContinuation{Exec: 8, Rejected: calls, TriggerUsage: Usage{InputTokens: 9_000, OutputTokens: 12}, Attempt: 3, RetryPending: true, RetryDelay: time.Second},
		ContextExhausted{Summary: "we did X", FinalUsage: Usage{InputTokens: 1, OutputTokens: 2}},
		Error{Message: "Failed after 3 attempts", ErrKind: ErrorNetwork},
		Completed{Result: "found it", Success: true},
		Failed{Message: "context window exhausted", ErrKind: ErrorContextExhausted},
	}
}

// Conversations are stored as JSON (ARCHITECTURE persistence layout); every state kind must come
// back identical.
func TestConversation_JSONRoundTrip(t *testing.T) {
	kinds := map[StateKind]bool{}
	for _, st := range everyState() {
		t.Run(string(st.Kind()), func(t *testing.T) {
			kinds[st.Kind()] = true
			c := newConv(t, subAgent)
			c.Title, c.ContinuedFrom, c.Archived = "title", "older", true
			c.Usage, c.NextSeq, c.LastExec, c.State = Usage{InputTokens: 5, OutputTokens: 6}, 42, 9, st
			c.UpdatedAt = c.CreatedAt.Add(time.Hour)
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if !strings.Contains(string(data), `"state_kind":"`+string(st.Kind())+`"`) {
				t.Fatalf("encoding lacks the state kind: %s", data)
			}
			var back Conversation
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("Unmarshal: %v\n%s", err, data)
			}
			if !reflect.DeepEqual(back, c) {
				t.Fatalf("round trip changed the conversation:\n got %+v\nwant %+v\njson %s", back, c, data)
			}
		})
	}
	all := []StateKind{StateIdle, StateLLMRequesting, StateToolExecuting, StateAwaitingModeApproval, StateAwaitingSubAgents,
		StateAwaitingContinuation, StateContextExhausted, StateError, StateCompleted, StateFailed}
	for _, k := range all {
		if !kinds[k] {
			t.Errorf("state kind %s is not covered by everyState", k)
		}
	}
}

func TestConversation_JSONErrors(t *testing.T) {
	for name, data := range map[string]string{
		"unknown kind":   `{"id":"x","state_kind":"dreaming","state":{}}`,
		"no kind":        `{"id":"x"}`,
		"bad state data": `{"id":"x","state_kind":"llm_requesting","state":{"attempt":"two"}}`,
		"not json":       `{`,
	} {
		var c Conversation
		if err := json.Unmarshal([]byte(data), &c); err == nil {
			t.Errorf("%s: Unmarshal accepted %s as %+v", name, data, c)
		}
	}
	// A nil state is stored as Idle rather than failing.
	data, err := json.Marshal(Conversation{ID: "x"})
	if err != nil || !strings.Contains(string(data), `"state_kind":"idle"`) {
		t.Fatalf("nil state encodes as %s, %v; want idle", data, err)
	}
}

func TestMessage_JSONRoundTrip(t *testing.T) {
	msgs := []Message{
		{Seq: 1, Kind: KindUser, Text: "look", Images: []ImageRef{{SHA256: "ab", MediaType: "image/png", Width: 1, Height: 2, Size: 3, Name: "x.png"}}},
		{Seq: 2, Kind: KindAssistant, Text: "ok", ToolCalls: []ToolCall{bashCall("a")}, Usage: &Usage{InputTokens: 1, OutputTokens: 2}},
		{Seq: 3, Kind: KindToolResult, ToolResult: &ToolResult{CallID: "a", Name: ToolBash, Outcome: OutcomeError, Content: "exit 1",
			Display: &ToolDisplay{Summary: "exit 1", Diff: "-a\n+b", SubAgents: []SubAgentOutcome{{AgentID: "s", Task: "t", Status: SubAgentSucceeded}}}}},
		{Seq: 4, Kind: KindError, Text: "failed", ErrorKind: ErrorAuth, At: time.Date(2025, 5, 6, 7, 8, 9, 0, time.UTC)},
	}
	for _, m := range msgs {
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Fatalf("round trip changed %+v into %+v", m, back)
		}
	}
}

func TestBusyAndCurrentExec(t *testing.T) {
	for _, st := range everyState() {
		exec, has := CurrentExec(st)
		busy := Busy(st)
		if busy != has {
			t.Errorf("%s: Busy %v but CurrentExec ok %v; a busy state always waits on an execution", st.Kind(), busy, has)
		}
		if has && exec == 0 {
			t.Errorf("%s: current exec is zero", st.Kind())
		}
	}
}

func TestAwaitingSubAgents_Pending(t *testing.T) {
	st := AwaitingSubAgents{Outcomes: []SubAgentOutcome{{Status: SubAgentPending}, {Status: SubAgentSucceeded}, {Status: SubAgentPending}, {Status: SubAgentFailed}}}
	if st.Pending() != 2 {
		t.Fatalf("Pending = %d; want 2", st.Pending())
	}
}

func TestConversation_SubAgentFlags(t *testing.T) {
	if c := newConv(t); c.IsSubAgent() || !c.UserInitiated() {
		t.Fatalf("a person's conversation counts as a sub-agent")
	}
	// REQ-BED-009: sub-agents are not user-initiated and are not listed.
	if c := newConv(t, subAgent); !c.IsSubAgent() || c.UserInitiated() {
		t.Fatalf("a sub-agent counts as user-initiated")
	}
}

// cloneConv (property tests) must copy every slice of every state, or the no-mutation check
// would compare shared memory with itself.
func TestCloneConvCopiesEverySlice(t *testing.T) {
	for _, st := range everyState() {
		c := newConv(t)
		c.State = st
		clone := cloneConv(c)
		if !reflect.DeepEqual(clone, c) {
			t.Fatalf("%s: clone differs", st.Kind())
		}
		// Write into the original's slices: the clone must not change. (everyState shares
		// some slices between states, hence a value per state.)
		changed := "changed in " + string(st.Kind())
		switch s := c.State.(type) {
		case ToolExecuting:
			s.Remaining[0].ID, s.Completed[0], s.Notes[0] = changed, changed, changed
		case AwaitingModeApproval:
			s.Remaining[0].ID, s.Completed[0] = changed, changed
		case AwaitingSubAgents:
			s.Remaining[0].ID, s.Outcomes[0].Result = changed, changed
		case AwaitingContinuation:
			s.Rejected[0].ID = changed
		default:
			continue
		}
		if reflect.DeepEqual(clone, c) {
			t.Fatalf("%s: clone shares memory with the original", st.Kind())
		}
	}
}
