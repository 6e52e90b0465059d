package domain

import "time"

// Event is the sealed set of things that can happen to a conversation. Events that report the
// end of an execution carry its ExecID; Transition drops them when it is not the current one.
type Event interface{ isEvent() }

// UserMessage is text and images sent by the person (REQ-BED-002, REQ-BED-013).
type UserMessage struct {
	Text   string
	Images []ImageRef
	// Model is the model this message's turn is sent to instead of the conversation's (the
	// one a custom command's front matter names, already made one the provider offers). It
	// lasts until the conversation comes to rest, and changes nothing else: the
	// conversation's model, its context window and its history stay as they are. "" (or the
	// conversation's own model) means none.
	Model string
	// Title titles a conversation this message starts instead of the message's first line
	// (a command's invocation, as the person typed it); "" means the text.
	Title string
}

// UserCancel is the Stop button (REQ-BED-005).
type UserCancel struct{}

// LLMResponse is a complete, successful model answer.
type LLMResponse struct {
	Exec      ExecID
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
	// StopReason is empty when the reply ended normally (see StopReason).
	StopReason StopReason
	// Reasoning is what a thinking model thought before this answer, or nil.
	Reasoning *Reasoning
}

// LLMError is a failed model request, classified by the client.
type LLMError struct {
	Exec    ExecID
	Kind    ErrorKind
	Message string
	// RetryAfter is the server's requested wait, when it sent one.
	RetryAfter time.Duration
}

// RetryTimeout is the retry timer firing (REQ-BED-006).
type RetryTimeout struct{ Exec ExecID }

// ToolComplete is the end of one tool run, whatever its outcome.
type ToolComplete struct {
	Exec   ExecID
	Result ToolResult
}

// ModeDecision is the person's answer to a request_mode_upgrade (REQ-BED-015).
type ModeDecision struct {
	Exec    ExecID
	Approve bool
	// Mode is the level approved: ModeProject ("Allow edits in this project") or
	// ModeUnrestricted ("Allow everything"). Empty means ModeUnrestricted, the only level
	// there was before Project mode. Approving a level that is not above the current mode
	// keeps the mode and is answered like a denial.
	Mode Mode
}

// UserDowngrade switches to a lower mode at once (REQ-BED-016): from Unrestricted to Project
// or Restricted, from Project to Restricted.
type UserDowngrade struct {
	// To is the mode to switch to; empty means ModeRestricted.
	To Mode
}

// UserTriggerContinuation is the "Wrap up now" button (REQ-BED-023).
type UserTriggerContinuation struct{}

// SubAgentFinished reports one sub-agent's outcome to its parent (REQ-BED-008).
type SubAgentFinished struct {
	Exec    ExecID
	Outcome SubAgentOutcome
}

// SubAgentDeadline fires when a spawn_agents batch has run out of time.
type SubAgentDeadline struct{ Exec ExecID }

// RestoreAfterRestart brings a conversation loaded after a restart to rest (REQ-BED-007).
// Unanswered lists the tool calls the stored history leaves without a result; each gets an
// "interrupted by restart" result so the next request is valid.
type RestoreAfterRestart struct {
	Unanswered []ToolCall
	// Why says why the app stopped, when the runtime knows ("the disk was full"); the notice
	// of an interrupted turn names it. Empty when nothing is known (a crash, a power cut).
	Why string
}

func (UserMessage) isEvent()             {}
func (UserCancel) isEvent()              {}
func (LLMResponse) isEvent()             {}
func (LLMError) isEvent()                {}
func (RetryTimeout) isEvent()            {}
func (ToolComplete) isEvent()            {}
func (ModeDecision) isEvent()            {}
func (UserDowngrade) isEvent()           {}
func (UserTriggerContinuation) isEvent() {}
func (SubAgentFinished) isEvent()        {}
func (SubAgentDeadline) isEvent()        {}
func (RestoreAfterRestart) isEvent()     {}

// ExecOf returns the execution an event reports on, for events that report one: those are the
// events the stale gate may drop (orchestration-design items 2, 8, 16–18).
func ExecOf(ev Event) (ExecID, bool) {
	switch e := ev.(type) {
	case LLMResponse:
		return e.Exec, true
	case LLMError:
		return e.Exec, true
	case RetryTimeout:
		return e.Exec, true
	case ToolComplete:
		return e.Exec, true
	case ModeDecision:
		return e.Exec, true
	case SubAgentFinished:
		return e.Exec, true
	case SubAgentDeadline:
		return e.Exec, true
	}
	return 0, false
}
