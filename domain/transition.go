package domain

import (
	"fmt"
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
	if !Busy(s) {
		// A turn's own model (UserMessage.Model) ends with the turn, however it ends.
		t.c.TurnModel = ""
	}
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

// system writes held-back notices as system messages, once a round's results are all in.
func (t *tx) system(notes []string) {
	for _, n := range notes {
		t.add(Message{Kind: KindSystem, Text: n})
	}
}

func (t *tx) skipAll(calls []ToolCall) {
	for _, c := range calls {
		t.result(c, OutcomeSkipped, SkippedResultText, nil)
	}
}

func (t *tx) exhaust(summary string, usage Usage) {
	t.exhaustWith(summary, usage, nil)
}

// exhaustWith is exhaust for a summary the model wrote: its reply's usage goes on the
// continuation message, as a reply's goes on its message, so that totals read from the
// history count the summary as Spent does (issue 33).
func (t *tx) exhaustWith(summary string, usage Usage, reply *Usage) {
	t.add(Message{Kind: KindContinuation, Text: summary, Usage: reply})
	t.setState(ContextExhausted{Summary: summary, FinalUsage: usage})
}
