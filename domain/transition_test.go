package domain

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// This file has one test per row of the two transition matrices of bedrock-design.md, mapped
// onto our states and events, plus the rows issue 2 adds. The mapping of each design row is
// stated in the comment of its test.

// --- matrix 1 ------------------------------------------------------------------------------

// Rows "Idle + UserMessage → AwaitingLlm" and "AwaitingLlm + (internal) → LlmRequesting{1}":
// AwaitingLlm is merged into LLMRequesting, so one transition persists the message and starts
// attempt 1.
func TestTransition_REQ_BED_002_IdleUserMessage(t *testing.T) {
	img := ImageRef{SHA256: strings.Repeat("ab", 32), MediaType: "image/png", Width: 10, Height: 20, Size: 300, Name: "shot.png"}
	tests := []struct {
		name      string
		msg       UserMessage
		wantTitle string
	}{
		{name: "text", msg: UserMessage{Text: "fix the build\nplease"}, wantTitle: "fix the build"},
		// REQ-BED-013: images are persisted as references with the message.
		{name: "text and image", msg: UserMessage{Text: "what is this?", Images: []ImageRef{img}}, wantTitle: "what is this?"},
		{name: "image only", msg: UserMessage{Images: []ImageRef{img}}, wantTitle: "Images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConv(t)
			next, effects := step(t, c, tt.msg)
			st := wantState[LLMRequesting](t, next)
			if st.Attempt != 1 || st.RetryPending || st.Exec != 1 || next.LastExec != 1 {
				t.Fatalf("state = %+v, LastExec %d; want attempt 1, exec 1, no retry pending", st, next.LastExec)
			}
			msgs := persisted(t, effects)
			wantKinds(t, msgs, KindUser)
			if msgs[0].Seq != 0 || next.NextSeq != 1 || msgs[0].Text != tt.msg.Text || !reflect.DeepEqual(msgs[0].Images, tt.msg.Images) {
				t.Fatalf("persisted %+v, NextSeq %d; want the message as sent with seq 0", msgs[0], next.NextSeq)
			}
			req := only[RequestLLM](t, effects)
			if req.Exec != st.Exec || req.Attempt != 1 || req.Continuation != nil {
				t.Fatalf("RequestLLM = %+v; want exec %d attempt 1, with tools", req, st.Exec)
			}
			if len(effects) != 2 {
				t.Fatalf("effects = %s; want [Persist RequestLLM]", describeEffects(effects))
			}
			if next.Title != tt.wantTitle {
				t.Fatalf("title = %q; want %q", next.Title, tt.wantTitle)
			}
			if !reflect.DeepEqual(c, newConv(t)) {
				t.Fatalf("Transition mutated its input")
			}
		})
	}
}

func TestTransition_REQ_BED_002_EmptyMessageRejected(t *testing.T) {
	for _, text := range []string{"", "  \n\t"} {
		wantRejected(t, newConv(t), UserMessage{Text: text}, ErrEmptyMessage)
	}
}

// Row "LlmRequesting + LlmResponse(end=true, no tools) → Idle": the reply is persisted with its
// usage (REQ-BED-012).
func TestTransition_REQ_BED_003_TextReplyToIdle(t *testing.T) {
	c := requesting(t)
	usage := Usage{InputTokens: 1200, OutputTokens: 34}
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "Done.", Usage: usage})
	wantState[Idle](t, next)
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant)
	if msgs[0].Text != "Done." || msgs[0].Usage == nil || *msgs[0].Usage != usage || msgs[0].Seq != 1 {
		t.Fatalf("assistant message = %+v; want the text with its usage at seq 1", msgs[0])
	}
	if next.Usage != usage {
		t.Fatalf("conversation usage = %+v; want %+v", next.Usage, usage)
	}
	if len(effects) != 1 {
		t.Fatalf("effects = %s; want only Persist", describeEffects(effects))
	}
}

// A response without usage data keeps the last known usage instead of resetting it to zero,
// so the context indicator (REQ-BED-012) does not jump back.
func TestTransition_REQ_BED_012_ResponseWithoutUsageKeepsLastUsage(t *testing.T) {
	c, _ := respond(t, requesting(t), "first")
	c, _ = step(t, c, UserMessage{Text: "again"})
	next, _ := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "second"})
	if next.Usage != (Usage{InputTokens: 100, OutputTokens: 10}) {
		t.Fatalf("usage = %+v; want the previous response's", next.Usage)
	}
}

// Row "LlmRequesting + LlmResponse(tools) → ToolExecuting": only the first tool starts
// (REQ-BED-004), under the conversation's mode.
func TestTransition_REQ_BED_003_ToolCallsStartFirstTool(t *testing.T) {
	c := requesting(t)
	calls := []ToolCall{bashCall("a"), thinkCall("b"), bashCall("c")}
	next, effects := respond(t, c, "Let me look.", calls...)
	st := wantState[ToolExecuting](t, next)
	if st.Current.ID != "a" || len(st.Remaining) != 2 || st.Remaining[0].ID != "b" || st.Remaining[1].ID != "c" || len(st.Completed) != 0 {
		t.Fatalf("state = %+v; want current a, remaining [b c]", st)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant)
	if !reflect.DeepEqual(msgs[0].ToolCalls, calls) {
		t.Fatalf("assistant tool calls = %+v; want %+v", msgs[0].ToolCalls, calls)
	}
	run := only[ExecuteTool](t, effects)
	if run.Call != calls[0] || run.Exec != st.Exec || run.Mode != ModeRestricted || st.Exec != c.LastExec+1 {
		t.Fatalf("ExecuteTool = %+v, state exec %d; want call a, a fresh exec, restricted", run, st.Exec)
	}
	if len(effects) != 2 {
		t.Fatalf("effects = %s; want [Persist ExecuteTool]", describeEffects(effects))
	}
}

// Row "LlmRequesting{n<3} + LlmError(retryable) → LlmRequesting{n+1}": the state shows the
// retry (attempt, delay, reason) and a timer is armed with exponential backoff.
func TestTransition_REQ_BED_006_RetryableErrorSchedulesRetry(t *testing.T) {
	for _, kind := range []ErrorKind{ErrorRateLimit, ErrorNetwork, ErrorServer, ErrorTimeout, ErrorIncompleteResponse} {
		t.Run(string(kind), func(t *testing.T) {
			c := requesting(t)
			exec := mustExec(t, c)
			next, effects := step(t, c, LLMError{Exec: exec, Kind: kind, Message: "boom"})
			st := wantState[LLMRequesting](t, next)
			want := LLMRequesting{Exec: exec, Attempt: 2, RetryPending: true, RetryDelay: time.Second, LastError: "boom", LastErrorKind: kind}
			if st != want {
				t.Fatalf("state = %+v; want %+v", st, want)
			}
			if got := only[ScheduleRetry](t, effects); got != (ScheduleRetry{Exec: exec, Delay: time.Second}) {
				t.Fatalf("ScheduleRetry = %+v; want 1s for exec %d", got, exec)
			}
			if msgs := persisted(t, effects); len(msgs) != 0 {
				t.Fatalf("a retry persisted messages %+v; want none", msgs)
			}
			// The second failure waits twice as long.
			next, _ = step(t, next, RetryTimeout{Exec: exec})
			next, effects = step(t, next, LLMError{Exec: mustExec(t, next), Kind: kind})
			if got := only[ScheduleRetry](t, effects); got.Delay != 2*time.Second {
				t.Fatalf("second delay = %v; want 2s", got.Delay)
			}
			if st := wantState[LLMRequesting](t, next); st.Attempt != 3 {
				t.Fatalf("attempt = %d; want 3", st.Attempt)
			}
		})
	}
}

// REQ-BED-006 with a server's Retry-After: it replaces the backoff when it is reasonable, and
// is a final answer when it is longer than MaxRetryDelay.
func TestTransition_REQ_BED_006_RetryAfterFromServer(t *testing.T) {
	c := requesting(t)
	exec := mustExec(t, c)
	next, effects := step(t, c, LLMError{Exec: exec, Kind: ErrorRateLimit, RetryAfter: 17 * time.Second})
	if got := only[ScheduleRetry](t, effects); got.Delay != 17*time.Second {
		t.Fatalf("delay = %v; want the server's 17s", got.Delay)
	}
	if st := wantState[LLMRequesting](t, next); st.RetryDelay != 17*time.Second {
		t.Fatalf("state delay = %v; want 17s", st.RetryDelay)
	}

	next, effects = step(t, c, LLMError{Exec: exec, Kind: ErrorRateLimit, Message: "slow down", RetryAfter: time.Hour})
	st := wantState[Error](t, next)
	if st.ErrKind != ErrorRateLimit || !strings.Contains(st.Message, "1h0m0s") {
		t.Fatalf("state = %+v; want a rate-limit error that names the requested wait", st)
	}
	wantKinds(t, persisted(t, effects), KindError)
}

// Row "LlmRequesting{n} + RetryTimeout → LlmRequesting{n} + RequestLlm": the new attempt gets a
// new execution id, so a late answer to the failed one cannot be taken for it.
func TestTransition_REQ_BED_006_RetryTimeoutRequestsAgain(t *testing.T) {
	c := requesting(t)
	failed := mustExec(t, c)
	c, _ = step(t, c, LLMError{Exec: failed, Kind: ErrorServer})
	// While the timer runs, answers to the failed request are stale.
	wantUnchanged(t, c, LLMResponse{Exec: failed, Text: "late"})
	wantUnchanged(t, c, LLMError{Exec: failed, Kind: ErrorServer})
	wantUnchanged(t, c, RetryTimeout{Exec: failed + 1})
	next, effects := step(t, c, RetryTimeout{Exec: failed})
	st := wantState[LLMRequesting](t, next)
	if st.Exec != failed+1 || st.Attempt != 2 || st.RetryPending || st.RetryDelay != 0 {
		t.Fatalf("state = %+v; want attempt 2 running under exec %d", st, failed+1)
	}
	if req := only[RequestLLM](t, effects); req != (RequestLLM{Exec: failed + 1, Attempt: 2}) {
		t.Fatalf("RequestLLM = %+v", req)
	}
	// A second firing of the same timer is stale now.
	wantUnchanged(t, next, RetryTimeout{Exec: failed})
}

// Row "LlmRequesting{3} + LlmError(retryable) → Error": the message says it was retried.
func TestTransition_REQ_BED_006_RetriesExhausted(t *testing.T) {
	c := requesting(t)
	for attempt := 1; attempt < MaxAttempts; attempt++ {
		c, _ = step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorNetwork})
		c, _ = step(t, c, RetryTimeout{Exec: mustExec(t, c)})
	}
	next, effects := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorNetwork, Message: "connection refused"})
	st := wantState[Error](t, next)
	if st.ErrKind != ErrorNetwork || st.Message != "Failed after 3 attempts: connection refused" {
		t.Fatalf("state = %+v; want network error after 3 attempts", st)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindError)
	if msgs[0].Text != st.Message || msgs[0].ErrorKind != ErrorNetwork {
		t.Fatalf("error message = %+v; want the state's text and kind", msgs[0])
	}
	if len(effects) != 1 {
		t.Fatalf("effects = %s; want only Persist", describeEffects(effects))
	}
}

// Row "LlmRequesting + LlmError(non-retryable) → Error" immediately, with a specific message.
func TestTransition_REQ_BED_006_NonRetryableError(t *testing.T) {
	tests := []struct {
		kind    ErrorKind
		message string
		want    string
	}{
		{ErrorAuth, "", ErrorAuth.Describe()},
		{ErrorAuth, "401 invalid api key", "401 invalid api key"},
		{ErrorInvalidRequest, "model not found", "model not found"},
		{ErrorContextLength, "", ErrorContextLength.Describe()},
		{ErrorUnknown, "", ErrorUnknown.Describe()},
		{"", "", ErrorUnknown.Describe()},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/"+tt.message, func(t *testing.T) {
			c := requesting(t)
			next, effects := step(t, c, LLMError{Exec: mustExec(t, c), Kind: tt.kind, Message: tt.message})
			st := wantState[Error](t, next)
			if st.Message != tt.want || st.ErrKind != tt.kind {
				t.Fatalf("state = %+v; want %q", st, tt.want)
			}
			wantKinds(t, persisted(t, effects), KindError)
		})
	}
}

// Row "LlmRequesting + UserCancel → Cancelling": there is no Cancelling state. Cancel aborts
// the request and comes to rest in the same transition, persisting nothing of the partial
// response (REQ-BED-005).
func TestTransition_REQ_BED_005_CancelDuringLLM(t *testing.T) {
	c := requesting(t)
	exec := mustExec(t, c)
	next, effects := step(t, c, UserCancel{})
	wantState[Idle](t, next)
	if msgs := persisted(t, effects); len(msgs) != 0 {
		t.Fatalf("cancel persisted %+v; want nothing", msgs)
	}
	if got := only[AbortLLM](t, effects); got.Exec != exec {
		t.Fatalf("AbortLLM = %+v; want exec %d", got, exec)
	}
	if len(effects) != 2 {
		t.Fatalf("effects = %s; want [Persist AbortLLM]", describeEffects(effects))
	}

	// While the retry timer runs nothing is in flight: nothing to abort.
	c, _ = step(t, c, LLMError{Exec: exec, Kind: ErrorServer})
	next, effects = step(t, c, UserCancel{})
	wantState[Idle](t, next)
	if len(ioEffects(t, effects)) != 0 {
		t.Fatalf("cancel during retry wait produced %s; want only Persist", describeEffects(effects))
	}
	wantUnchanged(t, next, RetryTimeout{Exec: exec})
}

// Rows "LlmRequesting/ToolExecuting/AwaitingSubAgents + UserMessage → REJECT agent is busy",
// extended to every busy state.
func TestTransition_REQ_BED_002_BusyRejectsUserMessage(t *testing.T) {
	for name, c := range busyStates(t) {
		t.Run(name, func(t *testing.T) {
			if !Busy(c.State) {
				t.Fatalf("%s is not busy", c.State.Kind())
			}
			wantRejected(t, c, UserMessage{Text: "are you there?"}, ErrAgentBusy)
			if ErrAgentBusy.Error() != "agent is busy" {
				t.Fatalf("ErrAgentBusy says %q", ErrAgentBusy)
			}
		})
	}
}

// busyStates reaches every busy state of a parent conversation, and the retry-waiting variants.
func busyStates(t testing.TB) map[string]Conversation {
	t.Helper()
	llm := requesting(t)
	retry, _ := step(t, llm, LLMError{Exec: mustExec(t, llm), Kind: ErrorServer})
	tool, _ := respond(t, requesting(t), "", bashCall("a"), thinkCall("b"))
	approval, _ := respond(t, requesting(t), "", upgradeCall("u", "edit main.go"), patchCall("p"))
	subs, _ := respond(t, requesting(t), "", spawnCall("s", "task one", "task two"), bashCall("b"))
	cont, _ := step(t, newConv(t), UserTriggerContinuation{})
	contRetry, _ := step(t, cont, LLMError{Exec: mustExec(t, cont), Kind: ErrorTimeout})
	return map[string]Conversation{
		"llm requesting": llm, "llm retry pending": retry, "tool executing": tool,
		"awaiting mode approval": approval, "awaiting sub-agents": subs,
		"awaiting continuation": cont, "continuation retry pending": contRetry,
	}
}

// Row "ToolExecuting(last) + ToolComplete → AwaitingLlm": the result is persisted and the
// request for the next reply starts at once (AwaitingLlm merged into LLMRequesting).
func TestTransition_REQ_BED_004_LastToolCompleteRequestsLLM(t *testing.T) {
	c, _ := respond(t, requesting(t), "", bashCall("a"))
	exec := mustExec(t, c)
	next, effects := step(t, c, ToolComplete{Exec: exec, Result: ToolResult{CallID: "wrong-id", Name: "wrong", Outcome: OutcomeSuccess, Content: "file.txt"}})
	st := wantState[LLMRequesting](t, next)
	if st.Attempt != 1 || st.Exec != exec+1 {
		t.Fatalf("state = %+v; want attempt 1 under exec %d", st, exec+1)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindToolResult)
	// The execution id is the gate; the result is filed under the state's call.
	wantResult(t, msgs[0], "a", OutcomeSuccess, "file.txt")
	if msgs[0].ToolResult.Name != ToolBash {
		t.Fatalf("result name = %q; want bash", msgs[0].ToolResult.Name)
	}
	if req := only[RequestLLM](t, effects); req.Exec != st.Exec || req.Continuation != nil {
		t.Fatalf("RequestLLM = %+v", req)
	}
}

// Row "ToolExecuting + ToolComplete → ToolExecuting(next)"; a failed tool's error goes to the
// model like any result (REQ-BED-004), and an outcome left empty counts as an error.
func TestTransition_REQ_BED_004_ToolCompleteStartsNext(t *testing.T) {
	c, _ := respond(t, requesting(t), "", bashCall("a"), thinkCall("b"), bashCall("c"))
	first := mustExec(t, c)
	c, effects := step(t, c, ToolComplete{Exec: first, Result: ToolResult{Outcome: OutcomeError, Content: "exit 2"}})
	wantResult(t, persisted(t, effects)[0], "a", OutcomeError, "exit 2")
	st := wantState[ToolExecuting](t, c)
	if st.Current.ID != "b" || !slices.Equal(st.Completed, []string{"a"}) || len(st.Remaining) != 1 || st.Exec != first+1 {
		t.Fatalf("state = %+v; want current b, completed [a], remaining [c]", st)
	}
	if run := only[ExecuteTool](t, effects); run.Call.ID != "b" || run.Exec != st.Exec {
		t.Fatalf("ExecuteTool = %+v; want b", run)
	}
	// The first tool's id is stale now.
	wantUnchanged(t, c, ToolComplete{Exec: first, Result: ToolResult{Outcome: OutcomeSuccess}})

	c, effects = step(t, c, ToolComplete{Exec: st.Exec, Result: ToolResult{Content: "no outcome"}})
	wantResult(t, persisted(t, effects)[0], "b", OutcomeError, "no outcome")
	st = wantState[ToolExecuting](t, c)
	if st.Current.ID != "c" || !slices.Equal(st.Completed, []string{"a", "b"}) || len(st.Remaining) != 0 {
		t.Fatalf("state = %+v; want current c, completed [a b]", st)
	}
}

// Row "ToolExecuting + UserCancel → Idle": the running tool is killed, gets a "cancelled"
// result, the rest get "skipped", and the history stays valid (REQ-BED-005).
func TestTransition_REQ_BED_005_CancelDuringTool(t *testing.T) {
	tests := []struct {
		name      string
		completed int // tools finished before the cancel
	}{
		{name: "first of three", completed: 0},
		{name: "second of three", completed: 1},
		{name: "last of three", completed: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := requesting(t)
			history := []Message{{Seq: 0, Kind: KindUser, Text: "hello"}}
			c, effects := respond(t, c, "", bashCall("a"), bashCall("b"), bashCall("c"))
			history = append(history, persisted(t, effects)...)
			for i := 0; i < tt.completed; i++ {
				c, effects = step(t, c, ToolComplete{Exec: mustExec(t, c), Result: ToolResult{Outcome: OutcomeSuccess, Content: "ok"}})
				history = append(history, persisted(t, effects)...)
			}
			running := mustExec(t, c)
			next, effects := step(t, c, UserCancel{})
			wantState[Idle](t, next)
			if got := only[KillTool](t, effects); got.Exec != running {
				t.Fatalf("KillTool = %+v; want exec %d", got, running)
			}
			msgs := persisted(t, effects)
			if len(msgs) != 3-tt.completed {
				t.Fatalf("cancel persisted %d messages; want %d", len(msgs), 3-tt.completed)
			}
			ids := []string{"a", "b", "c"}[tt.completed:]
			wantResult(t, msgs[0], ids[0], OutcomeCancelled, CancelledResultText)
			for i, id := range ids[1:] {
				wantResult(t, msgs[i+1], id, OutcomeSkipped, SkippedResultText)
			}
			history = append(history, msgs...)
			if err := ValidateHistory(history, false); err != nil {
				t.Fatalf("history after cancel is invalid: %v", err)
			}
			// Cancel wins over a late success (orchestration-design item 18).
			wantUnchanged(t, next, ToolComplete{Exec: running, Result: ToolResult{Outcome: OutcomeSuccess}})
		})
	}
}

// Row "Cancelling + LlmResponse → Idle": with no Cancelling state this is a late response
// reaching Idle, which the stale gate drops (orchestration-design items 17-18).
func TestTransition_REQ_BED_005_LateResponseAfterCancelDropped(t *testing.T) {
	c := requesting(t)
	exec := mustExec(t, c)
	c, _ = step(t, c, UserCancel{})
	wantUnchanged(t, c, LLMResponse{Exec: exec, Text: "late", ToolCalls: []ToolCall{bashCall("x")}})
	wantUnchanged(t, c, LLMError{Exec: exec, Kind: ErrorServer})
	// Even after a new message the old request's answer is stale.
	c, _ = step(t, c, UserMessage{Text: "new question"})
	wantUnchanged(t, c, LLMResponse{Exec: exec, Text: "late"})
}

// Row "Cancelling + UserMessage → REJECT cancellation in progress" has no counterpart: cancel
// completes in one transition, so the next message is accepted at once
// (orchestration-design item 20: post-interrupt next message continues normally).
func TestTransition_REQ_BED_005_MessageAfterCancelAccepted(t *testing.T) {
	for name, c := range busyStates(t) {
		t.Run(name, func(t *testing.T) {
			c, _ = step(t, c, UserCancel{})
			if c.State.Kind() == StateContextExhausted {
				wantRejected(t, c, UserMessage{Text: "next"}, ErrContextExhausted)
				return
			}
			next, effects := step(t, c, UserMessage{Text: "next"})
			wantState[LLMRequesting](t, next)
			only[RequestLLM](t, effects)
		})
	}
}

// Row "Error + UserMessage → AwaitingLlm": a new message recovers (REQ-BED-006).
func TestTransition_REQ_BED_006_ErrorUserMessageRecovers(t *testing.T) {
	c := requesting(t)
	c, _ = step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorAuth})
	wantState[Error](t, c)
	next, effects := step(t, c, UserMessage{Text: "try again"})
	if st := wantState[LLMRequesting](t, next); st.Attempt != 1 || st.Exec != c.LastExec+1 {
		t.Fatalf("state = %+v; want a fresh first attempt", st)
	}
	wantKinds(t, persisted(t, effects), KindUser)
	only[RequestLLM](t, effects)
}

// Row "Idle + SpawnSubAgents → AwaitingSubAgents": sub-agents are spawned by the spawn_agents
// tool call, so the row is LLMRequesting + LLMResponse(spawn_agents) → AwaitingSubAgents with
// one SpawnSubAgents effect that starts all of them in parallel (REQ-BED-008).
func TestTransition_REQ_BED_008_SpawnAgents(t *testing.T) {
	c, effects := respond(t, requesting(t), "", spawnCall("s", "read the README", "list the tests"))
	st := wantState[AwaitingSubAgents](t, c)
	spawn := only[SpawnSubAgents](t, effects)
	if spawn.Exec != st.Exec || spawn.Deadline != DefaultSubAgentDeadline || len(spawn.Agents) != 2 {
		t.Fatalf("SpawnSubAgents = %+v; want two agents under exec %d", spawn, st.Exec)
	}
	for i, task := range []string{"read the README", "list the tests"} {
		a, o := spawn.Agents[i], st.Outcomes[i]
		if a.Task != task || o.Task != task || o.AgentID != a.ID || o.Status != SubAgentPending || a.ID == "" {
			t.Fatalf("agent %d = %+v, outcome %+v; want task %q pending", i, a, o, task)
		}
	}
	if spawn.Agents[0].ID == spawn.Agents[1].ID {
		t.Fatalf("sub-agent ids are not unique: %+v", spawn.Agents)
	}
	if st.Pending() != 2 || st.Call.ID != "s" {
		t.Fatalf("state = %+v; want two pending for call s", st)
	}
}

// Row "AwaitingSubAgents + SubAgentResult(last) → AwaitingLlm": results are aggregated in spawn
// order, whatever order they arrive in, into the spawn_agents result (REQ-BED-008).
func TestTransition_REQ_BED_008_LastSubAgentResult(t *testing.T) {
	c, _ := respond(t, requesting(t), "", spawnCall("s", "task one", "task two", "task three"))
	st := wantState[AwaitingSubAgents](t, c)
	ids := []string{st.Outcomes[0].AgentID, st.Outcomes[1].AgentID, st.Outcomes[2].AgentID}

	c, effects := step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: ids[2], Status: SubAgentSucceeded, Result: "third result"}})
	if len(persisted(t, effects)) != 0 || len(ioEffects(t, effects)) != 0 {
		t.Fatalf("a non-last result produced %s; want only the state change", describeEffects(effects))
	}
	if got := wantState[AwaitingSubAgents](t, c); got.Pending() != 2 || got.Outcomes[2].Result != "third result" || got.Outcomes[2].Task != "task three" {
		t.Fatalf("state = %+v", got)
	}
	// A second report from the same agent, a report from an unknown agent and a "pending"
	// report change nothing.
	wantUnchanged(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: ids[2], Status: SubAgentFailed}})
	wantUnchanged(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: "stranger", Status: SubAgentSucceeded}})
	wantUnchanged(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: ids[0], Status: SubAgentPending}})

	c, _ = step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: ids[0], Status: SubAgentFailed, Error: "bash crashed", Kind: ErrorUnknown}})
	next, effects := step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: ids[1], Status: SubAgentSucceeded, Result: "second result", Task: "forged task"}})
	wantState[LLMRequesting](t, next)
	only[RequestLLM](t, effects)
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindToolResult)
	wantResult(t, msgs[0], "s", OutcomeSuccess, "Results of 3 sub-agents")
	content := msgs[0].ToolResult.Content
	one, two, three := strings.Index(content, "task one"), strings.Index(content, "second result"), strings.Index(content, "third result")
	if one < 0 || two < 0 || three < 0 || one >= two || two >= three {
		t.Fatalf("aggregate is not in spawn order:\n%s", content)
	}
	if !strings.Contains(content, "bash crashed") || strings.Contains(content, "forged task") {
		t.Fatalf("aggregate must describe the failure and keep the spawned task:\n%s", content)
	}
	display := msgs[0].ToolResult.Display
	if display == nil || display.Summary != "2 of 3 succeeded" || len(display.SubAgents) != 3 {
		t.Fatalf("display = %+v; want 2 of 3 with all outcomes", display)
	}
}

// Every sub-agent failing makes the spawn_agents result an error; the parent handles it
// (REQ-BED-008).
func TestTransition_REQ_BED_008_AllSubAgentsFailed(t *testing.T) {
	c, _ := respond(t, requesting(t), "", spawnCall("s", "only task"))
	st := wantState[AwaitingSubAgents](t, c)
	_, effects := step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{
		AgentID: st.Outcomes[0].AgentID, Status: SubAgentFailed, Error: "context window exhausted", Kind: ErrorContextExhausted}})
	msgs := persisted(t, effects)
	// REQ-BED-024: the parent learns it may spawn a replacement.
	wantResult(t, msgs[0], "s", OutcomeError, "replacement")
}

// Sub-agent timeout: the deadline fails every sub-agent that has not reported, stops them and
// completes the spawn_agents result (REQ-BED-008).
func TestTransition_REQ_BED_008_SubAgentDeadline(t *testing.T) {
	c, _ := respond(t, requesting(t), "", spawnCall("s", "fast task", "slow task"), thinkCall("t"))
	st := wantState[AwaitingSubAgents](t, c)
	c, _ = step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: st.Outcomes[0].AgentID, Status: SubAgentSucceeded, Result: "fast result"}})
	wantUnchanged(t, c, SubAgentDeadline{Exec: st.Exec + 1})
	next, effects := step(t, c, SubAgentDeadline{Exec: st.Exec})
	stop := only[CancelSubAgents](t, effects)
	if stop.Exec != st.Exec || !slices.Equal(stop.AgentIDs, []string{st.Outcomes[1].AgentID}) {
		t.Fatalf("CancelSubAgents = %+v; want only the slow agent", stop)
	}
	msgs := persisted(t, effects)
	wantResult(t, msgs[0], "s", OutcomeSuccess, "fast result")
	if !strings.Contains(msgs[0].ToolResult.Content, "timed out") || !strings.Contains(msgs[0].ToolResult.Content, string(ErrorDeadline)) {
		t.Fatalf("aggregate does not describe the timeout:\n%s", msgs[0].ToolResult.Content)
	}
	// The round continues with the next call.
	if run := only[ExecuteTool](t, effects); run.Call.ID != "t" {
		t.Fatalf("ExecuteTool = %+v; want the think call", run)
	}
	wantState[ToolExecuting](t, next)
	// A late report from the timed-out agent is stale.
	wantUnchanged(t, next, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: st.Outcomes[1].AgentID, Status: SubAgentSucceeded}})
}

func TestTransition_REQ_BED_005_CancelDuringSubAgents(t *testing.T) {
	c, _ := respond(t, requesting(t), "", spawnCall("s", "one", "two"), bashCall("b"))
	st := wantState[AwaitingSubAgents](t, c)
	c, _ = step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: st.Outcomes[1].AgentID, Status: SubAgentSucceeded, Result: "two done"}})
	next, effects := step(t, c, UserCancel{})
	wantState[Idle](t, next)
	stop := only[CancelSubAgents](t, effects)
	if !slices.Equal(stop.AgentIDs, []string{st.Outcomes[0].AgentID}) {
		t.Fatalf("CancelSubAgents = %+v; want the pending agent only", stop)
	}
	msgs := persisted(t, effects)
	wantResult(t, msgs[0], "s", OutcomeCancelled, "two done")
	wantResult(t, msgs[1], "b", OutcomeSkipped, SkippedResultText)
}

// --- matrix 2: context continuation ---------------------------------------------------------

// Row "LlmRequesting + LlmResponse(>= 90%, ThresholdBased) → AwaitingContinuation": no tool of
// that response runs; each gets a "not executed" result so the history stays valid, and the
// tool-less summary request names them (REQ-BED-019, REQ-BED-020).
func TestTransition_REQ_BED_019_ContinuationAtThreshold(t *testing.T) {
	c := requesting(t)
	usage := Usage{InputTokens: 8_900, OutputTokens: 100} // exactly 90% of testWindow
	calls := []ToolCall{bashCall("a"), patchCall("b"), spawnCall("s", "x")}
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "working", ToolCalls: calls, Usage: usage})
	st := wantState[AwaitingContinuation](t, next)
	if st.TriggerUsage != usage || st.Attempt != 1 || !reflect.DeepEqual(st.Rejected, calls) || st.Exec != c.LastExec+1 {
		t.Fatalf("state = %+v; want the rejected calls, trigger usage and a fresh exec", st)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant, KindToolResult, KindToolResult, KindToolResult)
	for i, c := range calls {
		wantResult(t, msgs[i+1], c.ID, OutcomeSkipped, ContextRejectedText)
	}
	for _, e := range effects {
		switch e.(type) {
		case ExecuteTool, SpawnSubAgents, RequestApproval:
			t.Fatalf("a tool started at the threshold: %s", describeEffects(effects))
		}
	}
	req := only[RequestLLM](t, effects)
	if req.Exec != st.Exec || req.Continuation == nil {
		t.Fatalf("RequestLLM = %+v; want a continuation request", req)
	}
	for _, name := range []string{"- bash", "- patch", "- spawn_agents"} {
		if !strings.Contains(req.Continuation.Prompt, name) {
			t.Fatalf("continuation prompt does not name %q:\n%s", name, req.Continuation.Prompt)
		}
	}
	if !strings.Contains(req.Continuation.Prompt, "not executed") {
		t.Fatalf("prompt does not say the tools were not executed:\n%s", req.Continuation.Prompt)
	}
}

func TestTransition_REQ_BED_019_BelowThresholdRunsTools(t *testing.T) {
	c := requesting(t)
	usage := Usage{InputTokens: 8_899, OutputTokens: 100} // one token under 90%
	next, _ := step(t, c, LLMResponse{Exec: mustExec(t, c), ToolCalls: []ToolCall{bashCall("a")}, Usage: usage})
	wantState[ToolExecuting](t, next)
	if !AtWarning(next.Usage, next.ContextWindow) {
		t.Fatalf("89.99%% should be past the 80%% warning (REQ-BED-023)")
	}
}

// A text-only reply at the threshold also starts the continuation: the next user message would
// not fit.
func TestTransition_REQ_BED_019_TextReplyAtThreshold(t *testing.T) {
	c := requesting(t)
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "done", Usage: Usage{InputTokens: 9_500}})
	st := wantState[AwaitingContinuation](t, next)
	if len(st.Rejected) != 0 {
		t.Fatalf("rejected = %+v; want none", st.Rejected)
	}
	if req := only[RequestLLM](t, effects); req.Continuation == nil || strings.Contains(req.Continuation.Prompt, "not executed") {
		t.Fatalf("continuation = %+v; want a prompt without rejected tools", req.Continuation)
	}
}

// Row "LlmRequesting + LlmResponse(>= 90%, Unhandled) → Failed + NotifyParent": a sub-agent
// fails with kind context_exhausted and no continuation flow (REQ-BED-024).
func TestTransition_REQ_BED_024_SubAgentContextExhausted(t *testing.T) {
	c := requesting(t, subAgent)
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), ToolCalls: []ToolCall{bashCall("a")}, Usage: Usage{InputTokens: 9_000}})
	st := wantState[Failed](t, next)
	if st.ErrKind != ErrorContextExhausted {
		t.Fatalf("state = %+v; want kind context_exhausted", st)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant, KindToolResult)
	wantResult(t, msgs[1], "a", OutcomeSkipped, ContextRejectedText)
	n := only[NotifyParent](t, effects)
	want := SubAgentOutcome{AgentID: "c1", Task: "find the bug", Status: SubAgentFailed, Error: st.Message, Kind: ErrorContextExhausted}
	if n.ParentID != "parent" || n.ParentExec != 7 || n.Outcome != want {
		t.Fatalf("NotifyParent = %+v; want %+v to parent/7", n, want)
	}
	for _, e := range effects {
		if r, ok := e.(RequestLLM); ok {
			t.Fatalf("a sub-agent started a request %+v at the threshold", r)
		}
	}
}

// Row "AwaitingContinuation + ContinuationResponse → ContextExhausted": the continuation
// response arrives as an LLMResponse while in AwaitingContinuation (REQ-BED-020).
func TestTransition_REQ_BED_020_ContinuationResponse(t *testing.T) {
	c, _ := step(t, newConv(t), UserTriggerContinuation{})
	exec := mustExec(t, c)
	usage := Usage{InputTokens: 9_100, OutputTokens: 300}
	next, effects := step(t, c, LLMResponse{Exec: exec, Text: "  Summary: we fixed X.  ", ToolCalls: []ToolCall{bashCall("ignored")}, Usage: usage})
	st := wantState[ContextExhausted](t, next)
	if st.Summary != "Summary: we fixed X." || st.FinalUsage != usage || next.Usage != usage {
		t.Fatalf("state = %+v, usage %+v; want the trimmed summary and the response's usage", st, next.Usage)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindContinuation)
	if msgs[0].Text != st.Summary || len(msgs[0].ToolCalls) != 0 {
		t.Fatalf("continuation message = %+v", msgs[0])
	}
	// The summary is a reply: its usage is on its message, as Spent counts it (issue 33).
	if msgs[0].Usage == nil || *msgs[0].Usage != usage || next.Spent.Responses != 1 {
		t.Fatalf("continuation message usage = %+v, spent %+v; want the response's", msgs[0].Usage, next.Spent)
	}
	if len(effects) != 1 {
		t.Fatalf("effects = %s; want only Persist", describeEffects(effects))
	}

	// An empty summary is replaced by the fallback rather than stored empty.
	next, _ = step(t, c, LLMResponse{Exec: exec, Text: " "})
	if st := wantState[ContextExhausted](t, next); st.Summary != FallbackSummary {
		t.Fatalf("summary = %q; want the fallback", st.Summary)
	}
}

// The meter of a wrapped-up conversation shows the fill it was wrapped up at: a summary
// request that counts less (it leaves out the rejected reply, or a provider counts it as
// almost nothing) does not lower it under the threshold that ended the conversation
// (issue 41: the meter read 89% at the 90% limit, 0% after a wrap-up at 3%).
func TestTransition_REQ_BED_020_ContinuationKeepsTheFill(t *testing.T) {
	c := requesting(t)
	trigger := Usage{InputTokens: c.Window() * 903 / 1000}
	c, _ = step(t, c, LLMResponse{Exec: mustExec(t, c), ToolCalls: []ToolCall{bashCall("a")}, Usage: trigger})
	wantState[AwaitingContinuation](t, c)
	less := Usage{InputTokens: c.Window() * 89 / 100, OutputTokens: 10}
	next, _ := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "summary", Usage: less})
	if st := wantState[ContextExhausted](t, next); st.FinalUsage != less {
		t.Fatalf("final usage = %+v; want the summary request's %+v", st.FinalUsage, less)
	}
	if next.Usage != trigger || UsagePercent(next.Usage, next.Window()) != 90 || !AtContinuation(next.Usage, next.Window()) {
		t.Fatalf("usage = %+v (%d%%); want the trigger's %+v, at 90%%", next.Usage, UsagePercent(next.Usage, next.Window()), trigger)
	}

	// A manual wrap-up at 3% keeps 3%, though the summary request reports 0.
	low := newConv(t)
	low.Usage = Usage{InputTokens: low.Window() * 3 / 100}
	low, _ = step(t, low, UserTriggerContinuation{})
	next, _ = step(t, low, LLMResponse{Exec: mustExec(t, low), Text: "summary", Usage: Usage{InputTokens: 5}})
	if UsagePercent(next.Usage, next.Window()) != 3 {
		t.Fatalf("usage after a wrap-up at 3%% = %+v (%d%%)", next.Usage, UsagePercent(next.Usage, next.Window()))
	}
}

// Row "AwaitingContinuation + ContinuationFailed → ContextExhausted (fallback)": failure is an
// LLMError that is not retryable, or one that is out of attempts (REQ-BED-020).
func TestTransition_REQ_BED_020_ContinuationFallback(t *testing.T) {
	t.Run("not retryable", func(t *testing.T) {
		c, _ := step(t, newConv(t), UserTriggerContinuation{})
		next, effects := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorAuth})
		st := wantState[ContextExhausted](t, next)
		if st.Summary != FallbackSummary {
			t.Fatalf("summary = %q", st.Summary)
		}
		wantKinds(t, persisted(t, effects), KindContinuation)
	})
	t.Run("after standard retries", func(t *testing.T) {
		c := requesting(t)
		trigger := Usage{InputTokens: 9_999}
		c, _ = step(t, c, LLMResponse{Exec: mustExec(t, c), Usage: trigger})
		for attempt := 1; attempt < MaxAttempts; attempt++ {
			var effects []Effect
			c, effects = step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorServer})
			if st := wantState[AwaitingContinuation](t, c); st.Attempt != attempt+1 || !st.RetryPending {
				t.Fatalf("state = %+v; want attempt %d waiting", st, attempt+1)
			}
			only[ScheduleRetry](t, effects)
			c, effects = step(t, c, RetryTimeout{Exec: mustExec(t, c)})
			if req := only[RequestLLM](t, effects); req.Continuation == nil || req.Attempt != attempt+1 {
				t.Fatalf("retry request = %+v; want a continuation attempt %d", req, attempt+1)
			}
		}
		next, _ := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorServer})
		st := wantState[ContextExhausted](t, next)
		if st.Summary != FallbackSummary || st.FinalUsage != trigger {
			t.Fatalf("state = %+v; want the fallback with the trigger usage", st)
		}
	})
}

// Row "AwaitingContinuation + UserCancel → ContextExhausted (cancelled)".
func TestTransition_REQ_BED_020_CancelDuringContinuation(t *testing.T) {
	c, _ := step(t, newConv(t), UserTriggerContinuation{})
	exec := mustExec(t, c)
	next, effects := step(t, c, UserCancel{})
	if st := wantState[ContextExhausted](t, next); st.Summary != CancelledSummary {
		t.Fatalf("summary = %q", st.Summary)
	}
	wantKinds(t, persisted(t, effects), KindContinuation)
	if got := only[AbortLLM](t, effects); got.Exec != exec {
		t.Fatalf("AbortLLM = %+v", got)
	}
	wantUnchanged(t, next, LLMResponse{Exec: exec, Text: "late summary"})
}

// Row "ContextExhausted + UserMessage → REJECT context exhausted" (REQ-BED-021).
func TestTransition_REQ_BED_021_ContextExhaustedRejectsMessages(t *testing.T) {
	c := exhausted(t)
	wantRejected(t, c, UserMessage{Text: "one more thing"}, ErrContextExhausted)
	wantRejected(t, c, UserTriggerContinuation{}, ErrContextExhausted)
	if ErrContextExhausted.Error() != "context exhausted" {
		t.Fatalf("ErrContextExhausted says %q", ErrContextExhausted)
	}
}

// Row "ContextExhausted + * → ContextExhausted (no-op)": every other event changes nothing.
func TestTransition_REQ_BED_021_ContextExhaustedAbsorbs(t *testing.T) {
	c := exhausted(t)
	last := c.LastExec
	for _, ev := range []Event{
		UserDowngrade{}, RestoreAfterRestart{},
		LLMResponse{Exec: last, Text: "x", ToolCalls: []ToolCall{bashCall("a")}}, LLMError{Exec: last, Kind: ErrorServer},
		RetryTimeout{Exec: last}, ToolComplete{Exec: last}, SubAgentFinished{Exec: last}, SubAgentDeadline{Exec: last},
	} {
		wantUnchanged(t, c, ev)
	}
	wantRejected(t, c, ModeDecision{Exec: last, Approve: true}, ErrNoPendingApproval)
	wantRejected(t, c, UserCancel{}, ErrNothingToStop)
}

func exhausted(t testing.TB) Conversation {
	t.Helper()
	c, _ := step(t, newConv(t, unrestricted), UserTriggerContinuation{})
	c, _ = step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "summary"})
	wantState[ContextExhausted](t, c)
	return c
}

// Row "Idle + UserTriggerContinuation → AwaitingContinuation" (REQ-BED-023): the manual
// trigger behaves like the automatic one, with no rejected tools. Error is a resting state too,
// so wrapping up after a failure is allowed.
func TestTransition_REQ_BED_023_ManualContinuation(t *testing.T) {
	idle, _ := respond(t, requesting(t), "hi")
	errored := requesting(t)
	errored, _ = step(t, errored, LLMError{Exec: mustExec(t, errored), Kind: ErrorAuth})
	for name, c := range map[string]Conversation{"idle": idle, "error": errored} {
		t.Run(name, func(t *testing.T) {
			next, effects := step(t, c, UserTriggerContinuation{})
			st := wantState[AwaitingContinuation](t, next)
			if st.Attempt != 1 || len(st.Rejected) != 0 || st.TriggerUsage != c.Usage || st.Exec != c.LastExec+1 {
				t.Fatalf("state = %+v; want attempt 1 from usage %+v", st, c.Usage)
			}
			if msgs := persisted(t, effects); len(msgs) != 0 {
				t.Fatalf("manual trigger persisted %+v", msgs)
			}
			if req := only[RequestLLM](t, effects); req.Continuation == nil || req.Continuation.Prompt != ContinuationPrompt(nil) {
				t.Fatalf("RequestLLM = %+v; want the plain continuation prompt", req)
			}
		})
	}
	for name, c := range busyStates(t) {
		t.Run("busy/"+name, func(t *testing.T) {
			wantRejected(t, c, UserTriggerContinuation{}, ErrNotIdle)
		})
	}
}

// --- modes (REQ-BED-014 … 018) ---------------------------------------------------------------

func TestNewConversation_REQ_BED_014_018_InitialMode(t *testing.T) {
	tests := []struct {
		name string
		opts []convOption
		want Mode
	}{
		{"landlock: restricted", nil, ModeRestricted},
		{"landlock, asked unrestricted", []convOption{unrestricted}, ModeUnrestricted},
		{"no landlock: unrestricted only", []convOption{noLandlock}, ModeUnrestricted},
		{"sub-agent: always restricted", []convOption{subAgent, unrestricted}, ModeRestricted},
		{"sub-agent without landlock", []convOption{subAgent, noLandlock}, ModeUnrestricted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConv(t, tt.opts...)
			if c.Mode != tt.want {
				t.Fatalf("mode = %s; want %s", c.Mode, tt.want)
			}
			if _, ok := c.State.(Idle); !ok || c.NextSeq != 0 || c.LastExec != 0 {
				t.Fatalf("new conversation = %+v; want Idle at seq 0", c)
			}
		})
	}
}

func TestNewConversation_Validation(t *testing.T) {
	ok := NewConversationParams{ID: "x", Cwd: "/w", Model: "mystery-model"}
	c, err := NewConversation(ok)
	if err != nil || c.ContextWindow != SmallestKnownWindow || c.UserInitiated() != true {
		t.Fatalf("NewConversation = %+v, %v; want the smallest window for an unknown model", c, err)
	}
	for name, mutate := range map[string]func(*NewConversationParams){
		"no id": func(p *NewConversationParams) { p.ID = "" }, "no cwd": func(p *NewConversationParams) { p.Cwd = "" },
		"no model": func(p *NewConversationParams) { p.Model = "" },
	} {
		p := ok
		mutate(&p)
		if _, err := NewConversation(p); err == nil {
			t.Errorf("%s: NewConversation accepted %+v", name, p)
		}
	}
}

// REQ-BED-015: request_mode_upgrade pauses in AwaitingModeApproval, with no timeout.
func TestTransition_REQ_BED_015_UpgradeRequestPauses(t *testing.T) {
	c, effects := respond(t, requesting(t), "", upgradeCall("u", "I need to edit main.go"))
	st := wantState[AwaitingModeApproval](t, c)
	if st.Reason != "I need to edit main.go" || st.Call.ID != "u" {
		t.Fatalf("state = %+v", st)
	}
	if got := only[RequestApproval](t, effects); got != (RequestApproval{Exec: st.Exec, Reason: st.Reason}) {
		t.Fatalf("RequestApproval = %+v", got)
	}
	for _, e := range effects {
		if _, ok := e.(ScheduleRetry); ok {
			t.Fatalf("the approval must not time out: %s", describeEffects(effects))
		}
	}
}

// REQ-BED-015, REQ-BED-017: approve and deny answer the call and resume the agent; an
// approval states the new mode in one synthetic system message.
func TestTransition_REQ_BED_015_ModeDecision(t *testing.T) {
	tests := []struct {
		name        string
		approve     bool
		wantMode    Mode
		wantOutcome Outcome
		wantResult  string
		wantSystem  string
	}{
		{"approve", true, ModeUnrestricted, OutcomeSuccess, "Approved", "Mode changed to Unrestricted"},
		{"deny", false, ModeRestricted, OutcomeError, "Denied", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := respond(t, requesting(t), "", upgradeCall("u", "edit"))
			exec := mustExec(t, c)
			wantRejected(t, c, ModeDecision{Exec: exec + 1, Approve: tt.approve}, ErrNoPendingApproval)
			next, effects := step(t, c, ModeDecision{Exec: exec, Approve: tt.approve})
			if next.Mode != tt.wantMode {
				t.Fatalf("mode = %s; want %s", next.Mode, tt.wantMode)
			}
			msgs := persisted(t, effects)
			wantAnnouncedOnce(t, msgs, tt.wantSystem, tt.wantMode)
			wantResult(t, msgs[0], "u", tt.wantOutcome, tt.wantResult)
			wantState[LLMRequesting](t, next)
			only[RequestLLM](t, effects)
			// A second click finds nothing to decide.
			wantRejected(t, next, ModeDecision{Exec: exec, Approve: tt.approve}, ErrNoPendingApproval)
		})
	}
}

// After an approval the rest of the round runs in the new mode: a patch that follows the
// upgrade request is executed, not refused.
func TestTransition_REQ_BED_015_ApprovalAppliesToRestOfRound(t *testing.T) {
	c, _ := respond(t, requesting(t), "", upgradeCall("u", "edit"), patchCall("p"))
	next, effects := step(t, c, ModeDecision{Exec: mustExec(t, c), Approve: true})
	run := only[ExecuteTool](t, effects)
	if run.Call.ID != "p" || run.Mode != ModeUnrestricted {
		t.Fatalf("ExecuteTool = %+v; want the patch, unrestricted", run)
	}
	wantState[ToolExecuting](t, next)

	next, effects = step(t, c, ModeDecision{Exec: mustExec(t, c), Approve: false})
	msgs := persisted(t, effects)
	wantResult(t, msgs[1], "p", OutcomeError, "request_mode_upgrade")
	wantState[LLMRequesting](t, next)
}

// REQ-BED-015: asking for Unrestricted when already there is answered at once.
func TestTransition_REQ_BED_015_UpgradeWhenAlreadyUnrestricted(t *testing.T) {
	for name, opt := range map[string]convOption{"asked at creation": unrestricted, "no landlock": noLandlock} {
		t.Run(name, func(t *testing.T) {
			c, effects := respond(t, requesting(t, opt), "", upgradeCall("u", "edit"))
			msgs := persisted(t, effects)
			wantResult(t, msgs[1], "u", OutcomeError, "Already in Unrestricted mode")
			wantState[LLMRequesting](t, c)
			if c.Mode != ModeUnrestricted {
				t.Fatalf("mode = %s", c.Mode)
			}
		})
	}
}

func TestTransition_REQ_BED_015_UpgradeNeedsReason(t *testing.T) {
	_, effects := respond(t, requesting(t), "", call("u", ToolRequestModeUpgrade, `{"reason":"  "}`))
	wantResult(t, persisted(t, effects)[1], "u", OutcomeError, "needs a reason")
}

// REQ-BED-016: the person's downgrade is immediate, needs no approval, is persisted and
// announced to the agent (REQ-BED-017).
func TestTransition_REQ_BED_016_UserDowngrade(t *testing.T) {
	c, _ := respond(t, requesting(t, unrestricted), "hi")
	next, effects := step(t, c, UserDowngrade{})
	if next.Mode != ModeRestricted {
		t.Fatalf("mode = %s; want restricted", next.Mode)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindSystem)
	if !strings.Contains(msgs[0].Text, "Restricted") || !strings.Contains(msgs[0].Text, "request_mode_upgrade") {
		t.Fatalf("system message = %q", msgs[0].Text)
	}
	// Already restricted: nothing to do.
	wantUnchanged(t, next, UserDowngrade{})
	// Without Landlock Restricted mode cannot be enforced.
	wantRejected(t, newConv(t, noLandlock), UserDowngrade{}, ErrLandlockUnavailable)
}

// A downgrade while tools run takes effect at once for the rest of the round: a later patch is
// refused. (A running think is read-only and is left to finish; a running bash is killed, see
// TestTransition_REQ_BED_016_DowngradeKillsUnrestrictedBash.)
func TestTransition_REQ_BED_016_DowngradeDuringRound(t *testing.T) {
	c, _ := respond(t, requesting(t, unrestricted), "", thinkCall("a"), patchCall("p"))
	c, _ = step(t, c, UserDowngrade{})
	if c.Mode != ModeRestricted {
		t.Fatalf("mode = %s", c.Mode)
	}
	_, effects := step(t, c, ToolComplete{Exec: mustExec(t, c), Result: ToolResult{Outcome: OutcomeSuccess}})
	wantResult(t, persisted(t, effects)[1], "p", OutcomeError, "request_mode_upgrade")
}

// The notice of a downgrade during a round is written after the round's results, however the
// round ends: completed, cancelled or cut short by a restart. The APIs require the results to
// follow their assistant message directly (ValidateHistory).
func TestTransition_REQ_BED_017_NoticeHeldUntilRoundEnds(t *testing.T) {
	ends := []struct {
		name string
		end  func(c Conversation, history []Message) Event
		want []MessageKind
	}{
		{"completed", func(c Conversation, _ []Message) Event {
			return ToolComplete{Exec: mustExec(t, c), Result: ToolResult{Outcome: OutcomeSuccess}}
		}, []MessageKind{KindToolResult, KindToolResult, KindSystem}},
		{"cancelled", func(Conversation, []Message) Event { return UserCancel{} },
			[]MessageKind{KindToolResult, KindToolResult, KindSystem}},
		{"restart", func(_ Conversation, h []Message) Event { return RestoreAfterRestart{Unanswered: UnansweredCalls(h)} },
			[]MessageKind{KindToolResult, KindToolResult, KindSystem, KindError}},
	}
	for _, tt := range ends {
		t.Run(tt.name, func(t *testing.T) {
			c := requesting(t, unrestricted)
			history := []Message{{Seq: 0, Kind: KindUser, Text: "hello"}}
			c, effects := respond(t, c, "", thinkCall("a"), patchCall("p"))
			history = append(history, persisted(t, effects)...)
			c, effects = step(t, c, UserDowngrade{})
			if msgs := persisted(t, effects); len(msgs) != 0 {
				t.Fatalf("the notice was written inside the round: %+v", msgs)
			}
			if st := wantState[ToolExecuting](t, c); len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "Restricted") {
				t.Fatalf("notes = %v; want the downgrade notice held", st.Notes)
			}
			c, effects = step(t, c, tt.end(c, history))
			msgs := persisted(t, effects)
			wantKinds(t, msgs, tt.want...)
			history = append(history, msgs...)
			if err := ValidateHistory(history, false); err != nil {
				t.Fatalf("history invalid: %v", err)
			}
			if c.Mode != ModeRestricted {
				t.Fatalf("mode = %s", c.Mode)
			}
		})
	}
}

// REQ-BED-017: patch in Restricted mode is refused with an error that says what to do.
func TestTransition_REQ_BED_017_PatchInRestricted(t *testing.T) {
	t.Run("parent", func(t *testing.T) {
		c, effects := respond(t, requesting(t), "", patchCall("p"))
		msgs := persisted(t, effects)
		wantResult(t, msgs[1], "p", OutcomeError, "request_mode_upgrade")
		wantState[LLMRequesting](t, c)
		for _, e := range effects {
			if _, ok := e.(ExecuteTool); ok {
				t.Fatalf("patch was executed in Restricted mode")
			}
		}
	})
	t.Run("sub-agent", func(t *testing.T) {
		_, effects := respond(t, requesting(t, subAgent), "", patchCall("p"))
		r := persisted(t, effects)[1].ToolResult
		if r.Outcome != OutcomeError || strings.Contains(r.Content, "request_mode_upgrade") || !strings.Contains(r.Content, "submit_result") {
			t.Fatalf("sub-agent patch result = %+v; must not point to a tool it lacks", r)
		}
	})
	t.Run("unrestricted runs it", func(t *testing.T) {
		_, effects := respond(t, requesting(t, unrestricted), "", patchCall("p"))
		if run := only[ExecuteTool](t, effects); run.Mode != ModeUnrestricted {
			t.Fatalf("ExecuteTool = %+v", run)
		}
	})
}

// The calls the core can decide are answered without running anything, and the round goes on
// with the next call.
func TestTransition_REQ_BED_004_CoreDecidedCalls(t *testing.T) {
	tests := []struct {
		name string
		opts []convOption
		call ToolCall
		want string
	}{
		{"unknown tool", nil, call("x", "rm_rf", `{}`), `Unknown tool "rm_rf"`},
		{"bad JSON", nil, call("x", ToolBash, `{"command":`), "not a valid JSON object"},
		{"JSON array", nil, call("x", ToolBash, `["ls"]`), "not a valid JSON object"},
		{"JSON null", nil, call("x", ToolBash, `null`), "not a valid JSON object"},
		{"parent calling submit_result", nil, submitCall("x", "done", nil), "Unknown tool"},
		{"sub-agent calling spawn_agents", []convOption{subAgent}, spawnCall("x", "t"), "Unknown tool"},
		{"sub-agent calling request_mode_upgrade", []convOption{subAgent}, upgradeCall("x", "r"), "Unknown tool"},
		{"spawn without tasks", nil, call("x", ToolSpawnAgents, `{"tasks":[]}`), "between 1 and 10"},
		{"spawn with too many tasks", nil, spawnCall("x", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"), "between 1 and 10"},
		{"spawn with an empty task", nil, spawnCall("x", "ok", " "), "task 2 is empty"},
		{"spawn with wrong types", nil, call("x", ToolSpawnAgents, `{"tasks":"one"}`), "list of strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, effects := respond(t, requesting(t, tt.opts...), "", tt.call, thinkCall("next"))
			wantResult(t, persisted(t, effects)[1], "x", OutcomeError, tt.want)
			if run := only[ExecuteTool](t, effects); run.Call.ID != "next" {
				t.Fatalf("ExecuteTool = %+v; want the next call", run)
			}
			st := wantState[ToolExecuting](t, c)
			if !slices.Equal(st.Completed, []string{"x"}) {
				t.Fatalf("completed = %v; want [x]", st.Completed)
			}
		})
	}
}

// --- sub-agents (REQ-BED-008, 009, 024) ------------------------------------------------------

// submit_result alone completes the sub-agent and notifies the parent; not alone it is refused
// and the sub-agent goes on.
func TestTransition_REQ_BED_008_SubmitResult(t *testing.T) {
	tests := []struct {
		name       string
		calls      []ToolCall
		wantState  StateKind
		wantStatus SubAgentStatus
		wantResult string
	}{
		{"alone", []ToolCall{submitCall("r", "found it in main.go", nil)}, StateCompleted, SubAgentSucceeded, SubmittedResultText},
		{"alone, success false", []ToolCall{submitCall("r", "could not build", boolPtr(false))}, StateCompleted, SubAgentFailed, SubmittedResultText},
		{"alone, empty result", []ToolCall{call("r", ToolSubmitResult, `{"result":""}`)}, StateLLMRequesting, "", "non-empty result"},
		{"not alone, after", []ToolCall{thinkCall("t"), submitCall("r", "x", nil)}, StateToolExecuting, "", "only tool call"},
		{"not alone, before", []ToolCall{submitCall("r", "x", nil), thinkCall("t")}, StateToolExecuting, "", "only tool call"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, effects := respond(t, requesting(t, subAgent), "", tt.calls...)
			if c.State.Kind() != tt.wantState {
				t.Fatalf("state = %s; want %s", c.State.Kind(), tt.wantState)
			}
			msgs := persisted(t, effects)
			var result *Message
			for i := range msgs {
				if msgs[i].Kind == KindToolResult && msgs[i].ToolResult.CallID == "r" {
					result = &msgs[i]
				}
			}
			if tt.wantState == StateToolExecuting && tt.calls[0].ID == "t" {
				// submit_result comes after think, so it is refused when think completes.
				c, effects = step(t, c, ToolComplete{Exec: mustExec(t, c), Result: ToolResult{Outcome: OutcomeSuccess}})
				msgs = persisted(t, effects)
				wantKinds(t, msgs, KindToolResult, KindToolResult)
				result = &msgs[1]
			}
			if result == nil {
				t.Fatalf("no result for submit_result in %+v", msgs)
			}
			if !strings.Contains(result.ToolResult.Content, tt.wantResult) {
				t.Fatalf("submit_result result = %q; want %q", result.ToolResult.Content, tt.wantResult)
			}
			if tt.wantState != StateCompleted {
				for _, e := range effects {
					if _, ok := e.(NotifyParent); ok {
						t.Fatalf("parent notified although the sub-agent goes on")
					}
				}
				return
			}
			st := wantState[Completed](t, c)
			n := only[NotifyParent](t, effects)
			if n.Outcome.Status != tt.wantStatus || n.Outcome.Result != st.Result || n.Outcome.AgentID != "c1" || n.ParentExec != 7 {
				t.Fatalf("NotifyParent = %+v; want status %s with the result", n, tt.wantStatus)
			}
			if st.Success != (tt.wantStatus == SubAgentSucceeded) {
				t.Fatalf("state = %+v", st)
			}
			wantRejected(t, c, UserMessage{Text: "more"}, ErrFinished)
		})
	}
}

// Issue 13 item 4: a sub-agent that ends its turn without submit_result is reminded once
// (row "LLMRequesting + text-only reply, sub-agent not yet reminded → LLMRequesting"); a
// second plain answer fails it (row "… already reminded → Failed(no_result)"), and the parent
// gets that whole answer, up to the tool-output cap, not a 500-character excerpt.
func TestTransition_REQ_BED_008_SubAgentEndsWithoutResult(t *testing.T) {
	c, effects := respond(t, requesting(t, subAgent), "I think the bug is in main.go")
	st := wantState[LLMRequesting](t, c)
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant, KindSystem)
	if msgs[1].Text != SubmitReminderText || !strings.Contains(msgs[1].Text, "call submit_result") && !strings.Contains(msgs[1].Text, "Call submit_result") {
		t.Fatalf("reminder = %q", msgs[1].Text)
	}
	if req := only[RequestLLM](t, effects); req.Exec != st.Exec || req.Attempt != 1 || req.Continuation != nil || !c.SubmitReminded {
		t.Fatalf("RequestLLM = %+v, reminded %v; want a fresh request with tools", req, c.SubmitReminded)
	}
	for _, e := range effects {
		if _, ok := e.(NotifyParent); ok {
			t.Fatalf("the parent was notified before the reminder was answered")
		}
	}

	long := "Findings:\n" + strings.Repeat("the bug is in main.go line 12. ", 200) + "END"
	c, effects = respond(t, c, long)
	failed := wantState[Failed](t, c)
	n := only[NotifyParent](t, effects)
	if failed.ErrKind != ErrorNoResult || n.Outcome.Kind != ErrorNoResult || n.Outcome.Status != SubAgentFailed ||
		!strings.Contains(n.Outcome.Error, "even after a reminder") {
		t.Fatalf("state %+v, notify %+v; want no_result after the reminder", failed, n)
	}
	if n.Outcome.Result != strings.TrimSpace(long) {
		t.Fatalf("the parent got %d of the answer's %d bytes; want all of it", len(n.Outcome.Result), len(long))
	}
	if agg := AggregateSubAgents([]SubAgentOutcome{n.Outcome}); !strings.Contains(agg, "END") {
		t.Fatalf("the aggregate the parent's model reads lacks the end of the answer:\n%s", agg)
	}

	// An answer above the tool-output cap is cut there, and says so.
	c, _ = respond(t, requesting(t, subAgent), "first")
	_, effects = respond(t, c, strings.Repeat("x", ToolOutputLimit+500))
	n = only[NotifyParent](t, effects)
	if len(n.Outcome.Result) > ToolOutputLimit+100 || !strings.Contains(n.Outcome.Result, "500 more bytes left out") {
		t.Fatalf("an oversized last answer gave the parent %d bytes ending %q", len(n.Outcome.Result), n.Outcome.Result[len(n.Outcome.Result)-60:])
	}
}

// A sub-agent's LLM failure fails it and reports to the parent instead of waiting in Error.
func TestTransition_REQ_BED_008_SubAgentLLMFailure(t *testing.T) {
	c := requesting(t, subAgent)
	next, effects := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorAuth, Message: "bad key"})
	st := wantState[Failed](t, next)
	if n := only[NotifyParent](t, effects); st.ErrKind != ErrorAuth || n.Outcome.Error != "bad key" {
		t.Fatalf("state %+v, notify %+v", st, n)
	}
}

// A sub-agent cancelled by its parent fails with kind cancelled.
func TestTransition_REQ_BED_008_SubAgentCancelled(t *testing.T) {
	c, _ := respond(t, requesting(t, subAgent), "", bashCall("a"))
	next, effects := step(t, c, UserCancel{})
	if st := wantState[Failed](t, next); st.ErrKind != ErrorCancelled {
		t.Fatalf("state = %+v", st)
	}
	only[KillTool](t, effects)
	if n := only[NotifyParent](t, effects); n.Outcome.Kind != ErrorCancelled {
		t.Fatalf("NotifyParent = %+v", n)
	}
}

// REQ-BED-009/018: a sub-agent cannot ask for continuation or more permissions.
func TestTransition_REQ_BED_024_SubAgentNoManualContinuation(t *testing.T) {
	wantRejected(t, newConv(t, subAgent), UserTriggerContinuation{}, ErrNoSubAgentContinuation)
	wantRejected(t, requesting(t, subAgent), UserTriggerContinuation{}, ErrNoSubAgentContinuation)
	done, _ := respond(t, requesting(t, subAgent), "", submitCall("r", "x", nil))
	wantRejected(t, done, UserTriggerContinuation{}, ErrFinished)
}

// --- restart (REQ-BED-007) -----------------------------------------------------------------

// Restore after a restart brings every working state to rest and answers every open tool call
// from the history, so the next request is valid.
func TestTransition_REQ_BED_007_RestoreAfterRestart(t *testing.T) {
	type working struct {
		conv    Conversation
		history []Message
	}
	build := func(t *testing.T, opts []convOption, events ...func(Conversation) Event) working {
		c := newConv(t, opts...)
		var history []Message
		for _, ev := range append([]func(Conversation) Event{func(Conversation) Event { return UserMessage{Text: "go"} }}, events...) {
			var effects []Effect
			c, effects = step(t, c, ev(c))
			history = append(history, persisted(t, effects)...)
		}
		return working{conv: c, history: history}
	}
	reply := func(calls ...ToolCall) func(Conversation) Event {
		return func(c Conversation) Event {
			exec, _ := CurrentExec(c.State)
			return LLMResponse{Exec: exec, ToolCalls: calls, Usage: Usage{InputTokens: 10}}
		}
	}
	atThreshold := func(c Conversation) Event {
		exec, _ := CurrentExec(c.State)
		return LLMResponse{Exec: exec, ToolCalls: []ToolCall{bashCall("a")}, Usage: Usage{InputTokens: 9_990}}
	}
	failOnce := func(c Conversation) Event {
		exec, _ := CurrentExec(c.State)
		return LLMError{Exec: exec, Kind: ErrorServer}
	}
	tests := []struct {
		name      string
		opts      []convOption
		events    []func(Conversation) Event
		wantState StateKind
		wantOpen  int // interrupted results expected
		why       string
		// notice is the "Not answered" notice the person sees last (issue 25), or "" for none:
		// a continuation says so in its summary, and a sub-agent's parent is told instead.
		notice string
	}{
		{"llm requesting", nil, nil, StateIdle, 0, "", "Not answered: the app stopped before the reply."},
		{"llm requesting, disk full", nil, nil, StateIdle, 0, "the disk was full", "Not answered: the app stopped before the reply (the disk was full)."},
		{"llm retry pending", nil, []func(Conversation) Event{failOnce}, StateIdle, 0, "", "Not answered: the app stopped before the reply."},
		{"tool executing", nil, []func(Conversation) Event{reply(bashCall("a"), bashCall("b"))}, StateIdle, 2, "", "Not answered: the app stopped while the agent's tools ran."},
		{"awaiting mode approval", nil, []func(Conversation) Event{reply(upgradeCall("u", "edit"), patchCall("p"))}, StateIdle, 2, "", "Not answered: the app stopped while the agent waited for your approval."},
		{"awaiting sub-agents", nil, []func(Conversation) Event{reply(spawnCall("s", "t1", "t2"))}, StateIdle, 1, "", "Not answered: the app stopped while sub-agents worked."},
		{"awaiting continuation", nil, []func(Conversation) Event{atThreshold}, StateContextExhausted, 0, "", ""},
		{"continuation retry pending", nil, []func(Conversation) Event{atThreshold, failOnce}, StateContextExhausted, 0, "", ""},
		{"sub-agent retry pending", []convOption{subAgent}, []func(Conversation) Event{failOnce}, StateFailed, 0, "", ""},
		{"sub-agent llm requesting", []convOption{subAgent}, nil, StateFailed, 0, "", ""},
		{"sub-agent tool executing", []convOption{subAgent}, []func(Conversation) Event{reply(bashCall("a"))}, StateFailed, 1, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := build(t, tt.opts, tt.events...)
			if !Busy(w.conv.State) {
				t.Fatalf("setup reached %s; want a working state", w.conv.State.Kind())
			}
			open := UnansweredCalls(w.history)
			next, effects := step(t, w.conv, RestoreAfterRestart{Unanswered: open, Why: tt.why})
			if next.State.Kind() != tt.wantState || Busy(next.State) {
				t.Fatalf("state after restore = %s; want %s", next.State.Kind(), tt.wantState)
			}
			msgs := persisted(t, effects)
			notices := slices.DeleteFunc(slices.Clone(msgs), func(m Message) bool { return m.Kind != KindError })
			switch {
			case tt.notice == "" && len(notices) > 0:
				t.Fatalf("notices = %+v; want none", notices)
			case tt.notice != "" && (len(notices) != 1 || msgs[len(msgs)-1].Seq != notices[0].Seq):
				t.Fatalf("messages = %+v; want one notice, last", msgs)
			case tt.notice != "" && (notices[0].Text != tt.notice || notices[0].ErrorKind != ErrorInterrupted):
				t.Fatalf("notice = %q (%s); want %q (%s)", notices[0].Text, notices[0].ErrorKind, tt.notice, ErrorInterrupted)
			}
			interrupted := 0
			for _, m := range msgs {
				if m.Kind == KindToolResult {
					if m.ToolResult.Outcome != OutcomeInterrupted {
						t.Fatalf("restore result = %+v; want interrupted", m.ToolResult)
					}
					interrupted++
				}
			}
			if interrupted != tt.wantOpen || len(open) != tt.wantOpen {
				t.Fatalf("interrupted results = %d (open %d); want %d", interrupted, len(open), tt.wantOpen)
			}
			history := append(slices.Clone(w.history), msgs...)
			if err := ValidateHistory(history, false); err != nil {
				t.Fatalf("history after restore is invalid: %v", err)
			}
			for _, e := range effects[1:] {
				switch e.(type) {
				case NotifyParent:
				default:
					t.Fatalf("restore started work: %s", describeEffects(effects))
				}
			}
			if next.IsSubAgent() {
				if n := only[NotifyParent](t, effects); n.Outcome.Kind != ErrorInterrupted {
					t.Fatalf("NotifyParent = %+v", n)
				}
			}
			if st, ok := w.conv.State.(AwaitingSubAgents); ok {
				if !strings.Contains(msgs[0].ToolResult.Content, "interrupted by restart") || msgs[0].ToolResult.CallID != st.Call.ID {
					t.Fatalf("spawn result = %+v", msgs[0].ToolResult)
				}
			}
			// The conversation is usable again.
			if tt.wantState == StateIdle {
				step(t, next, UserMessage{Text: "again"})
			}
		})
	}
	t.Run("resting states stay as they are", func(t *testing.T) {
		for _, c := range []Conversation{newConv(t), exhausted(t)} {
			wantUnchanged(t, c, RestoreAfterRestart{})
		}
		errored := requesting(t)
		errored, _ = step(t, errored, LLMError{Exec: mustExec(t, errored), Kind: ErrorAuth})
		wantUnchanged(t, errored, RestoreAfterRestart{})
	})
	t.Run("idle with open calls is repaired", func(t *testing.T) {
		c := newConv(t)
		c.NextSeq = 5
		next, effects := step(t, c, RestoreAfterRestart{Unanswered: []ToolCall{bashCall("a")}})
		wantState[Idle](t, next)
		wantResult(t, persisted(t, effects)[0], "a", OutcomeInterrupted, "The app stopped before this tool finished")
	})
}

// --- stale gate (orchestration-design items 16-18) ------------------------------------------

// A result that carries any execution id but the current one, or that does not fit the state,
// changes nothing.
func TestTransition_StaleResultsChangeNothing(t *testing.T) {
	states := busyStates(t)
	states["idle"] = newConv(t)
	states["exhausted"] = exhausted(t)
	for name, c := range states {
		t.Run(name, func(t *testing.T) {
			cur, _ := CurrentExec(c.State)
			for _, exec := range []ExecID{0, cur - 1, cur + 1, c.LastExec + 10} {
				if exec == cur {
					continue
				}
				for _, ev := range []Event{
					LLMResponse{Exec: exec, Text: "stale"}, LLMError{Exec: exec, Kind: ErrorServer},
					RetryTimeout{Exec: exec}, ToolComplete{Exec: exec, Result: ToolResult{Outcome: OutcomeSuccess}},
					SubAgentFinished{Exec: exec, Outcome: SubAgentOutcome{AgentID: "x", Status: SubAgentSucceeded}},
					SubAgentDeadline{Exec: exec},
				} {
					wantUnchanged(t, c, ev)
				}
				wantRejected(t, c, ModeDecision{Exec: exec, Approve: true}, ErrNoPendingApproval)
			}
		})
	}
	// The current id on an event the state does not wait for is stale too.
	tool := states["tool executing"]
	exec := mustExec(t, tool)
	for _, ev := range []Event{LLMResponse{Exec: exec}, LLMError{Exec: exec, Kind: ErrorAuth}, RetryTimeout{Exec: exec}, SubAgentDeadline{Exec: exec}} {
		wantUnchanged(t, tool, ev)
	}
	llm := states["llm requesting"]
	wantUnchanged(t, llm, ToolComplete{Exec: mustExec(t, llm)})
	wantUnchanged(t, llm, RetryTimeout{Exec: mustExec(t, llm)})
}

func TestTransition_UnknownEvent(t *testing.T) {
	c := newConv(t)
	if _, effects, err := Transition(c, nil); err == nil || effects != nil {
		t.Fatalf("nil event accepted")
	}
}

// A conversation whose state was never set is treated as Idle rather than crashing.
func TestTransition_NilStateIsIdle(t *testing.T) {
	c := newConv(t)
	c.State = nil
	next, _ := step(t, c, UserMessage{Text: "hi"})
	wantState[LLMRequesting](t, next)
}

// Errors are sentinel values the UI can compare.
func TestErrors_AreDistinct(t *testing.T) {
	all := []error{ErrAgentBusy, ErrContextExhausted, ErrEmptyMessage, ErrNoPendingApproval, ErrLandlockUnavailable, ErrNotIdle, ErrFinished, ErrNoSubAgentContinuation}
	for i, a := range all {
		for j, b := range all {
			if (i == j) != errors.Is(a, b) {
				t.Fatalf("errors.Is(%v, %v) = %v", a, b, errors.Is(a, b))
			}
		}
	}
}

// REQ-BED-022: a conversation record without a window (written before the window was stored,
// or built by hand) uses its model's window, not zero. With zero every response counted as past
// the 90% threshold and ended the conversation at once.
func TestTransition_REQ_BED_022_MissingWindowUsesModel(t *testing.T) {
	for _, model := range []string{"gpt-4o", "mystery-model"} {
		t.Run(model, func(t *testing.T) {
			c := newConv(t)
			c.Model, c.ContextWindow = model, 0
			if c.Window() != ContextWindowFor(model) {
				t.Fatalf("Window() = %d; want %d", c.Window(), ContextWindowFor(model))
			}
			c, _ = step(t, c, UserMessage{Text: "hi"})
			next, _ := step(t, c, LLMResponse{Exec: mustExec(t, c), ToolCalls: []ToolCall{bashCall("a")}, Usage: Usage{InputTokens: 1_000}})
			wantState[ToolExecuting](t, next)
			// Past 90% of the model's window the continuation starts as usual.
			c, _ = step(t, newConvWithModel(t, model), UserMessage{Text: "hi"})
			next, _ = step(t, c, LLMResponse{Exec: mustExec(t, c), Usage: Usage{InputTokens: ContextWindowFor(model)}})
			wantState[AwaitingContinuation](t, next)
		})
	}
	if c := newConv(t); c.Window() != testWindow {
		t.Fatalf("Window() = %d; want the stored %d", c.Window(), testWindow)
	}
}

func newConvWithModel(t *testing.T, model string) Conversation {
	c := newConv(t)
	c.Model, c.ContextWindow = model, 0
	return c
}

// REQ-BED-024: a provider refusing a sub-agent's request for its length is the sub-agent's
// context filling up: it fails with kind context_exhausted, so the parent is told it may
// spawn a narrower replacement.
func TestTransition_REQ_BED_024_SubAgentContextLengthError(t *testing.T) {
	c := requesting(t, subAgent)
	next, effects := step(t, c, LLMError{Exec: mustExec(t, c), Kind: ErrorContextLength, Message: "maximum context length is 128000 tokens"})
	st := wantState[Failed](t, next)
	n := only[NotifyParent](t, effects)
	if st.ErrKind != ErrorContextExhausted || n.Outcome.Kind != ErrorContextExhausted || !strings.Contains(n.Outcome.Error, "128000") {
		t.Fatalf("state %+v, notify %+v; want context_exhausted with the provider's words", st, n)
	}
	if !strings.Contains(AggregateSubAgents([]SubAgentOutcome{n.Outcome}), "replacement") {
		t.Fatalf("the parent is not told it may spawn a replacement")
	}
	// A person's conversation keeps the provider's kind and the advice to wrap up.
	p := requesting(t)
	next, _ = step(t, p, LLMError{Exec: mustExec(t, p), Kind: ErrorContextLength})
	if st := wantState[Error](t, next); st.ErrKind != ErrorContextLength {
		t.Fatalf("state = %+v", st)
	}
}

// REQ-BED-008: the aggregate names every task in spawn order with its outcome.
func TestAggregateSubAgents_REQ_BED_008(t *testing.T) {
	got := AggregateSubAgents([]SubAgentOutcome{
		{AgentID: "a", Task: "first", Status: SubAgentSucceeded, Result: "r1"},
		{AgentID: "b", Task: "second", Status: SubAgentFailed, Error: "timed out", Kind: ErrorDeadline},
		{AgentID: "c", Task: "third", Status: SubAgentFailed, Result: "could not build", Error: "the sub-agent reported that it could not complete the task"},
		{AgentID: "d", Task: "fourth", Status: SubAgentPending},
	})
	for _, want := range []string{
		"Results of 4 sub-agents",
		"## Sub-agent 1: succeeded\nTask: first\nResult:\nr1\n",
		"## Sub-agent 2: failed\nTask: second\nFailure (deadline): timed out\n",
		"## Sub-agent 3: failed\nTask: third\nFailure: the sub-agent reported that it could not complete the task\nReported:\ncould not build\n",
		"## Sub-agent 4: pending\nTask: fourth\nNo result.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("aggregate lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "()") {
		t.Errorf("aggregate shows an empty kind:\n%s", got)
	}
}

func TestTransition_REQ_BED_019_MessageLongerThanTheWindowIsRefused(t *testing.T) {
	c, err := NewConversation(NewConversationParams{ID: "c", Cwd: "/w", Model: DemoModel})
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 4*c.Window())
	next, effects, err := Transition(c, UserMessage{Text: huge})
	if !errors.Is(err, ErrMessageTooLong) || len(effects) != 0 || next.NextSeq != 0 {
		t.Fatalf("err = %v, effects %d", err, len(effects))
	}
	if !strings.Contains(err.Error(), "shorten") {
		t.Fatalf("the error does not say what to do: %v", err)
	}
	// Just below the threshold is accepted.
	ok := strings.Repeat("x", 4*(c.Window()*ContinuationThresholdPercent/100-1)-3)
	if _, _, err := Transition(c, UserMessage{Text: ok}); err != nil {
		t.Fatalf("a message below the threshold was refused: %v", err)
	}
}

// A thinking model's reply keeps its reasoning in its own field, apart from the text, and
// its reasoning tokens count in the context the next request starts from; an empty
// reasoning is not stored.
func TestTransitionReplyKeepsReasoning(t *testing.T) {
	c := requesting(t)
	r := &Reasoning{Text: "The user greets me.", Details: json.RawMessage(`[{"type":"reasoning.encrypted","data":"x","index":0}]`)}
	usage := Usage{InputTokens: 100, OutputTokens: 340, ReasoningTokens: 313}
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "Hello.", Reasoning: r, Usage: usage})
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant)
	if msgs[0].Text != "Hello." || msgs[0].Reasoning != r || *msgs[0].Usage != usage {
		t.Fatalf("reply = %+v; want the text and the reasoning apart", msgs[0])
	}
	if next.Usage.Total() != 440 {
		t.Fatalf("context %d tokens; want the reasoning counted (440)", next.Usage.Total())
	}
	c = requesting(t)
	_, effects = step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "Hi.", Reasoning: &Reasoning{}})
	if m := persisted(t, effects)[0]; m.Reasoning != nil {
		t.Fatalf("an empty reasoning was stored: %+v", m.Reasoning)
	}
}

// The continuation summary is stored as a continuation message, which carries no
// reasoning, even when a thinking model wrote it; its usage still counts the reasoning.
func TestTransition_REQ_BED_020_ContinuationFromThinkingModel(t *testing.T) {
	c, _ := step(t, newConv(t), UserTriggerContinuation{})
	usage := Usage{InputTokens: 9_100, OutputTokens: 500, ReasoningTokens: 200}
	next, effects := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "Summary.", Reasoning: &Reasoning{Text: "What mattered?"}, Usage: usage})
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindContinuation)
	if msgs[0].Reasoning != nil || msgs[0].Text != "Summary." || next.Usage != usage {
		t.Fatalf("continuation message %+v, usage %+v", msgs[0], next.Usage)
	}
	if err := msgs[0].Validate(); err != nil {
		t.Fatal(err)
	}
}

// Reasoning belongs to assistant messages; a record with it elsewhere, or with details that
// are not a JSON array, is caught where it is read.
func TestValidateReasoning(t *testing.T) {
	bad := []Message{
		{Seq: 1, Kind: KindUser, Text: "x", Reasoning: &Reasoning{Text: "no"}},
		{Seq: 2, Kind: KindAssistant, Text: "x", Reasoning: &Reasoning{Details: json.RawMessage(`{"type":"x"}`)}},
		{Seq: 3, Kind: KindAssistant, Text: "x", Reasoning: &Reasoning{Details: json.RawMessage(`[{`)}},
	}
	for _, m := range bad {
		if err := m.Validate(); err == nil {
			t.Errorf("message %+v passed validation", m)
		}
	}
	ok := Message{Seq: 4, Kind: KindAssistant, Text: "x", Reasoning: &Reasoning{Text: "fine", Details: json.RawMessage(`[]`)}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
}
