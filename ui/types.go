package ui

import (
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TEMPORARY: these mirror the actors command API types, whose final signatures are agreed but
// whose code has not landed yet. When actors/ exports them, this file becomes type aliases
// (NewConversation = actors.NewConversation, …) and nothing else in the package changes.

// NewConversation are the choices of the New conversation dialog.
type NewConversation struct {
	Cwd, Model, Title string
	Unrestricted      bool
	ContinuedFrom     string
}

// Summary is one row of the conversation list.
type Summary struct {
	ID, Title, Cwd, Model string
	Mode                  domain.Mode
	State                 domain.StateKind
	Usage                 domain.Usage
	ContextWindow         int
	CreatedAt, UpdatedAt  time.Time
	Archived              bool
	ContinuedFrom         string
}

// Snapshot is a conversation with its history and its sub-agents.
type Snapshot struct {
	Conv      domain.Conversation
	Messages  []domain.Message
	SubAgents []domain.Conversation
}

// Attachment is an image the person attached: raw bytes, validated and stored by the runtime.
type Attachment struct {
	Name string
	Data []byte
}

// SandboxStatus says whether Landlock can enforce Restricted mode here.
type SandboxStatus struct {
	Available bool
	ABI       int
	Reason    string
}
