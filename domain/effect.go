package domain

import "time"

// Effect is the sealed set of things Transition asks the runtime to do. When a transition
// changes anything, its first effect is Persist, so state and messages are committed before
// any I/O starts (REQ-BED-007).
type Effect interface{ isEffect() }

// Persist commits the new conversation record together with the messages the transition
// produced, in one atomic write.
type Persist struct {
	Messages []Message
}

// RequestLLM starts a model request for the conversation's history.
type RequestLLM struct {
	Exec    ExecID
	Attempt int
	// Continuation is set for the tool-less summary request (REQ-BED-020): the prompt is
	// appended as a final user message and no tools are offered.
	Continuation *ContinuationRequest
}

// ContinuationRequest describes the summary request.
type ContinuationRequest struct {
	Prompt string
}

// ScheduleRetry arms a timer that delivers RetryTimeout{Exec} after Delay.
type ScheduleRetry struct {
	Exec  ExecID
	Delay time.Duration
}

// AbortLLM cancels an in-flight request at once (REQ-BED-005).
type AbortLLM struct{ Exec ExecID }

// ExecuteTool runs one tool call under the given mode.
type ExecuteTool struct {
	Exec ExecID
	Call ToolCall
	Mode Mode
}

// KillTool stops a running tool and its whole process group (REQ-BED-005).
type KillTool struct{ Exec ExecID }

// RequestApproval asks the person to approve or deny a mode upgrade (REQ-BED-015).
type RequestApproval struct {
	Exec   ExecID
	Reason string
}

// SubAgentSpec is one sub-agent to start.
type SubAgentSpec struct {
	ID   string
	Task string
}

// SpawnSubAgents starts sub-agents in parallel and arms their deadline (REQ-BED-008).
type SpawnSubAgents struct {
	Exec     ExecID
	Agents   []SubAgentSpec
	Deadline time.Duration
}

// CancelSubAgents stops the listed sub-agents.
type CancelSubAgents struct {
	Exec     ExecID
	AgentIDs []string
}

// NotifyParent hands a finished sub-agent's outcome to its parent conversation.
type NotifyParent struct {
	ParentID   string
	ParentExec ExecID
	Outcome    SubAgentOutcome
}

func (Persist) isEffect()         {}
func (RequestLLM) isEffect()      {}
func (ScheduleRetry) isEffect()   {}
func (AbortLLM) isEffect()        {}
func (ExecuteTool) isEffect()     {}
func (KillTool) isEffect()        {}
func (RequestApproval) isEffect() {}
func (SpawnSubAgents) isEffect()  {}
func (CancelSubAgents) isEffect() {}
func (NotifyParent) isEffect()    {}
