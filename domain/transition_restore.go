package domain

import "slices"

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
