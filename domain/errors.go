package domain

import "errors"

// Rejections returned by Transition. The UI shows them as they are, so their text is written
// for a person; callers compare with errors.Is.
var (
	// ErrAgentBusy rejects a user message while the agent works (REQ-BED-002).
	ErrAgentBusy = errors.New("agent is busy")
	// ErrContextExhausted rejects a user message in a read-only conversation (REQ-BED-021).
	ErrContextExhausted = errors.New("context exhausted")
	// ErrEmptyMessage rejects a message with neither text nor images.
	ErrEmptyMessage = errors.New("message is empty")
	// ErrMessageTooLong rejects a message whose estimated size alone reaches the continuation
	// threshold (90% of the window, REQ-BED-019): accepting it would force a wrap-up at once.
	ErrMessageTooLong = errors.New("message is too long for the model's context window")
	// ErrNoPendingApproval rejects a mode decision that matches no open request, such as a
	// second click or a click after the request was cancelled.
	ErrNoPendingApproval = errors.New("no mode upgrade is waiting for a decision")
	// ErrLandlockUnavailable rejects a switch to Restricted mode where it cannot be enforced.
	ErrLandlockUnavailable = errors.New("restricted mode is unavailable: Landlock is not supported here")
	// ErrNotADowngrade rejects a UserDowngrade to a mode that is not below the current one:
	// only the agent's request_mode_upgrade and the person's approval raise the mode.
	ErrNotADowngrade = errors.New("only a switch to a lower mode is immediate (Unrestricted, then Project, then Restricted); more access is asked for by the agent and approved by you")
	// ErrNotIdle rejects a manual continuation while the agent works (REQ-BED-023).
	ErrNotIdle = errors.New("wrap-up is possible only while the agent is idle")
	// ErrFinished rejects input to a sub-agent that has completed or failed.
	ErrFinished = errors.New("this sub-agent has finished")
	// ErrNoSubAgentContinuation rejects a manual wrap-up of a sub-agent: sub-agents never run
	// the continuation flow, they fail when their context fills (REQ-BED-024).
	ErrNoSubAgentContinuation = errors.New("sub-agents do not wrap up: they fail when their context fills")
	// ErrNothingToStop answers Stop while the agent is at rest (orchestration-design item
	// 15): the caller learns that nothing was running instead of a silent success.
	ErrNothingToStop = errors.New("nothing to stop: the agent is not working")
	// ErrSubAgentReadOnly rejects a person's change to a sub-agent (a model switch, a file
	// restore): it follows its parent.
	ErrSubAgentReadOnly = errors.New("a sub-agent cannot be changed: it follows its parent conversation")
	// ErrEmptyModel rejects a model switch without a model name.
	ErrEmptyModel = errors.New("no model is named")
)

// ErrorKind classifies a failure for display and for the retry decision (REQ-BED-006).
type ErrorKind string

const (
	ErrorAuth               ErrorKind = "auth"
	ErrorRateLimit          ErrorKind = "rate_limit"
	ErrorNetwork            ErrorKind = "network"
	ErrorServer             ErrorKind = "server_error"
	ErrorTimeout            ErrorKind = "timeout"
	ErrorIncompleteResponse ErrorKind = "incomplete_response"
	ErrorInvalidRequest     ErrorKind = "invalid_request"
	ErrorContextLength      ErrorKind = "context_length"
	ErrorUnknown            ErrorKind = "unknown"
	// ErrorContextExhausted fails a sub-agent whose context filled up (REQ-BED-024).
	ErrorContextExhausted ErrorKind = "context_exhausted"
	// ErrorCancelled fails a sub-agent stopped by its parent.
	ErrorCancelled ErrorKind = "cancelled"
	// ErrorInterrupted fails a sub-agent that was running when the app stopped.
	ErrorInterrupted ErrorKind = "interrupted"
	// ErrorDeadline fails a sub-agent that ran past its deadline.
	ErrorDeadline ErrorKind = "deadline"
	// ErrorNoResult fails a sub-agent that ended its turn without calling submit_result.
	ErrorNoResult ErrorKind = "no_result"
	// ErrorOutputLimit ends a turn whose replies kept being cut off inside a tool call.
	ErrorOutputLimit ErrorKind = "output_limit"
)

// Retryable reports whether an LLM error of this kind is worth another attempt.
func (k ErrorKind) Retryable() bool {
	switch k {
	case ErrorRateLimit, ErrorNetwork, ErrorServer, ErrorTimeout, ErrorIncompleteResponse:
		return true
	}
	return false
}

// Describe says, for a person, what went wrong and what to do about it.
func (k ErrorKind) Describe() string {
	switch k {
	case ErrorAuth:
		return "The provider rejected the API key: check it in Settings"
	case ErrorRateLimit:
		return "The provider is rate limiting requests: wait a little, then send a message to retry"
	case ErrorNetwork:
		return "The provider could not be reached: check the network and the base URL, then send a message to retry"
	case ErrorServer:
		return "The provider had a server error: send a message to retry"
	case ErrorTimeout:
		return "The provider did not answer in time: send a message to retry"
	case ErrorIncompleteResponse:
		return "The provider's answer was cut off: send a message to retry"
	case ErrorInvalidRequest:
		return "The provider rejected the request: check the model name and settings"
	case ErrorContextLength:
		return "The conversation is longer than the model accepts: wrap up and continue in a new conversation"
	case ErrorContextExhausted:
		return "The context window is full"
	case ErrorCancelled:
		return "Cancelled"
	case ErrorInterrupted:
		return "Interrupted by a restart"
	case ErrorDeadline:
		return "Ran past its deadline"
	case ErrorNoResult:
		return "Ended without submitting a result"
	case ErrorOutputLimit:
		return "The model's replies kept being cut off at its output limit: ask for smaller steps, or raise the model's output limit"
	}
	return "Something unexpected went wrong: send a message to retry"
}
