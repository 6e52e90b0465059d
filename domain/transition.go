package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Retry policy (REQ-BED-006).
const (
	// MaxAttempts counts the first request: three attempts in all.
	MaxAttempts = 3
	// BaseRetryDelay doubles with each attempt: 1 s, then 2 s.
	BaseRetryDelay = time.Second
	// MaxRetryDelay caps a server's Retry-After. A server asking for longer is treated as a
	// final answer, because a person watching "Retrying in 40 min" is better served by an
	// error they can act on.
	MaxRetryDelay = 2 * time.Minute
	// DefaultSubAgentDeadline bounds one spawn_agents batch.
	DefaultSubAgentDeadline = 15 * time.Minute
	// MaxSubAgents bounds one spawn_agents call, as its schema says.
	MaxSubAgents = 10
)

// Texts of synthetic tool results. Tests and the UI refer to them.
const (
	CancelledResultText   = "Cancelled by user."
	SkippedResultText     = "Skipped: the user cancelled before this tool ran."
	InterruptedResultText = "The app stopped before this tool finished. Nothing is known about its effects; check before repeating it."
	ContextRejectedText   = "Not executed: the context window is nearly full, so the conversation is being wrapped up."
	SubmittedResultText   = "Result submitted."
	FallbackSummary       = "Context limit reached. The continuation summary could not be generated. Please start a new conversation."
	CancelledSummary      = "Continuation cancelled by user."
	InterruptedSummary    = "Context limit reached. The continuation summary was interrupted by a restart. Please start a new conversation."
	// SubmitReminderText is the one reminder a sub-agent gets when it answers in plain text
	// (REQ-BED-008): only submit_result reaches its parent.
	SubmitReminderText = "You ended your turn without calling submit_result, so your parent conversation has received nothing. Call submit_result with your result now (set success to false if you could not complete the task); a plain-text answer is not delivered."
)

// DowngradeStoppedText answers a bash command or MCP call that was running when the person
// switched the conversation down from one mode to a lower one (REQ-BED-016).
func DowngradeStoppedText(from, to Mode) string {
	return fmt.Sprintf("Stopped: the user switched the conversation to %s mode while this ran, so it was killed at once. "+
		"It ran in %s mode until then (%s); check what it did before relying on it. "+
		"If it is still needed, call it again: it will run in %s mode (%s).",
		to.Title(), from.Title(), from.Allows(), to.Title(), to.Allows())
}

// How a mode change came about, for ModeChangeNotice.
const (
	// ChangedByApproval: the person approved the agent's request_mode_upgrade.
	ChangedByApproval = "approved by the user"
	// ChangedBySwitch: the person switched the conversation down themselves.
	ChangedBySwitch = "switched by the user"
)

// ModeChangeNotice is the announcement of a mode change (REQ-BED-017): the one message that
// says which mode the conversation is in now and what it allows, written as a system message
// for the agent and shown as a notice in the window and the export. Nothing else repeats it
// (issue 28: a change was said three times): the answer to request_mode_upgrade is
// ApprovedResultText or DeniedResultText, and a downgrade writes only this.
func ModeChangeNotice(to Mode, how string) string {
	text := fmt.Sprintf("Mode changed to %s (%s): %s.", to.Title(), how, to.Allows())
	if how == ChangedBySwitch {
		text += " Call request_mode_upgrade if you need more access again."
	}
	return text
}

// ApprovedResultText answers an approved request_mode_upgrade; the mode notice after the
// round's results says what the new mode allows.
const ApprovedResultText = "Approved by the user."

// DeniedResultText answers a denied request_mode_upgrade: the mode stays, so this is the only
// message about it.
func DeniedResultText(kept Mode) string {
	return fmt.Sprintf("Denied: the user kept %s mode (%s). Continue within it, or explain what you would change and why so the user can decide.",
		kept.Title(), kept.Allows())
}

// CutCallText answers a tool call whose arguments an early end of the reply cut off. It is
// not run, because incomplete arguments would run something the model did not ask for.
func CutCallText(reason StopReason) string {
	switch reason {
	case StopLength:
		return "Not run: your reply was cut off at the model's output limit while you were writing this call, so its arguments are incomplete. Make the call smaller and call it again: for example write a large file with several patch calls, each adding a part, or shorten the command."
	case StopContentFilter:
		return "Not run: the provider's content filter stopped your reply while you were writing this call, so its arguments are incomplete."
	}
	return fmt.Sprintf("Not run: the provider ended your reply early (finish reason %q) while you were writing this call, so its arguments are incomplete. Call it again.", string(reason))
}

// continuationPrompt is the tool-less request that asks for a summary (REQ-BED-020).
const continuationPrompt = `The conversation context is nearly full. Please provide a brief continuation summary that could seed a new conversation.

Include:
1. Current task status (if any)
2. Key files or concepts discussed
3. Suggested next steps

Keep your response concise.`

// ContinuationPrompt names the tool calls that were requested but not run (REQ-BED-020).
func ContinuationPrompt(rejected []ToolCall) string {
	if len(rejected) == 0 {
		return continuationPrompt
	}
	var b strings.Builder
	b.WriteString(continuationPrompt)
	b.WriteString("\n\nNote: The following tool calls were requested but not executed due to context limits:\n")
	for _, c := range rejected {
		fmt.Fprintf(&b, "- %s\n", c.Name)
	}
	return b.String()
}

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

// Transition is the pure core (REQ-BED-001): from a conversation and an event it computes the
// next conversation and the effects to carry out, or rejects the event with an error the UI
// can show. It never mutates its input. A stale or meaningless event returns the input
// unchanged with no effects and no error.
func Transition(c Conversation, ev Event) (Conversation, []Effect, error) {
	if c.State == nil {
		c.State = Idle{}
	}
	t := &tx{c: c}
	if r, ok := openRound(c.State); ok {
		t.spent = r.ResultTokens
	}
	var err error
	switch e := ev.(type) {
	case UserMessage:
		err = t.userMessage(e)
	case UserCancel:
		err = t.cancel()
	case LLMResponse:
		t.llmResponse(e)
	case LLMError:
		t.llmError(e)
	case RetryTimeout:
		t.retryTimeout(e)
	case ToolComplete:
		t.toolComplete(e)
	case ModeDecision:
		err = t.modeDecision(e)
	case UserDowngrade:
		err = t.downgrade(e)
	case UserTriggerContinuation:
		err = t.triggerContinuation()
	case SubAgentFinished:
		t.subAgentFinished(e)
	case SubAgentDeadline:
		t.subAgentDeadline(e)
	case RestoreAfterRestart:
		t.restore(e)
	case UserChangeModel:
		err = t.changeModel(e)
	case UserRestoredFiles:
		err = t.restoredFiles(e)
	default:
		err = fmt.Errorf("unknown event %T", ev)
	}
	if err != nil {
		return c, nil, err
	}
	if !t.changed && len(t.effects) == 0 {
		return c, nil, nil
	}
	effects := make([]Effect, 0, len(t.effects)+1)
	effects = append(effects, Persist{Messages: t.msgs})
	effects = append(effects, t.effects...)
	return t.c, effects, nil
}

// tx accumulates one transition. Every helper that changes the conversation sets changed, so
// that Transition knows to lead with a Persist effect.
type tx struct {
	c       Conversation
	msgs    []Message
	effects []Effect
	changed bool
	// spent estimates the tokens of the tool results of the open round, those of earlier
	// transitions included (Round.ResultTokens).
	spent int
}

func (t *tx) setState(s State) {
	t.c.State = s
	t.changed = true
}

func (t *tx) emit(e Effect) { t.effects = append(t.effects, e) }

func (t *tx) add(m Message) {
	m.Seq = t.c.NextSeq
	t.c.NextSeq++
	t.msgs = append(t.msgs, m)
	t.changed = true
}

func (t *tx) newExec() ExecID {
	t.c.LastExec++
	t.changed = true
	return t.c.LastExec
}

func (t *tx) result(call ToolCall, outcome Outcome, content string, display *ToolDisplay) {
	t.addResult(ToolResult{CallID: call.ID, Name: call.Name, Outcome: outcome, Content: content, Display: display})
}

// addResult writes a tool result, cut to what is left of the context window (ResultRoom), and
// counts it against the round.
func (t *tx) addResult(r ToolResult) {
	r.Content = FitToolResult(r.Content, t.ResultRoom())
	t.spent += EstimateTokens(r.Content, len(r.Images))
	t.add(Message{Kind: KindToolResult, ToolResult: &r})
}

// rest puts a conversation that has nothing left to do at rest: Idle for a person's
// conversation; for a sub-agent, Failed with the given reason, reported to the parent.
func (t *tx) rest(subAgentKind ErrorKind, subAgentMessage string) {
	if !t.c.IsSubAgent() {
		t.setState(Idle{})
		return
	}
	t.fail(subAgentKind, subAgentMessage)
}

func (t *tx) fail(kind ErrorKind, message string) { t.failReporting(kind, message, "") }

// failReporting fails a sub-agent and hands its parent what it said, if anything.
func (t *tx) failReporting(kind ErrorKind, message, report string) {
	t.setState(Failed{Message: message, ErrKind: kind})
	t.emit(NotifyParent{ParentID: t.c.ParentID, ParentExec: t.c.ParentExec, Outcome: SubAgentOutcome{
		AgentID: t.c.ID, Task: t.c.Task, Status: SubAgentFailed, Error: message, Kind: kind, Result: report,
	}})
}

// --- user input -------------------------------------------------------------------------

func (t *tx) userMessage(e UserMessage) error {
	if err := t.acceptsInput(); err != nil {
		return err
	}
	if strings.TrimSpace(e.Text) == "" && len(e.Images) == 0 {
		return ErrEmptyMessage
	}
	if est := EstimateTokens(e.Text, len(e.Images)); AtContinuation(Usage{InputTokens: est}, t.c.Window()) {
		return fmt.Errorf("%w: it is about %d tokens and the window of %s holds %d; shorten it or attach the content as a file the agent can read",
			ErrMessageTooLong, est, t.c.Model, t.c.Window())
	}
	if t.c.Title == "" {
		t.c.Title = TitleFrom(e.Text)
	}
	t.add(Message{Kind: KindUser, Text: e.Text, Images: slices.Clone(e.Images)})
	t.startRequest(1)
	return nil
}

// EstimateTokens guesses the tokens of a message before any model has counted them: four
// characters a token, and a thousand an image, as the llm client estimates.
func EstimateTokens(text string, images int) int {
	return (len(text)+3)/4 + 1000*images
}

// TitleFrom derives a conversation title from its first message.
func TitleFrom(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	line = strings.Join(strings.Fields(line), " ")
	if line == "" {
		return "Images"
	}
	const maxRunes = 60
	if r := []rune(line); len(r) > maxRunes {
		return string(r[:maxRunes-1]) + "…"
	}
	return line
}

func (t *tx) startRequest(attempt int) {
	exec := t.newExec()
	t.setState(LLMRequesting{Exec: exec, Attempt: attempt})
	t.emit(RequestLLM{Exec: exec, Attempt: attempt})
}

func (t *tx) startContinuation(rejected []ToolCall, trigger Usage, attempt int) {
	exec := t.newExec()
	t.setState(AwaitingContinuation{Exec: exec, Rejected: rejected, TriggerUsage: trigger, Attempt: attempt})
	t.emit(RequestLLM{Exec: exec, Attempt: attempt,
		Continuation: &ContinuationRequest{Prompt: ContinuationPrompt(rejected)}})
}

// cancel handles Stop (REQ-BED-005). The running work is aborted by an effect and the state
// comes to rest in the same transition, so a late result finds a different state and is
// dropped: cancel wins over a late success. Stop at rest is rejected with ErrNothingToStop
// (orchestration-design item 15), so an API caller learns that nothing was running.
func (t *tx) cancel() error {
	if !Busy(t.c.State) {
		return ErrNothingToStop
	}
	switch st := t.c.State.(type) {
	case LLMRequesting:
		if !st.RetryPending {
			t.emit(AbortLLM{Exec: st.Exec})
		}
		t.rest(ErrorCancelled, "cancelled")
	case ToolExecuting:
		t.emit(KillTool{Exec: st.Exec})
		t.result(st.Current, OutcomeCancelled, CancelledResultText, nil)
		t.skipAll(st.Remaining)
		t.system(st.Notes)
		t.rest(ErrorCancelled, "cancelled")
	case AwaitingModeApproval:
		t.result(st.Call, OutcomeCancelled, CancelledResultText+" The mode upgrade was not decided.", nil)
		t.skipAll(st.Remaining)
		t.system(st.Notes)
		t.rest(ErrorCancelled, "cancelled")
	case AwaitingSubAgents:
		outcomes := slices.Clone(st.Outcomes)
		var ids []string
		for i, o := range outcomes {
			if o.Status == SubAgentPending {
				ids = append(ids, o.AgentID)
				outcomes[i].Status, outcomes[i].Error, outcomes[i].Kind = SubAgentFailed, "cancelled by user", ErrorCancelled
			}
		}
		t.emit(CancelSubAgents{Exec: st.Exec, AgentIDs: ids})
		t.result(st.Call, OutcomeCancelled, CancelledResultText+"\n\n"+AggregateSubAgents(outcomes),
			&ToolDisplay{Summary: "cancelled", SubAgents: outcomes})
		t.skipAll(st.Remaining)
		t.system(st.Notes)
		t.rest(ErrorCancelled, "cancelled")
	case AwaitingContinuation:
		if !st.RetryPending {
			t.emit(AbortLLM{Exec: st.Exec})
		}
		t.exhaust(CancelledSummary, st.TriggerUsage)
	}
	return nil
}

// system writes held-back notices as system messages, once a round's results are all in.
func (t *tx) system(notes []string) {
	for _, n := range notes {
		t.add(Message{Kind: KindSystem, Text: n})
	}
}

// announce tells the agent about a mode change (REQ-BED-017). Inside a tool round the notice
// is held in the round (Round.Notes) and written after its last result; otherwise it is written
// at once.
func (t *tx) announce(text string) {
	switch st := t.c.State.(type) {
	case ToolExecuting:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	case AwaitingModeApproval:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	case AwaitingSubAgents:
		st.Notes = append(slices.Clone(st.Notes), text)
		t.setState(st)
	default:
		t.add(Message{Kind: KindSystem, Text: text})
	}
}

func (t *tx) skipAll(calls []ToolCall) {
	for _, c := range calls {
		t.result(c, OutcomeSkipped, SkippedResultText, nil)
	}
}

func (t *tx) exhaust(summary string, usage Usage) {
	t.add(Message{Kind: KindContinuation, Text: summary})
	t.setState(ContextExhausted{Summary: summary, FinalUsage: usage})
}

func (t *tx) modeDecision(e ModeDecision) error {
	st, ok := t.c.State.(AwaitingModeApproval)
	if !ok || st.Exec != e.Exec {
		return ErrNoPendingApproval
	}
	level := e.Mode
	if level == "" {
		level = ModeUnrestricted
	}
	// A change is announced once, by the mode notice (ModeChangeNotice), which follows the
	// round's last result (see Round.Notes); the call's result only answers the call. A
	// denial changes nothing, so its result is all that is said. An approval of a level that
	// gives nothing more (or that this build does not know) keeps the mode, and is said as a
	// denial.
	notes := slices.Clone(st.Notes)
	if e.Approve && level.Known() && level.Rank() > t.c.Mode.Rank() {
		t.c.Mode = level
		t.result(st.Call, OutcomeSuccess, ApprovedResultText, nil)
		notes = append(notes, ModeChangeNotice(level, ChangedByApproval))
	} else {
		t.result(st.Call, OutcomeError, DeniedResultText(t.c.Mode), nil)
	}
	next := st.Round
	next.Completed, next.Notes = append(slices.Clone(st.Completed), st.Call.ID), notes
	t.runRound(st.Remaining, next)
	return nil
}

// downgrade switches to a lower mode at once (REQ-BED-016): Unrestricted to Project or
// Restricted, Project to Restricted.
func (t *tx) downgrade(e UserDowngrade) error {
	if !t.c.LandlockAvailable {
		return ErrLandlockUnavailable
	}
	to := e.To
	if to == "" {
		to = ModeRestricted
	}
	if !to.Known() {
		return ErrNotADowngrade
	}
	switch t.c.State.(type) {
	case ContextExhausted, Completed, Failed:
		return nil
	}
	from := t.c.Mode
	if to == from {
		return nil
	}
	if to.Rank() > from.Rank() {
		return ErrNotADowngrade
	}
	t.c.Mode = to
	t.changed = true
	t.announce(ModeChangeNotice(to, ChangedBySwitch))
	// REQ-BED-016: the downgrade is immediate, also for work already running with more
	// access (stopsOnDowngrade).
	if st, ok := t.c.State.(ToolExecuting); ok && stopsOnDowngrade(st.Current.Name) {
		t.emit(KillTool{Exec: st.Exec})
		t.result(st.Current, OutcomeCancelled, DowngradeStoppedText(from, to), &ToolDisplay{Summary: "stopped: switched to " + to.Title()})
		next := st.Round
		next.Completed = append(slices.Clone(st.Completed), st.Current.ID)
		t.runRound(st.Remaining, next)
	}
	return nil
}

// stopsOnDowngrade reports whether a running call of the tool is killed when the person
// switches the mode down: the tools that go on using the access they started with — a bash
// command, an MCP call (its server, started under the old mode, is killed with it and starts
// again under the new one when next needed), a fetch_url on the network. patch writes at
// once, and killing it mid-write could leave a half-written file; the others only read.
func stopsOnDowngrade(tool string) bool {
	return tool == ToolBash || tool == ToolFetchURL || IsMCPTool(tool)
}

func (t *tx) triggerContinuation() error {
	if t.c.IsSubAgent() {
		switch t.c.State.(type) {
		case Completed, Failed:
			return ErrFinished
		}
		return ErrNoSubAgentContinuation
	}
	switch t.c.State.(type) {
	case ContextExhausted:
		return ErrContextExhausted
	case Idle, Error:
		t.startContinuation(nil, t.c.Usage, 1)
		return nil
	}
	return ErrNotIdle
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
			t.c.Usage = e.Usage
		}
		t.exhaust(summary, usage)
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

// --- tools --------------------------------------------------------------------------------

func (t *tx) toolComplete(e ToolComplete) {
	st, ok := t.c.State.(ToolExecuting)
	if !ok || st.Exec != e.Exec {
		return
	}
	res := e.Result
	// The execution id is the gate; the call is the state's, whatever the runner echoed.
	res.CallID, res.Name = st.Current.ID, st.Current.Name
	if res.Outcome == "" {
		res.Outcome = OutcomeError
	}
	t.addResult(res)
	next := st.Round
	next.Completed = append(slices.Clone(st.Completed), st.Current.ID)
	t.runRound(st.Remaining, next)
}

// runRound starts the next call of a tool round, answering at once the calls the core can
// decide itself, and sends the results to the model when the round is done (REQ-BED-004).
// prev carries what the round has done so far: the answered calls, the held-back system
// messages written when it is done (Notes), the cut call and the next request's attempt.
func (t *tx) runRound(calls []ToolCall, prev Round) {
	completed := slices.Clone(prev.Completed)
	for len(calls) > 0 {
		call, rest := calls[0], slices.Clone(calls[1:])
		if call.ID == prev.Cut {
			t.result(call, OutcomeError, CutCallText(prev.CutReason), nil)
			completed = append(completed, call.ID)
			calls = rest
			continue
		}
		if msg, refused := t.refusal(call, len(rest)+len(completed)); refused {
			t.result(call, OutcomeError, msg, nil)
			completed = append(completed, call.ID)
			calls = rest
			continue
		}
		round := Round{Remaining: rest, Completed: completed, Notes: slices.Clone(prev.Notes),
			Cut: prev.Cut, CutReason: prev.CutReason, Attempt: prev.Attempt, ResultTokens: t.spent}
		exec := t.newExec()
		switch call.Name {
		case ToolRequestModeUpgrade:
			var args ModeUpgradeArgs
			_ = json.Unmarshal([]byte(call.Arguments), &args) // refusal checked it decodes
			t.setState(AwaitingModeApproval{Exec: exec, Call: call, Reason: args.Reason, Round: round})
			t.emit(RequestApproval{Exec: exec, Reason: args.Reason})
		case ToolSpawnAgents:
			var args SpawnAgentsArgs
			_ = json.Unmarshal([]byte(call.Arguments), &args)
			specs := make([]SubAgentSpec, len(args.Tasks))
			outcomes := make([]SubAgentOutcome, len(args.Tasks))
			for i, task := range args.Tasks {
				id := fmt.Sprintf("%s-sub-%d-%d", t.c.ID, exec, i+1)
				specs[i] = SubAgentSpec{ID: id, Task: task}
				outcomes[i] = SubAgentOutcome{AgentID: id, Task: task, Status: SubAgentPending}
			}
			t.setState(AwaitingSubAgents{Exec: exec, Call: call, Outcomes: outcomes, Round: round})
			t.emit(SpawnSubAgents{Exec: exec, Agents: specs, Deadline: DefaultSubAgentDeadline})
		default:
			t.setState(ToolExecuting{Exec: exec, Current: call, Round: round})
			t.emit(ExecuteTool{Exec: exec, Call: call, Mode: t.c.Mode})
		}
		return
	}
	t.system(prev.Notes)
	t.startRequest(max(1, prev.Attempt))
}

// refusal decides the calls that are answered with an error without running anything: tools
// this conversation is not offered, arguments that are not JSON, writes in Restricted mode
// (REQ-BED-017), and misuse of the tools the core interprets itself. others counts the other
// calls of the same response, for submit_result, which must come alone.
func (t *tx) refusal(call ToolCall, others int) (string, bool) {
	sub := t.c.IsSubAgent()
	if !Offers(sub, call.Name) {
		return fmt.Sprintf("Unknown tool %q. The available tools are: %s.", call.Name, strings.Join(toolNames(sub), ", ")), true
	}
	if !ValidJSONObject(call.Arguments) {
		return fmt.Sprintf("The arguments of %s are not a valid JSON object, so it was not run. Call it again with arguments that match its schema.", call.Name), true
	}
	switch call.Name {
	case ToolPatch:
		// Rank, not equality: a mode this build does not know is Restricted.
		if t.c.Mode.Rank() == ModeRestricted.Rank() {
			if sub {
				return "patch is unavailable: this sub-agent runs in Restricted mode with a read-only file system. Describe the change you would make in submit_result instead.", true
			}
			return "patch is unavailable in Restricted mode: the file system is read-only. Call request_mode_upgrade with your reason to ask the user for write access, then try again.", true
		}
	case ToolRequestModeUpgrade:
		var args ModeUpgradeArgs
		_ = json.Unmarshal([]byte(call.Arguments), &args)
		if strings.TrimSpace(args.Reason) == "" {
			return "request_mode_upgrade needs a reason: say what you will change and why.", true
		}
		if t.c.Mode == ModeUnrestricted {
			if !t.c.LandlockAvailable {
				return "Already in Unrestricted mode: Restricted mode is not available on this machine, so you already have write access.", true
			}
			return "Already in Unrestricted mode: you have write access.", true
		}
	case ToolSpawnAgents:
		var args SpawnAgentsArgs
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil {
			return fmt.Sprintf("spawn_agents: tasks must be a list of strings (%v).", err), true
		}
		if len(args.Tasks) == 0 || len(args.Tasks) > MaxSubAgents {
			return fmt.Sprintf("spawn_agents takes between 1 and %d tasks; got %d.", MaxSubAgents, len(args.Tasks)), true
		}
		for i, task := range args.Tasks {
			if strings.TrimSpace(task) == "" {
				return fmt.Sprintf("spawn_agents: task %d is empty.", i+1), true
			}
		}
	case ToolSubmitResult:
		var args SubmitResultArgs
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || strings.TrimSpace(args.Result) == "" {
			return "submit_result needs a non-empty result string.", true
		}
		if others > 0 {
			return "submit_result must be the only tool call in its response. Call it again, alone, when everything else is done.", true
		}
	}
	return "", false
}

// --- sub-agents ---------------------------------------------------------------------------

func (t *tx) subAgentFinished(e SubAgentFinished) {
	st, ok := t.c.State.(AwaitingSubAgents)
	if !ok || st.Exec != e.Exec {
		return
	}
	i := slices.IndexFunc(st.Outcomes, func(o SubAgentOutcome) bool { return o.AgentID == e.Outcome.AgentID })
	if i < 0 || st.Outcomes[i].Status != SubAgentPending || e.Outcome.Status == SubAgentPending {
		return
	}
	next := st
	next.Outcomes = slices.Clone(st.Outcomes)
	outcome := e.Outcome
	outcome.Task = st.Outcomes[i].Task
	next.Outcomes[i] = outcome
	if next.Pending() > 0 {
		t.setState(next)
		return
	}
	t.finishSubAgents(next)
}

func (t *tx) subAgentDeadline(e SubAgentDeadline) {
	st, ok := t.c.State.(AwaitingSubAgents)
	if !ok || st.Exec != e.Exec {
		return
	}
	next := st
	next.Outcomes = slices.Clone(st.Outcomes)
	var ids []string
	for i, o := range next.Outcomes {
		if o.Status == SubAgentPending {
			ids = append(ids, o.AgentID)
			next.Outcomes[i].Status, next.Outcomes[i].Error, next.Outcomes[i].Kind =
				SubAgentFailed, "timed out before submitting a result", ErrorDeadline
		}
	}
	t.emit(CancelSubAgents{Exec: st.Exec, AgentIDs: ids})
	t.finishSubAgents(next)
}

func (t *tx) finishSubAgents(st AwaitingSubAgents) {
	outcome := OutcomeSuccess
	failed := 0
	for _, o := range st.Outcomes {
		if o.Status != SubAgentSucceeded {
			failed++
		}
	}
	if failed == len(st.Outcomes) {
		outcome = OutcomeError
	}
	summary := fmt.Sprintf("%d of %d succeeded", len(st.Outcomes)-failed, len(st.Outcomes))
	t.result(st.Call, outcome, AggregateSubAgents(st.Outcomes),
		&ToolDisplay{Summary: summary, SubAgents: slices.Clone(st.Outcomes)})
	next := st.Round
	next.Completed = append(slices.Clone(st.Completed), st.Call.ID)
	t.runRound(st.Remaining, next)
}

// AggregateSubAgents writes the spawn_agents result the model reads: every task in spawn
// order with its result or what went wrong (REQ-BED-008).
func AggregateSubAgents(outcomes []SubAgentOutcome) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Results of %d sub-agents, in the order the tasks were given:\n", len(outcomes))
	for i, o := range outcomes {
		fmt.Fprintf(&b, "\n## Sub-agent %d: %s\nTask: %s\n", i+1, o.Status, o.Task)
		switch o.Status {
		case SubAgentSucceeded:
			fmt.Fprintf(&b, "Result:\n%s\n", o.Result)
		case SubAgentFailed:
			switch {
			case o.Error != "" && o.Kind != "":
				fmt.Fprintf(&b, "Failure (%s): %s\n", o.Kind, o.Error)
			case o.Error != "":
				// A sub-agent that reported success=false has no error kind.
				fmt.Fprintf(&b, "Failure: %s\n", o.Error)
			}
			if o.Result != "" {
				fmt.Fprintf(&b, "Reported:\n%s\n", o.Result)
			}
			if o.Kind == ErrorContextExhausted {
				b.WriteString("You may spawn a replacement with a narrower task.\n")
			}
		default:
			b.WriteString("No result.\n")
		}
	}
	return b.String()
}

// --- restart ------------------------------------------------------------------------------

// restore brings a conversation found busy after a restart to rest (REQ-BED-007). The calls
// the stored history leaves open are answered from the event, which the store derives from
// the messages themselves, so a state that disagrees with its history cannot leave the chain
// broken.
func (t *tx) restore(e RestoreAfterRestart) {
	if !Busy(t.c.State) {
		if len(e.Unanswered) > 0 {
			t.answerInterrupted(e.Unanswered, nil)
		}
		return
	}
	var subOutcomes []SubAgentOutcome
	spawnCall := ""
	if st, ok := t.c.State.(AwaitingSubAgents); ok {
		spawnCall = st.Call.ID
		subOutcomes = slices.Clone(st.Outcomes)
		for i, o := range subOutcomes {
			if o.Status == SubAgentPending {
				subOutcomes[i].Status, subOutcomes[i].Error, subOutcomes[i].Kind =
					SubAgentFailed, "interrupted by restart", ErrorInterrupted
			}
		}
	}
	t.answerInterrupted(e.Unanswered, func(c ToolCall) (string, *ToolDisplay) {
		if c.ID == spawnCall {
			return InterruptedResultText + "\n\n" + AggregateSubAgents(subOutcomes),
				&ToolDisplay{Summary: "the app stopped while sub-agents worked", SubAgents: subOutcomes}
		}
		return InterruptedResultText, nil
	})
	if r, ok := openRound(t.c.State); ok {
		t.system(r.Notes)
	}
	if st, ok := t.c.State.(AwaitingContinuation); ok {
		t.exhaust(InterruptedSummary, st.TriggerUsage)
		return
	}
	if !t.c.IsSubAgent() {
		t.add(Message{Kind: KindError, ErrorKind: ErrorInterrupted, Text: InterruptedTurnText(t.c.State, e.Why)})
	}
	t.rest(ErrorInterrupted, "interrupted by restart")
}

// InterruptedTurnText is the notice under a turn the app stopped in (issue 25): the person's
// message was committed but the agent never finished answering it. The window offers Retry
// under it; the CLI says how to retry. busy is the state the turn was in.
func InterruptedTurnText(busy State, why string) string {
	var while string
	switch busy.(type) {
	case ToolExecuting:
		while = "while the agent's tools ran"
	case AwaitingModeApproval:
		while = "while the agent waited for your approval"
	case AwaitingSubAgents:
		while = "while sub-agents worked"
	default:
		while = "before the reply"
	}
	text := "Not answered: the app stopped " + while
	if why != "" {
		text += " (" + why + ")"
	}
	return text + "."
}

func (t *tx) answerInterrupted(calls []ToolCall, content func(ToolCall) (string, *ToolDisplay)) {
	for _, c := range calls {
		text, display := InterruptedResultText, (*ToolDisplay)(nil)
		if content != nil {
			text, display = content(c)
		}
		t.result(c, OutcomeInterrupted, text, display)
	}
}

// openRound returns the round of a state that runs one.
func openRound(s State) (Round, bool) {
	switch st := s.(type) {
	case ToolExecuting:
		return st.Round, true
	case AwaitingModeApproval:
		return st.Round, true
	case AwaitingSubAgents:
		return st.Round, true
	}
	return Round{}, false
}
