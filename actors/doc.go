// Package actors is the runtime of Phoenix Desktop, on protoactor-go. A manager actor
// supervises one actor per conversation; each conversation actor is the single writer of its
// conversation and calls domain.Transition for everything that happens, commits the result,
// then carries out the effects through child actors: one model request at a time, one tool
// run at a time, and sub-agent conversations in parallel.
//
// A conversation's MCP servers (package mcp) belong to its actor: their tools are fixed for
// each model request by the request's worker, their calls run on the tool worker like any
// tool, and they are killed when the actor stops.
//
// The Runtime type is the command API the GUI and the CLI use; events.go is the event stream
// contract they subscribe to. Stop does not queue behind other messages: Runtime.Cancel and
// the conversation actor share a stop gate (stopgate.go) that cancels the running work at once
// and is checked before every message the actor handles (REQ-BED-005). Working on a project
// adds four parts beside the core, each in its own file and each keeping its state in the
// store (so a restarted or passivated actor needs none of its own): instructions.go (AGENTS.md
// into the system prompt), checkpoints*.go (snapshots before patch and Unrestricted bash, Undo
// and Rewind), queue.go (messages typed while the agent works, sent when it comes to rest) and
// model.go (switching the model). The package must never block a mailbox on a model or a tool,
// and never change a conversation except through domain.Transition.
package actors
