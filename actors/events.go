package actors

import (
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// This file is the event stream contract (REQ-BED-011). The runtime publishes these values on
// protoactor's EventStream after each commit; the UI and the CLI receive them through
// Subscribe, which never blocks the publishing actor.
//
// Ordering: for one conversation, events arrive in the order they happened: a transition's
// MessageCommitted events (in sequence order) come before its StateChanged. TextDelta events
// of a request arrive before the MessageCommitted of the reply they belong to.
// Delivery: StateChanged, MessageCommitted, ConversationCreated, ApprovalRequested,
// HostApprovalRequested, HostApprovalAnswered (hosts.go), Notice and DiskFullHold are never dropped, nor
// are the MCP requests for the person and their closing (mcpask.go). TextDelta may be coalesced (consecutive deltas of the same request and
// kind are joined) when a subscriber falls behind; the committed reply is always complete. A
// ToolProgress may be replaced by the next one of the same call.

// Event is implemented by every value published on the stream.
type Event interface {
	// Conversation is the id of the conversation the event is about.
	Conversation() string
}

// ConversationCreated announces a new conversation (user-initiated or a sub-agent).
type ConversationCreated struct {
	Conv domain.Conversation
}

// ConversationDeleted says a conversation and everything that belonged to it are gone.
type ConversationDeleted struct {
	ConvID string
}

// StateChanged carries the state after a committed transition, with everything a status
// bar needs. At is when the runtime committed it (for "Retrying in 4 s" and elapsed times).
type StateChanged struct {
	Conv domain.Conversation
	At   time.Time
}

// MessageCommitted carries one message once it is durable.
type MessageCommitted struct {
	ConvID  string
	Message domain.Message
}

// TextDelta is streamed model text, not persisted. Exec identifies the request: a delta whose
// Exec is not the state's current request belongs to an aborted request and is ignored.
type TextDelta struct {
	ConvID string
	Exec   domain.ExecID
	Text   string
	// Reasoning marks a thinking model's reasoning, which comes before the answer and is
	// committed apart from it (Message.Reasoning).
	// It is left out of JSON when false, so text deltas encode as they always have.
	Reasoning bool `json:",omitempty"`
}

// ApprovalRequested asks the person to approve or deny a mode upgrade (REQ-BED-015). Answer
// with Runtime.DecideUpgrade and this Exec.
type ApprovalRequested struct {
	ConvID string
	Exec   domain.ExecID
	Reason string
}

// NoticeLevel grades a notice.
type NoticeLevel string

const (
	NoticeInfo    NoticeLevel = "info"
	NoticeWarning NoticeLevel = "warning"
	NoticeError   NoticeLevel = "error"
)

// Notice is something the person should know that is not part of the history, such as a
// conversation actor restarted after an internal error.
type Notice struct {
	ConvID string
	Level  NoticeLevel
	Text   string
}

// DiskFullHold says a full disk refused to save a conversation's turn (a result, or the
// end of a Stop): the conversation stopped what it ran, keeps everything committed, and
// waits for room to come to rest by itself. The window shows the banner and waits with it; a
// headless command ends there, as nothing more can be saved until there is room (issue 33).
// Err is the store's *persistence.DiskFullError.
type DiskFullHold struct {
	ConvID string
	Err    error
}

// ToolProgress is a progress notification of the running tool call (an MCP server's), not
// persisted. Exec identifies the call; one whose Exec is not the state's current tool run is
// stale. Total is 0 when the server does not know it.
type ToolProgress struct {
	ConvID          string
	Exec            domain.ExecID
	Progress, Total float64
	Message         string
}

func (e ToolProgress) Conversation() string        { return e.ConvID }
func (e ConversationCreated) Conversation() string { return e.Conv.ID }
func (e StateChanged) Conversation() string        { return e.Conv.ID }
func (e ConversationDeleted) Conversation() string { return e.ConvID }
func (e MessageCommitted) Conversation() string    { return e.ConvID }
func (e TextDelta) Conversation() string           { return e.ConvID }
func (e ApprovalRequested) Conversation() string   { return e.ConvID }
func (e Notice) Conversation() string              { return e.ConvID }
func (e DiskFullHold) Conversation() string        { return e.ConvID }
