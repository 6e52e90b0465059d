package domain

import (
	"fmt"
	"slices"
	"strings"
)

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
		if strings.TrimSpace(e.Title) != "" {
			t.c.Title = TitleFrom(e.Title)
		} else {
			t.c.Title = TitleFrom(e.Text)
		}
	}
	t.add(Message{Kind: KindUser, Text: e.Text, Images: slices.Clone(e.Images)})
	if m := strings.TrimSpace(e.Model); m != "" && m != t.c.Model {
		t.c.TurnModel = m
	}
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
