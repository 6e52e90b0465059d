package domain

import (
	"encoding/json"
	"strings"
	"testing"
)

// The rows issue 13 adds to the transition matrix, one test each.

func cutReply(t testing.TB, c Conversation, reason StopReason, text string, calls ...ToolCall) (Conversation, []Effect) {
	t.Helper()
	return step(t, c, LLMResponse{Exec: mustExec(t, c), Text: text, ToolCalls: calls, StopReason: reason,
		Usage: Usage{InputTokens: 100, OutputTokens: 10}})
}

// Row "LLMRequesting + text reply ended early → Idle, reply kept and marked": a reply cut at
// the output limit (or stopped by a filter, or ended for another reason) is never taken for a
// complete answer without saying so (REQ-BED-003; CLI-agent lessons, "act on the stop reason").
func TestTransition_REQ_BED_003_CutTextReplyKeptAndMarked(t *testing.T) {
	for _, reason := range []StopReason{StopLength, StopContentFilter, "MALFORMED_FUNCTION_CALL"} {
		t.Run(string(reason), func(t *testing.T) {
			next, effects := cutReply(t, requesting(t), reason, "Here is the first half of")
			wantState[Idle](t, next)
			msgs := persisted(t, effects)
			wantKinds(t, msgs, KindAssistant)
			if msgs[0].StopReason != reason || msgs[0].Text != "Here is the first half of" {
				t.Fatalf("message = %+v; want the text kept with stop reason %q", msgs[0], reason)
			}
			if len(ioEffects(t, effects)) != 0 {
				t.Fatalf("effects = %s; want only the commit", describeEffects(effects))
			}
		})
	}
	if d := StopLength.Describe(); d != "The reply was cut off at the model's output limit" {
		t.Fatalf("StopLength says %q", d)
	}
	if d := StopContentFilter.Describe(); !strings.Contains(d, "content filter") {
		t.Fatalf("StopContentFilter says %q", d)
	}
	if d := StopReason("recitation").Describe(); !strings.Contains(d, `"recitation"`) {
		t.Fatalf("an unknown reason says %q; want it quoted", d)
	}
	// A normal reply carries no mark, so stored records keep their shape.
	_, effects := respond(t, requesting(t), "complete")
	if b, _ := json.Marshal(persisted(t, effects)[0]); strings.Contains(string(b), "stop_reason") {
		t.Fatalf("a normal reply encodes a stop reason: %s", b)
	}
}

// Row "LLMRequesting + reply cut inside its last tool call → ToolExecuting (the complete calls),
// the cut call answered, next request attempt+1": the cut call never runs, the model is told
// to make it smaller, and the follow-up counts against the retry budget.
func TestTransition_REQ_BED_003_CutToolCallNotRun(t *testing.T) {
	cut := call("b", ToolPatch, `{"path":"big.go","patches":[{"operation":"overwrite","new_text":"package ma`)
	c, effects := cutReply(t, requesting(t, unrestricted), StopLength, "", bashCall("a"), cut)
	st := wantState[ToolExecuting](t, c)
	if run := only[ExecuteTool](t, effects); run.Call.ID != "a" || st.Cut != "b" || st.Attempt != 2 {
		t.Fatalf("ran %+v in %+v; want call a run, b marked cut, attempt 2 next", run.Call, st.Round)
	}
	c, effects = step(t, c, ToolComplete{Exec: st.Exec, Result: ToolResult{Outcome: OutcomeSuccess, Content: "ok"}})
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindToolResult, KindToolResult)
	wantResult(t, msgs[1], "b", OutcomeError, "cut off at the model's output limit")
	wantResult(t, msgs[1], "b", OutcomeError, "Make the call smaller")
	for _, e := range effects {
		if x, ok := e.(ExecuteTool); ok {
			t.Fatalf("the cut call ran: %+v", x)
		}
	}
	req := only[RequestLLM](t, effects)
	if rs := wantState[LLMRequesting](t, c); req.Attempt != 2 || rs.Attempt != 2 {
		t.Fatalf("next request attempt %d (state %d); want 2: the cut counts against the retry budget", req.Attempt, rs.Attempt)
	}

	// A complete reply resets the count.
	c, _ = respond(t, c, "", bashCall("c"))
	if st := wantState[ToolExecuting](t, c); st.Attempt != 1 || st.Cut != "" {
		t.Fatalf("after a complete reply the round is %+v; want attempt 1, nothing cut", st.Round)
	}

	// A cut call alone is answered at once and the model asked again.
	c, effects = cutReply(t, requesting(t), StopContentFilter, "", call("x", ToolBash, `{"command":"rm -`))
	wantResult(t, persisted(t, effects)[1], "x", OutcomeError, "content filter")
	if req := only[RequestLLM](t, effects); req.Attempt != 2 {
		t.Fatalf("attempt %d; want 2", req.Attempt)
	}
	// A last call whose arguments are whole was not cut: it runs.
	c, effects = cutReply(t, c, StopLength, "", bashCall("y"))
	if run := only[ExecuteTool](t, effects); run.Call.ID != "y" {
		t.Fatalf("ran %+v; want y", run.Call)
	}
	_ = c
}

// Row "LLMRequesting{attempt 3} + reply cut inside a tool call → Error(output_limit)": the
// retry budget is spent, nothing of the reply runs, and the person is told what to do. A
// sub-agent fails the same way instead.
func TestTransition_REQ_BED_003_CutToolCallsCannotLoop(t *testing.T) {
	cut := func(id string) ToolCall { return call(id, ToolBash, `{"command":"cat <<EOF\nlong`) }
	c := requesting(t)
	for i := 1; i < MaxAttempts; i++ {
		c, _ = cutReply(t, c, StopLength, "", cut("c"+string(rune('0'+i))))
		if st := wantState[LLMRequesting](t, c); st.Attempt != i+1 {
			t.Fatalf("after cut %d: attempt %d", i, st.Attempt)
		}
	}
	next, effects := cutReply(t, c, StopLength, "", bashCall("ok"), cut("last"))
	st := wantState[Error](t, next)
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindAssistant, KindToolResult, KindToolResult, KindError)
	wantResult(t, msgs[1], "ok", OutcomeSkipped, "cut off")
	wantResult(t, msgs[2], "last", OutcomeError, "Make the call smaller")
	if st.ErrKind != ErrorOutputLimit || !strings.Contains(st.Message, "3 times in a row") || msgs[3].ErrorKind != ErrorOutputLimit {
		t.Fatalf("state %+v; want output_limit after 3 cuts", st)
	}
	if len(ioEffects(t, effects)) != 0 {
		t.Fatalf("effects = %s; want nothing started", describeEffects(effects))
	}
	if err := ValidateHistory(msgs, false); err != nil {
		t.Fatalf("history: %v", err)
	}

	sub := requesting(t, subAgent)
	for i := 1; i <= MaxAttempts; i++ {
		sub, effects = cutReply(t, sub, StopLength, "", cut("s"+string(rune('0'+i))))
	}
	if f := wantState[Failed](t, sub); f.ErrKind != ErrorOutputLimit || only[NotifyParent](t, effects).Outcome.Kind != ErrorOutputLimit {
		t.Fatalf("sub-agent state %+v; want Failed(output_limit) reported", f)
	}
}

// Row "ToolExecuting(bash, Unrestricted) + UserDowngrade → KillTool, the command answered as
// stopped, the round goes on Restricted" (REQ-BED-016: the downgrade is immediate).
func TestTransition_REQ_BED_016_DowngradeKillsUnrestrictedBash(t *testing.T) {
	c, _ := respond(t, requesting(t, unrestricted), "", bashCall("a"), patchCall("p"), bashCall("b"))
	running := wantState[ToolExecuting](t, c)
	next, effects := step(t, c, UserDowngrade{})
	if next.Mode != ModeRestricted {
		t.Fatalf("mode = %s", next.Mode)
	}
	if k := only[KillTool](t, effects); k.Exec != running.Exec {
		t.Fatalf("KillTool %+v; want the running exec %d", k, running.Exec)
	}
	msgs := persisted(t, effects)
	wantKinds(t, msgs, KindToolResult, KindToolResult)
	wantResult(t, msgs[0], "a", OutcomeCancelled, "switched the conversation to Restricted mode")
	wantResult(t, msgs[1], "p", OutcomeError, "request_mode_upgrade")
	run := only[ExecuteTool](t, effects)
	if run.Call.ID != "b" || run.Mode != ModeRestricted {
		t.Fatalf("ExecuteTool %+v; want b under Restricted", run)
	}
	st := wantState[ToolExecuting](t, next)
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "Restricted") {
		t.Fatalf("notes %v; want the mode change held until the round ends", st.Notes)
	}
	// The killed command's own late result is stale.
	wantUnchanged(t, next, ToolComplete{Exec: running.Exec, Result: ToolResult{Outcome: OutcomeCancelled}})

	// An MCP call running Unrestricted is stopped the same way (its server dies with it).
	c, _ = respond(t, requesting(t, unrestricted), "", call("m", MCPToolPrefix+"files__write", `{"path":"a"}`))
	mcpRun := wantState[ToolExecuting](t, c)
	_, effects = step(t, c, UserDowngrade{})
	if k := only[KillTool](t, effects); k.Exec != mcpRun.Exec {
		t.Fatalf("KillTool %+v; want the MCP call's exec %d", k, mcpRun.Exec)
	}
	wantResult(t, persisted(t, effects)[0], "m", OutcomeCancelled, "switched the conversation to Restricted mode")
	// A read-only tool is left to finish.
	c, _ = respond(t, requesting(t, unrestricted), "", thinkCall("t"))
	_, effects = step(t, c, UserDowngrade{})
	for _, e := range effects {
		if _, ok := e.(KillTool); ok {
			t.Fatal("a running think was killed by the downgrade")
		}
	}

	// The last call of a round: the next request follows, with the notice after the results.
	c, _ = respond(t, requesting(t, unrestricted), "", bashCall("only"))
	_, effects = step(t, c, UserDowngrade{})
	wantKinds(t, persisted(t, effects), KindToolResult, KindSystem)
	only[RequestLLM](t, effects)
}

// Row "Idle (or any resting state) + UserCancel → rejected with ErrNothingToStop"
// (orchestration-design item 15).
func TestTransition_REQ_BED_005_CancelAtRestNothingToStop(t *testing.T) {
	c, _ := respond(t, requesting(t), "done")
	wantRejected(t, c, UserCancel{}, ErrNothingToStop)
	wantRejected(t, newConv(t), UserCancel{}, ErrNothingToStop)
	sub, _ := respond(t, requesting(t, subAgent), "", submitCall("s", "ok", nil))
	wantRejected(t, sub, UserCancel{}, ErrNothingToStop)
}

// Row "ToolExecuting + ToolComplete with a result larger than what is left of the window →
// the result cut to fit, saying so" (issue 13 item 6): the next request stays within the
// window, so the 90% check can start the continuation flow (REQ-BED-019/020) instead of the
// provider refusing the request.
func TestTransition_REQ_BED_019_ToolResultCappedByWindow(t *testing.T) {
	c := requesting(t) // testWindow tokens
	used := testWindow * 80 / 100
	c, _ = step(t, c, LLMResponse{Exec: mustExec(t, c), ToolCalls: []ToolCall{bashCall("a"), bashCall("b")},
		Usage: Usage{InputTokens: used - 50, OutputTokens: 50}})
	room := (testWindow*ContinuationThresholdPercent/100 - used) * resultCharsPerToken
	huge := "BEGIN\n" + strings.Repeat("0123456789abcdef\n", 4*room/17) + "END\n"
	c, effects := step(t, c, ToolComplete{Exec: mustExec(t, c), Result: ToolResult{Outcome: OutcomeSuccess, Content: huge}})
	got := persisted(t, effects)[0].ToolResult.Content
	if len(got) > room || !strings.HasPrefix(got, "BEGIN") || !strings.HasSuffix(got, "END\n") ||
		!strings.Contains(got, "left out to fit what is left of the context window") {
		t.Fatalf("result of %d bytes became %d (room %d), starting %q", len(huge), len(got), room, got[:40])
	}
	// The round remembers what the first result took: the second gets only what is left.
	st := wantState[ToolExecuting](t, c)
	if st.ResultTokens != EstimateTokens(got, 0) {
		t.Fatalf("round counts %d tokens; want %d", st.ResultTokens, EstimateTokens(got, 0))
	}
	_, effects = step(t, c, ToolComplete{Exec: st.Exec, Result: ToolResult{Outcome: OutcomeSuccess, Content: huge}})
	second := persisted(t, effects)[0].ToolResult.Content
	if len(second) > max(room-len(got)*resultCharsPerToken/4, MinResultRoom) || len(second) < MinResultRoom-10 {
		t.Fatalf("second result %d bytes; want about what the first left (%d)", len(second), room-len(got)*resultCharsPerToken/4)
	}

	// A small result is untouched; with a near-full window a result still keeps MinResultRoom.
	if s := FitToolResult("short", 100); s != "short" {
		t.Fatalf("FitToolResult changed a short result: %q", s)
	}
	if s := FitToolResult(strings.Repeat("é", 5000), MinResultRoom); len(s) > MinResultRoom || !strings.HasPrefix(s, "é") || !strings.HasSuffix(s, "é") {
		t.Fatalf("a cut through multi-byte text gave %d bytes: %q…", len(s), s[:10])
	}
}

// The sub-agents' aggregate is a tool result too: ten long answers are cut to the window.
func TestTransition_REQ_BED_008_AggregateCappedByWindow(t *testing.T) {
	c, _ := respond(t, requesting(t), "", spawnCall("s", "one", "two"))
	st := wantState[AwaitingSubAgents](t, c)
	long := strings.Repeat("finding ", ToolOutputLimit/8)
	c, _ = step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: st.Outcomes[0].AgentID, Status: SubAgentSucceeded, Result: long}})
	_, effects := step(t, c, SubAgentFinished{Exec: st.Exec, Outcome: SubAgentOutcome{AgentID: st.Outcomes[1].AgentID, Status: SubAgentSucceeded, Result: long}})
	got := persisted(t, effects)[0].ToolResult.Content
	if want := (testWindow*ContinuationThresholdPercent/100 - 110) * resultCharsPerToken; len(got) > want {
		t.Fatalf("aggregate of %d bytes exceeds the room %d", len(got), want)
	}
}
