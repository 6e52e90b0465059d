package actors

import (
	"errors"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// A full disk while a turn runs (persistence/space.go) is a state, not a crash. When it
// refuses the commit of a result the runtime produced (a reply, a tool result), restarting
// the actor would only fail the same commit again until the supervisor gave up. Instead the
// conversation stops what it runs (holdForDisk) and keeps its last committed state, which
// is busy with nothing running; the notice of the failed commit has told the person, in the
// banner's words, how much to free. Every diskRetryEvery it asks the store for room, and once
// there is some it brings the conversation to rest exactly as after a restart
// (RestoreAfterRestart): every committed word is kept and the interrupted call is answered.
// A Stop whose end a full disk refuses holds the same way (stopOnFullDisk): restarting the
// actor would only load the same busy state and hold there, after a panic in the log.

// diskRetryEvery is how often a conversation a full disk interrupted asks for room.
const diskRetryEvery = 2 * time.Second

// diskFullWhy is why the turn stopped, in the notice under it (domain.InterruptedTurnText).
const diskFullWhy = "the disk was full"

// diskRetry is the timer's message to try again.
type diskRetry struct{}

func (a *conversationActor) holdForDisk(ctx actor.Context, err error) {
	a.rt.publish(DiskFullHold{ConvID: a.id, Err: err})
	if a.llmPID != nil {
		a.finishLLM(ctx)
	}
	if a.toolPID != nil {
		a.finishTool(ctx)
	}
	a.diskHeld = true
	a.rt.log.Warn("the disk is full: the conversation waits for room to come to rest", "conversation", a.id)
	a.scheduleDiskRetry(ctx)
}

// afterFailedStop handles a Stop whose end could not be committed; the work itself was
// cancelled out of band already (apply's cleanup). On a full disk the sub-agents are stopped
// as the Stop would have stopped them, and the conversation holds for room like any turn a
// full disk interrupted. Any other failure restarts the actor from the store, which brings
// the stored state to rest; the command's caller has its answer already.
func (a *conversationActor) afterFailedStop(ctx actor.Context, err error) {
	if !errors.Is(err, persistence.ErrDiskFull) {
		panic(answeredPanic{err})
	}
	for id, pid := range a.subAgents {
		delete(a.subAgents, id) // first, so that its Terminated is not read as a failure
		ctx.Stop(pid)
	}
	a.holdForDisk(ctx, err)
}

func (a *conversationActor) scheduleDiskRetry(ctx actor.Context) {
	if a.diskWait != nil {
		return
	}
	self, root := ctx.Self(), a.rt.system.Root
	a.diskWait = time.AfterFunc(diskRetryEvery, func() { root.Send(self, diskRetry{}) })
}

func (a *conversationActor) retryAfterDiskFull(ctx actor.Context) {
	if a.loadErr != nil || !domain.Busy(a.conv.State) || a.llmPID != nil || a.toolPID != nil || len(a.subAgents) > 0 {
		return
	}
	if a.rt.cfg.Store.Space() != nil {
		a.scheduleDiskRetry(ctx)
		return
	}
	a.applyInternal(ctx, domain.RestoreAfterRestart{Unanswered: domain.UnansweredCalls(a.history), Why: diskFullWhy})
}

// dropWhileHeld drops a result of work while the conversation holds for room, and reports
// whether it did: the worker was stopped (holdForDisk), and the conversation comes to rest
// with the interrupted call answered, never with a result that arrives late. A sub-agent's
// report still takes the sub-agent off the list the coming to rest waits for.
func (a *conversationActor) dropWhileHeld(ctx actor.Context) bool {
	switch msg := ctx.Message().(type) {
	case llmDone, toolDone, retryFired, deadlineFired:
	case subAgentReport:
		if pid, ok := a.subAgents[msg.Outcome.AgentID]; ok {
			ctx.Poison(pid)
			delete(a.subAgents, msg.Outcome.AgentID)
		}
	default:
		return false
	}
	a.rt.log.Debug("dropped a result while the conversation waits for room", "conversation", a.id,
		"message", fmt.Sprintf("%T", ctx.Message()))
	return true
}

// commitFailureText is the notice of a refused commit. A full disk is said in the store's short
// words (the window's banner gives the rest); other failures keep their whole chain.
func commitFailureText(err error) string {
	var full *persistence.DiskFullError
	if errors.As(err, &full) {
		return "Could not save the conversation: " + full.Banner() + "."
	}
	return "Could not save the conversation: " + err.Error()
}
