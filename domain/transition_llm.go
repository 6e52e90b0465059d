package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// RetryDelay is the wait before the attempt after a failed one (REQ-BED-006): exponential from
// BaseRetryDelay, or the server's Retry-After when it sent one. ok is false when the server
// asked for longer than MaxRetryDelay. Attempts come from stored state that other code may
// have written, so any number is accepted: below 1 counts as the first, and the backoff stops
// growing at MaxRetryDelay instead of shifting into overflow.
func RetryDelay(failedAttempt int, retryAfter time.Duration) (delay time.Duration, ok bool) {
	if retryAfter > 0 {
		return retryAfter, retryAfter <= MaxRetryDelay
	}
	delay = BaseRetryDelay
	for i := 1; i < failedAttempt && delay < MaxRetryDelay; i++ {
		delay *= 2
	}
	return min(delay, MaxRetryDelay), true
}

// --- LLM results --------------------------------------------------------------------------

func (t *tx) llmResponse(e LLMResponse) {
	switch st := t.c.State.(type) {
	case LLMRequesting:
		if st.Exec != e.Exec || st.RetryPending {
			return
		}
		t.reply(e)
	case AwaitingContinuation:
		if st.Exec != e.Exec || st.RetryPending {
			return
		}
		// The summary is stored as a continuation message, never as an assistant reply, so
		// any tool calls the model attached despite the tool-less request are dropped.
		summary := strings.TrimSpace(e.Text)
		if summary == "" {
			summary = FallbackSummary
		}
		t.c.Spent = t.c.Spent.Add(e.Usage)
		usage := st.TriggerUsage
		if e.Usage.Total() > 0 {
			usage = e.Usage
		}
		// The meter keeps the fill the conversation was wrapped up at, unless the summary
		// request measured more: that request leaves out the rejected reply, so its count
		// can fall back under the threshold that ended the conversation (it read 89% at
		// the 90% limit), and a provider may count a summary request as almost nothing
		// (0% after a wrap-up at 3%).
		if usage.Total() > t.c.Usage.Total() {
			t.c.Usage = usage
		}
		reply := e.Usage
		t.exhaustWith(summary, usage, &reply)
	}
}

// NormalizeToolCalls gives every call an id that is present and unique within the response,
// deriving replacements from the execution id so the result stays deterministic. The first
// call with a given id keeps it; a made-up id never collides with an id the model chose, in
// front of or behind it, because the APIs match results to calls by id.
func NormalizeToolCalls(exec ExecID, calls []ToolCall) []ToolCall {
	out := slices.Clone(calls)
	taken := make(map[string]bool, len(out))
	keep := make([]bool, len(out))
	for i, c := range out {
		if c.ID != "" && !taken[c.ID] {
			taken[c.ID], keep[i] = true, true
		}
	}
	for i := range out {
		if !keep[i] {
			id := fmt.Sprintf("call_%d_%d", exec, i)
			for n := 1; taken[id]; n++ {
				id = fmt.Sprintf("call_%d_%d_%d", exec, i, n)
			}
			out[i].ID, taken[id] = id, true
		}
		if out[i].Name == "" {
			out[i].Name = "(unnamed)"
		}
	}
	return out
}

func (t *tx) reply(e LLMResponse) {
	calls := NormalizeToolCalls(e.Exec, e.ToolCalls)
	usage := e.Usage
	if usage.Total() > 0 {
		t.c.Usage = usage
	}
	t.c.Spent = t.c.Spent.Add(usage)
	var reasoning *Reasoning
	if !e.Reasoning.Empty() {
		reasoning = e.Reasoning
	}
	t.add(Message{Kind: KindAssistant, Text: e.Text, ToolCalls: calls, Reasoning: reasoning, Usage: &usage, StopReason: e.StopReason})

	// A sub-agent's lone submit_result runs nothing, so it is accepted even at the
	// threshold: its result is what the parent needs.
	if t.c.IsSubAgent() && len(calls) == 1 && calls[0].Name == ToolSubmitResult {
		var args SubmitResultArgs
		if err := json.Unmarshal([]byte(calls[0].Arguments), &args); err == nil && strings.TrimSpace(args.Result) != "" {
			success := args.Success == nil || *args.Success
			t.result(calls[0], OutcomeSuccess, SubmittedResultText, nil)
			t.setState(Completed{Result: args.Result, Success: success})
			status := SubAgentSucceeded
			if !success {
				status = SubAgentFailed
			}
			outcome := SubAgentOutcome{AgentID: t.c.ID, Task: t.c.Task, Status: status, Result: args.Result}
			if !success {
				outcome.Error = "the sub-agent reported that it could not complete the task"
			}
			t.emit(NotifyParent{ParentID: t.c.ParentID, ParentExec: t.c.ParentExec, Outcome: outcome})
			return
		}
	}

	// REQ-BED-019: the threshold is checked before any tool of this response runs.
	if AtContinuation(t.c.Usage, t.c.Window()) {
		for _, c := range calls {
			t.result(c, OutcomeSkipped, ContextRejectedText, nil)
		}
		if t.c.IsSubAgent() {
			// REQ-BED-024: a sub-agent fails at once; no continuation flow.
			t.fail(ErrorContextExhausted, fmt.Sprintf("context window exhausted (%d of %d tokens)", t.c.Usage.Total(), t.c.Window()))
			return
		}
		t.startContinuation(calls, t.c.Usage, 1)
		return
	}

	if len(calls) == 0 {
		if t.c.IsSubAgent() {
			// REQ-BED-008: only submit_result reaches the parent. A sub-agent that answers
			// in plain text is reminded once; if it answers in plain text again, the parent
			// gets that whole answer (up to the tool-output cap) with the failure.
			if !t.c.SubmitReminded {
				t.c.SubmitReminded = true
				t.add(Message{Kind: KindSystem, Text: SubmitReminderText})
				t.startRequest(1)
				return
			}
			t.failReporting(ErrorNoResult, "ended its turn without calling submit_result, even after a reminder",
				CapText(strings.TrimSpace(e.Text), ToolOutputLimit))
			return
		}
		// A text reply cut off early is kept and marked (StopReason); the person sees why
		// and may ask the model to go on (issue 13).
		t.setState(Idle{})
		return
	}
	round := Round{Attempt: 1}
	if st, ok := t.c.State.(LLMRequesting); ok {
		round.Attempt = st.Attempt
	}
	// A reply that ended early while the model wrote its last call leaves that call's
	// arguments incomplete (an incomplete JSON object); it is answered, not run. The calls
	// before it are complete and run in order (REQ-BED-004).
	if last := calls[len(calls)-1]; e.StopReason != "" && !ValidJSONObject(last.Arguments) {
		if round.Attempt >= MaxAttempts {
			t.outputLimitExhausted(calls, e.StopReason, round.Attempt)
			return
		}
		round.Cut, round.CutReason, round.Attempt = last.ID, e.StopReason, round.Attempt+1
	} else {
		round.Attempt = 1
	}
	t.runRound(calls, round)
}

// outputLimitExhausted ends a turn whose replies were cut inside a tool call on every attempt:
// nothing of the last reply runs, and the person (or a sub-agent's parent) is told why.
func (t *tx) outputLimitExhausted(calls []ToolCall, reason StopReason, attempts int) {
	for _, c := range calls[:len(calls)-1] {
		t.result(c, OutcomeSkipped, "Not run: the reply that asked for it was cut off, and the turn ended.", nil)
	}
	t.result(calls[len(calls)-1], OutcomeError, CutCallText(reason), nil)
	message := fmt.Sprintf("%s %d times in a row while it was writing a tool call: ask for smaller steps, or raise the model's output limit, then send a message to go on",
		reason.Describe(), attempts)
	if t.c.IsSubAgent() {
		t.fail(ErrorOutputLimit, message)
		return
	}
	t.add(Message{Kind: KindError, Text: message, ErrorKind: ErrorOutputLimit})
	t.setState(Error{Message: message, ErrKind: ErrorOutputLimit})
}

func (t *tx) llmError(e LLMError) {
	switch st := t.c.State.(type) {
	case LLMRequesting:
		if st.Exec != e.Exec || st.RetryPending {
			return
		}
		if delay, ok := t.retryable(e, st.Attempt); ok {
			t.setState(LLMRequesting{Exec: st.Exec, Attempt: st.Attempt + 1, RetryPending: true,
				RetryDelay: delay, LastError: e.Message, LastErrorKind: e.Kind})
			t.emit(ScheduleRetry{Exec: st.Exec, Delay: delay})
			return
		}
		message := errorText(e, st.Attempt)
		if t.c.IsSubAgent() {
			kind := e.Kind
			if kind == ErrorContextLength {
				// REQ-BED-024: the provider refusing the request for its length is the
				// sub-agent's context filling up; the parent is told so and may spawn a
				// narrower replacement.
				kind = ErrorContextExhausted
			}
			t.fail(kind, message)
			return
		}
		t.add(Message{Kind: KindError, Text: message, ErrorKind: e.Kind})
		t.setState(Error{Message: message, ErrKind: e.Kind})
	case AwaitingContinuation:
		if st.Exec != e.Exec || st.RetryPending {
			return
		}
		if delay, ok := t.retryable(e, st.Attempt); ok {
			next := st
			next.Attempt, next.RetryPending, next.RetryDelay = st.Attempt+1, true, delay
			t.setState(next)
			t.emit(ScheduleRetry{Exec: st.Exec, Delay: delay})
			return
		}
		// REQ-BED-020: a failed continuation still ends in ContextExhausted.
		t.exhaust(FallbackSummary, st.TriggerUsage)
	}
}

func (t *tx) retryable(e LLMError, attempt int) (time.Duration, bool) {
	if !e.Kind.Retryable() || attempt >= MaxAttempts {
		return 0, false
	}
	return RetryDelay(attempt, e.RetryAfter)
}

func errorText(e LLMError, attempt int) string {
	detail := strings.TrimSpace(e.Message)
	if detail == "" {
		detail = e.Kind.Describe()
	}
	if e.Kind.Retryable() && attempt >= MaxAttempts {
		return fmt.Sprintf("Failed after %d attempts: %s", attempt, detail)
	}
	if e.Kind.Retryable() && e.RetryAfter > MaxRetryDelay {
		return fmt.Sprintf("%s (the provider asked to wait %s before retrying)", detail, e.RetryAfter.Round(time.Second))
	}
	return detail
}

func (t *tx) retryTimeout(e RetryTimeout) {
	switch st := t.c.State.(type) {
	case LLMRequesting:
		if st.Exec != e.Exec || !st.RetryPending {
			return
		}
		exec := t.newExec()
		next := st
		next.Exec, next.RetryPending, next.RetryDelay = exec, false, 0
		t.setState(next)
		t.emit(RequestLLM{Exec: exec, Attempt: st.Attempt})
	case AwaitingContinuation:
		if st.Exec != e.Exec || !st.RetryPending {
			return
		}
		exec := t.newExec()
		next := st
		next.Exec, next.RetryPending, next.RetryDelay = exec, false, 0
		t.setState(next)
		t.emit(RequestLLM{Exec: exec, Attempt: st.Attempt,
			Continuation: &ContinuationRequest{Prompt: ContinuationPrompt(st.Rejected)}})
	}
}
