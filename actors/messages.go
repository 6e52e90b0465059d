package actors

import (
	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
)

// Messages shared by the actors. Commands carry the conversation id so the manager can route
// them; the conversation actor answers each with a reply value (ctx.Respond).

type (
	// cmdEvent asks a conversation actor to apply a domain event for the person (send,
	// cancel, decide, downgrade, wrap up). The reply is a reply value.
	cmdEvent struct {
		ID    string
		Event domain.Event
		// Retry, with no Event, sends again the person's message of a turn the app stopped
		// in (retry.go); the actor picks it from its own history.
		Retry bool
	}
	// cmdStop asks a conversation actor to apply the Stop its stopGate holds, if it has not
	// already, and answers with its outcome (a reply).
	cmdStop struct{ ID string }
	// cmdArchive hides a conversation from the list or shows it again; the reply is reply.
	cmdArchive struct {
		ID       string
		Archived bool
	}
	// cmdRestore begins (Begin) or ends a restore of the conversation's files (Undo,
	// Rewind): while it runs the conversation accepts no message, so no turn can run beside
	// git writing the tree. The reply is reply.
	cmdRestore struct {
		ID    string
		Begin bool
	}
	// cmdCreate creates a conversation; the reply is replyConv.
	cmdCreate struct {
		Conv domain.Conversation
		// Messages are a fork's history (fork.go), stored before its actor starts.
		Messages []domain.Message
	}
	// reply answers a command; Err is nil on success.
	reply struct{ Err error }
	// replyConv answers cmdCreate.
	replyConv struct {
		Conv domain.Conversation
		Err  error
	}
	// cmdStopAll stops every conversation actor before the system shuts down.
	cmdStopAll struct{}
	// cmdDelete deletes a conversation; the reply is reply, sent once it is gone.
	cmdDelete struct{ ID string }
	// deleteDone tells the manager a deletion has ended, so the id may be routed again.
	deleteDone struct{ ID string }
	// cmdResident asks the manager how many conversation actors run; the reply is an int.
	cmdResident struct{}
	// passivateTick makes the manager look for conversations idle long enough to passivate.
	passivateTick struct{}
	// passivateQuery asks a conversation actor whether it is at rest; it answers with
	// passivateAnswer. Forwards is the manager's count of commands routed to it so far.
	passivateQuery  struct{ Forwards uint64 }
	passivateAnswer struct {
		ID       string
		PID      *actor.PID
		Forwards uint64
		AtRest   bool
	}
)

// Results that child actors send to their conversation, each with the execution id it was
// started with so that the core can drop stale ones.
type (
	llmDone struct {
		Exec domain.ExecID
		Resp llm.Response
		Err  error
	}
	toolDone struct {
		Exec   domain.ExecID
		Result domain.ToolResult
	}
	retryFired    struct{ Exec domain.ExecID }
	deadlineFired struct{ Exec domain.ExecID }
	// subAgentReport is a sub-agent's NotifyParent effect, sent to its parent.
	subAgentReport struct {
		Exec    domain.ExecID
		Outcome domain.SubAgentOutcome
	}
	// startTask starts a freshly spawned sub-agent on its task.
	startTask struct{ Task string }
)
