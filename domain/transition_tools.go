package domain

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

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
