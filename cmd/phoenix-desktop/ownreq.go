package main

import (
	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// maxAgentDepth bounds the walk up a sub-agent's parents (sub-agents nest a few levels).
const maxAgentDepth = 16

// ownRequest reports whether an event that is not an MCP request (or a full disk's hold), or
// one of conversation root or of one of its sub-agents, is chat's to handle. Beside the window the
// runtime also runs the window's conversations, whose requests the window answers.
func ownRequest(store *persistence.Store, ev actors.Event, root string) bool {
	switch ev.(type) {
	case actors.MCPInputRequested, actors.MCPToolConfirmation, actors.MCPRequestClosed, actors.DiskFullHold:
	default:
		return true
	}
	id := ev.Conversation()
	for range maxAgentDepth {
		if id == root {
			return true
		}
		c, err := store.Get(id)
		if err != nil || c.ParentID == "" {
			return false
		}
		id = c.ParentID
	}
	return false
}
