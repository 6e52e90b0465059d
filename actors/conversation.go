package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// conversationActor is the single writer of one conversation (ARCHITECTURE rule 1). Its
// receive turns every message into a domain event, asks domain.Transition what to do,
// commits the result, runs the effects and publishes what changed. It never waits on a model
// or a tool: those run in child actors that report back with the execution id they were
// given, so a UserCancel is handled the moment it arrives (REQ-BED-005).
//
// Every field is touched only on the actor's goroutine, except the cancel functions, which
// are plain context.CancelFuncs (safe to call from anywhere).
type conversationActor struct {
	rt *Runtime
	id string

	conv    domain.Conversation
	history []domain.Message
	loadErr error

	// The running work, keyed by the execution id the core handed out.
	llmPID     *actor.PID
	llmExec    domain.ExecID
	llmCancel  context.CancelFunc
	toolPID    *actor.PID
	toolExec   domain.ExecID
	toolCancel context.CancelFunc
	subAgents  map[string]*actor.PID
	timers     map[domain.ExecID]*time.Timer

	// gate is the Stop fast path this actor shares with Runtime.Cancel; it is checked before
	// every message (REQ-BED-005), and the running work is bound to it.
	gate *stopGate

	// stopping is set once the actor is being stopped (app shutdown, or the manager giving
	// up on it). From then on it starts nothing and commits nothing: protoactor still delivers
	// user messages while children stop, and a late tool result must not start the next
	// tool. What was running is answered by restart recovery instead.
	stopping bool

	// checkpointsWarmed is set once this actor has had its checkpoint repository warmed (or
	// found it open or warming): later requests do not ask again, so the runtime's
	// checkpoint lock is not taken on every request (warmCheckpointsFor).
	checkpointsWarmed bool
	// compactTrigger is PreCompact's trigger for the next continuation summary: "manual"
	// after Wrap up now, "auto" otherwise.
	compactTrigger string

	// tempDir is the private TMPDIR of this conversation's sandboxed commands, created on
	// first use and removed when the actor stops.
	tempDir string

	// diskWait retries bringing the conversation to rest after a full disk refused a commit
	// (holdForDisk); nil when none is pending.
	diskWait *time.Timer
	// diskHeld is set while the conversation holds for room (holdForDisk): the results of
	// the work it stopped are dropped, so nothing the person stopped, or that ran before the
	// refused commit, goes on when the disk has room; only coming to rest does.
	diskHeld bool

	// mcp is this conversation's MCP servers, made on the first request that offers tools
	// (nil when MCP is off). Its servers die with the actor (cleanup): closing or passivating
	// the conversation, or quitting, kills their process trees.
	mcp *mcp.Set
	// lsp is the conversation's language servers, made on the first edit (lsp.go).
	lsp *lsp.Set
}

func conversationProps(rt *Runtime, id string) *actor.Props {
	opts := []actor.PropsOption{actor.WithSupervisor(workerSupervisor())}
	if rt.warm != nil {
		opts = append(opts, actor.WithDispatcher(rt.warm))
	}
	if rt.cfg.mailbox != nil {
		opts = append(opts, actor.WithMailbox(rt.cfg.mailbox))
	}
	return actor.PropsFromProducer(func() actor.Actor {
		return &conversationActor{rt: rt, id: id, gate: rt.gate(id)}
	}, opts...)
}

// workerSupervisor stops a child that failed instead of restarting it: a worker's own recover
// turns a panic of the tool or the client into a result, so reaching the supervisor means the
// worker itself is broken and its result will never come. The conversation notices the child
// stopping (onChildStopped) and answers the execution itself, so it cannot wait forever.
func workerSupervisor() actor.SupervisorStrategy {
	return actor.NewOneForOneStrategy(0, time.Second, func(reason any) actor.Directive {
		return actor.StopDirective
	})
}

func (a *conversationActor) Receive(ctx actor.Context) {
	if a.stopping {
		switch ctx.Message().(type) {
		case cmdEvent, cmdStop, cmdRestore, cmdLoaded:
			ctx.Respond(reply{Err: ErrStopped})
		case cmdQueue:
			ctx.Respond(replyQueue{Err: ErrStopped})
		}
		return
	}
	defer a.reportPanic(ctx)
	switch ctx.Message().(type) {
	case *actor.Started, *actor.Stopping, *actor.Restarting, *actor.Stopped:
	default:
		// REQ-BED-005: a pending Stop goes before whatever this message is — a tool result
		// queued ahead of it must not start the next tool.
		a.applyPendingStop(ctx)
	}
	if a.diskHeld && a.dropWhileHeld(ctx) {
		return
	}
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		a.start(ctx)
	case *actor.Restarting:
		// The old instance still receives the Terminated messages of the children the
		// restart stops; it must not act on them (a new child would stall the restart).
		a.stopping = true
		a.cleanup()
		a.rt.publish(Notice{ConvID: a.id, Level: NoticeWarning,
			Text: "The conversation hit an internal error and was reloaded from disk; everything committed is kept, and what was running was stopped."})
	case *actor.Stopping:
		a.stopping = true
		a.cleanup()
		a.restSubAgentOnStop()
		// Out of memory, the conversation starts no tool: its inotify instance goes (its
		// next checkpoint starts one again).
		a.rt.unwatchCheckpoints(a.id)
	case cmdEvent:
		if a.loadErr != nil {
			// Answer, then stop, so that the next command loads the conversation afresh.
			ctx.Respond(reply{Err: a.loadErr})
			ctx.Stop(ctx.Self())
			return
		}
		if msg.Retry {
			ev, err := a.retryEvent()
			if err != nil {
				ctx.Respond(reply{Err: err})
				return
			}
			msg.Event = ev
		}
		if err := a.refuseWhileRestoring(msg.Event); err != nil {
			ctx.Respond(reply{Err: err})
			return
		}
		if _, manual := msg.Event.(domain.UserTriggerContinuation); manual {
			a.compactTrigger = "manual"
		}
		err := a.apply(ctx, msg.Event)
		ctx.Respond(reply{Err: err})
		var commitErr *commitError
		if _, isCancel := msg.Event.(domain.UserCancel); isCancel && errors.As(err, &commitErr) {
			// The work was aborted but its end could not be saved.
			a.afterFailedStop(ctx, err)
		}
	case cmdStop:
		if a.loadErr != nil {
			ctx.Respond(reply{Err: a.loadErr})
			ctx.Stop(ctx.Self())
			return
		}
		// The Stop was applied by applyPendingStop above, or by an earlier message that
		// overtook this one; either way the gate holds its outcome.
		err, ok := a.gate.outcome()
		if !ok {
			err = a.apply(ctx, domain.UserCancel{})
		}
		ctx.Respond(reply{Err: err})
	case cmdArchive:
		ctx.Respond(reply{Err: a.archive(msg.Archived)})
	case cmdRestore:
		ctx.Respond(reply{Err: a.onRestore(ctx, msg.Begin)})
	case cmdQueue:
		q, err := a.onQueue(ctx, msg.Op)
		ctx.Respond(replyQueue{Queue: q, Err: err})
	case cmdLoaded:
		// Started ran first: the conversation is loaded and its MCP servers are starting.
		ctx.Respond(reply{Err: a.loadErr})
	case passivateQuery:
		ctx.Respond(passivateAnswer{ID: a.id, PID: ctx.Self(), Forwards: msg.Forwards, AtRest: a.atRest()})
	case startTask:
		if err := a.apply(ctx, domain.UserMessage{Text: msg.Task}); err != nil {
			// Stopping makes the parent report this sub-agent as failed (onChildStopped)
			// instead of waiting for its deadline.
			a.rt.log.Error("sub-agent could not start its task", "conversation", a.id, "error", err)
			ctx.Stop(ctx.Self())
		}
	case llmDone:
		if msg.Exec == a.llmExec {
			a.finishLLM(ctx)
		}
		a.onLLMDone(ctx, msg)
	case toolDone:
		if msg.Exec == a.toolExec {
			a.finishTool(ctx)
		}
		a.applyInternal(ctx, domain.ToolComplete{Exec: msg.Exec, Result: msg.Result})
	case retryFired:
		delete(a.timers, msg.Exec)
		a.applyInternal(ctx, domain.RetryTimeout{Exec: msg.Exec})
	case diskRetry:
		a.diskWait = nil
		a.retryAfterDiskFull(ctx)
	case deadlineFired:
		delete(a.timers, msg.Exec)
		a.applyInternal(ctx, domain.SubAgentDeadline{Exec: msg.Exec})
	case subAgentReport:
		if pid, ok := a.subAgents[msg.Outcome.AgentID]; ok {
			ctx.Poison(pid)
			delete(a.subAgents, msg.Outcome.AgentID)
		}
		a.applyInternal(ctx, domain.SubAgentFinished{Exec: msg.Exec, Outcome: msg.Outcome})
	case *actor.Terminated:
		a.onChildStopped(ctx, msg.Who)
	}
}

// applyPendingStop applies the Stop the gate holds, if the actor has not yet. A Stop whose
// end cannot be saved is afterFailedStop's (the work itself was cancelled out-of-band
// already); a command being handled is answered first, so its caller is not left waiting.
func (a *conversationActor) applyPendingStop(ctx actor.Context) {
	if a.loadErr != nil || !a.gate.pending() {
		return
	}
	a.rt.log.Debug("applying Stop ahead of the queued message", "conversation", a.id,
		"message", fmt.Sprintf("%T", ctx.Message()), "state", a.conv.State.Kind())
	err := a.apply(ctx, domain.UserCancel{})
	a.gate.finish(err)
	var commitErr *commitError
	if errors.As(err, &commitErr) {
		switch ctx.Message().(type) {
		case cmdEvent, cmdArchive, cmdStop:
			ctx.Respond(reply{Err: err})
		}
		a.afterFailedStop(ctx, err)
	}
}

// reportPanic logs a panic with its stack (protoactor logs restarts below our level), answers
// a waiting command so its caller is not left hanging, and re-panics so the supervisor
// restarts the actor from the store.
func (a *conversationActor) reportPanic(ctx actor.Context) {
	p := recover()
	if p == nil {
		return
	}
	a.rt.log.Error("conversation actor panicked; restarting it from the store",
		"conversation", a.id, "message", fmt.Sprintf("%T", ctx.Message()), "panic", p, "stack", string(debug.Stack()))
	if _, answered := p.(answeredPanic); !answered {
		switch ctx.Message().(type) {
		case cmdEvent, cmdArchive, cmdQueue:
			ctx.Respond(reply{Err: fmt.Errorf("internal error in conversation %s (%v); it was reloaded from disk, try again", a.id, p)})
		}
	}
	panic(p)
}

// answeredPanic restarts the actor after the command's caller already has its answer.
type answeredPanic struct{ err error }

func (p answeredPanic) String() string { return p.err.Error() }

// finishLLM and finishTool stop a worker whose result has arrived: a finished worker holds
// the request's history and must not outlive it.
func (a *conversationActor) finishLLM(ctx actor.Context) {
	a.gate.unbind(a.llmExec)
	a.llmCancel()
	ctx.Stop(a.llmPID)
	a.llmPID, a.llmExec, a.llmCancel = nil, 0, nil
}

func (a *conversationActor) finishTool(ctx actor.Context) {
	a.gate.unbind(a.toolExec)
	a.toolCancel()
	ctx.Stop(a.toolPID)
	a.toolPID, a.toolExec, a.toolCancel = nil, 0, nil
}

// archive hides the conversation from the list, or shows it again. It runs here, in the
// conversation's own actor, so the StateChanged it publishes is ordered with every other.
func (a *conversationActor) archive(archived bool) error {
	if a.loadErr != nil {
		return a.loadErr
	}
	if err := a.rt.cfg.Store.SetArchived(a.id, archived); err != nil {
		return fmt.Errorf("archive conversation %s: %w", a.id, err)
	}
	a.conv.Archived = archived
	a.rt.publish(StateChanged{Conv: a.conv, At: time.Now()})
	return nil
}

// restSubAgentOnStop records a sub-agent that is stopped while it works (its parent was
// cancelled, restarted or shut down) as failed, so its view does not show it running for the
// rest of the session. Its parent has already moved on; nothing else is started.
func (a *conversationActor) restSubAgentOnStop() {
	if a.loadErr != nil || !a.conv.IsSubAgent() || !domain.Busy(a.conv.State) {
		return
	}
	next, effects, err := domain.Transition(a.conv, domain.RestoreAfterRestart{Unanswered: domain.UnansweredCalls(a.history)})
	if err != nil || len(effects) == 0 {
		return
	}
	stamped, msgs, err := a.rt.cfg.Store.Commit(next, effects[0].(domain.Persist).Messages)
	if err != nil {
		a.rt.log.Warn("could not record a stopped sub-agent; the next start's recovery will", "conversation", a.id, "error", err)
		return
	}
	a.conv = stamped
	for _, m := range msgs {
		a.rt.publish(MessageCommitted{ConvID: a.id, Message: m})
	}
	a.rt.publish(StateChanged{Conv: a.conv, At: time.Now()})
}

// start loads the conversation. After a restart caused by a panic the stored state may be
// busy while no child runs any more; such a conversation is brought to rest exactly as after
// an app restart, so it can never be stuck.
func (a *conversationActor) start(ctx actor.Context) {
	a.subAgents = map[string]*actor.PID{}
	a.timers = map[domain.ExecID]*time.Timer{}
	conv, msgs, err := a.rt.cfg.Store.Load(a.id)
	if err != nil {
		a.loadErr = fmt.Errorf("load conversation %s: %w", a.id, err)
		a.rt.log.Error("conversation could not be loaded", "conversation", a.id, "error", err)
		return
	}
	a.conv, a.history, a.loadErr = conv, msgs, nil
	if domain.Busy(conv.State) {
		a.applyInternal(ctx, domain.RestoreAfterRestart{Unanswered: domain.UnansweredCalls(a.history)})
	}
	a.startMCP()
}

func (a *conversationActor) cleanup() {
	if a.diskWait != nil {
		a.diskWait.Stop()
		a.diskWait = nil
	}
	if a.llmCancel != nil {
		a.gate.unbind(a.llmExec)
		a.llmCancel()
	}
	if a.toolCancel != nil {
		a.gate.unbind(a.toolExec)
		a.toolCancel()
	}
	for exec, t := range a.timers {
		t.Stop()
		delete(a.timers, exec)
	}
	if a.mcp != nil {
		// Kills the servers' trees (the cancels above end any call or start first); before
		// the temp dir goes, because a Restricted server runs in it.
		a.mcp.Close()
		a.rt.forgetMCPSet(a.id, a.mcp)
		a.mcp = nil
	}
	a.closeLanguageServers()
	if a.rt.cfg.HostProxy != nil {
		// After the servers, which may use the socket: the next run listens again.
		a.rt.cfg.HostProxy.Forget(a.id)
	}
	if a.tempDir != "" {
		if err := os.RemoveAll(a.tempDir); err != nil {
			a.rt.log.Warn("could not remove the conversation's temporary directory", "dir", a.tempDir, "error", err)
		}
		a.tempDir = ""
	}
}

// applyInternal applies an event that comes from the runtime itself. Such an event cannot be
// rejected for a reason the person should see; a failure to commit is logged and left to the
// supervisor (the panic restarts the actor, which reloads the last committed state).
func (a *conversationActor) applyInternal(ctx actor.Context, ev domain.Event) {
	err := a.apply(ctx, ev)
	if err == nil {
		return
	}
	var commitErr *commitError
	if errors.As(err, &commitErr) && errors.Is(err, persistence.ErrDiskFull) {
		a.holdForDisk(ctx, err)
		return
	}
	if errors.As(err, &commitErr) {
		panic(err)
	}
	a.rt.log.Warn("event rejected", "conversation", a.id, "event", fmt.Sprintf("%T", ev), "error", err)
}

type commitError struct{ err error }

func (e *commitError) Error() string { return e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// apply is receive → Transition → commit → effects → publish. The commit comes before any
// effect (REQ-BED-007): if it fails, nothing is started and the caller learns why.
func (a *conversationActor) apply(ctx actor.Context, ev domain.Event) error {
	if a.loadErr != nil {
		return a.loadErr
	}
	next, effects, err := domain.Transition(a.conv, ev)
	if err != nil {
		if d, ok := ev.(domain.ModeDecision); ok && errors.Is(err, domain.ErrNoPendingApproval) {
			// Orchestration-design item 8: a late click leaves a trace for whoever debugs
			// a report.
			a.rt.log.Debug("approval decision for a request that is no longer pending", "conversation", a.id,
				"exec", uint64(d.Exec), "approve", d.Approve, "state", a.conv.State.Kind())
		}
		return err
	}
	if len(effects) == 0 {
		if exec, ok := domain.ExecOf(ev); ok {
			// Orchestration-design item 2 (and 16–18): a stale result is dropped, with a trace.
			current, _ := domain.CurrentExec(a.conv.State)
			a.rt.log.Debug("dropped a stale result", "conversation", a.id, "exec", uint64(exec),
				"kind", fmt.Sprintf("%T", ev), "state", a.conv.State.Kind(), "current_exec", uint64(current))
		}
		return nil
	}
	persist, ok := effects[0].(domain.Persist)
	if !ok {
		return fmt.Errorf("internal error: transition for %T did not start with a commit", ev)
	}
	stamped, msgs, err := a.rt.cfg.Store.Commit(next, persist.Messages)
	if err != nil {
		if _, isCancel := ev.(domain.UserCancel); isCancel {
			// Stop must stop even when the disk fails: abort what runs, then let the
			// restart bring the stored state to rest.
			a.cleanup()
		}
		a.rt.publish(Notice{ConvID: a.id, Level: NoticeError, Text: commitFailureText(err)})
		return &commitError{fmt.Errorf("save conversation %s: %w", a.id, err)}
	}
	at := time.Now()
	was := a.conv.State
	a.conv = stamped
	if a.diskHeld && !domain.Busy(a.conv.State) {
		// At rest (by the retry, or a Stop the disk had room for): the work dropped while
		// it held is over, and the next turn's results count again.
		a.diskHeld = false
	}
	// startLLM hands workers a clipped slice, so appending here never writes into memory a
	// worker reads.
	a.history = append(a.history, msgs...)
	// Publish before running the effects, so that a state is announced before anything it
	// starts can report (a first text delta, an approval request, a sub-agent).
	for _, m := range msgs {
		a.rt.publish(MessageCommitted{ConvID: a.id, Message: m})
	}
	a.rt.publish(StateChanged{Conv: a.conv, At: at})
	for _, eff := range effects[1:] {
		a.run(ctx, eff)
	}
	a.stopStaleTimers()
	a.afterTransition(ctx, ev, was)
	a.turnHooks(was)
	return nil
}

// stopStaleTimers disarms the retry and deadline timers of executions that are over.
func (a *conversationActor) stopStaleTimers() {
	current, busy := domain.CurrentExec(a.conv.State)
	for exec, t := range a.timers {
		if !busy || exec != current {
			t.Stop()
			delete(a.timers, exec)
		}
	}
}
