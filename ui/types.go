package ui

import "github.com/phoenix-desktop/phoenix/actors"

// The command API's types, named here so the rest of the package reads as the window's own
// vocabulary; they are the actors package's types, so *actors.Runtime satisfies Backend.
type (
	// NewConversation are the choices of the New conversation dialog.
	NewConversation = actors.NewConversation
	// Summary is one row of the conversation list.
	Summary = actors.Summary
	// Snapshot is a conversation with its history and its sub-agents.
	Snapshot = actors.Snapshot
	// Attachment is an image the person attached: raw bytes, validated and stored by the
	// runtime.
	Attachment = actors.Attachment
	// SandboxStatus says whether Landlock can enforce Restricted mode here.
	SandboxStatus = actors.SandboxStatus
	// SearchQuery, SearchResult and SearchHit are a search across every conversation.
	SearchQuery  = actors.SearchQuery
	SearchResult = actors.SearchResult
	SearchHit    = actors.SearchHit
)

// The real runtime is a Backend and its subscription an EventSource.
var (
	_ Backend     = (*actors.Runtime)(nil)
	_ EventSource = (*actors.Subscription)(nil)
)
