package domain

import (
	"fmt"
	"slices"
	"strings"
)

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
