package actors

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// managerActor is the root of the supervision tree. It creates conversations, restores them
// lazily on first use, and routes commands to their actors. It supervises them one-for-one:
// a conversation actor that panics is restarted and reloads from the store; the others never
// notice.
type managerActor struct {
	rt *Runtime
	// convs maps a user conversation's id to its actor. Only this actor touches it (as every
	// field below).
	convs map[string]*actor.PID
	// deleting holds the conversations being deleted: no command reaches them, and none
	// brings their actor back.
	deleting map[string]bool
	// lastUsed and forwards are when a command was last routed to a conversation and how
	// many were, for passivation (passivation.go).
	lastUsed map[string]time.Time
	forwards map[string]uint64
	// stopTicker ends the passivation ticker when the manager stops.
	stopTicker chan struct{}
	// restPending says the last conversation in memory was unloaded since the last idle
	// check (Config.OnAllRested).
	restPending bool
}

func newManager(rt *Runtime) *managerActor {
	return &managerActor{rt: rt, convs: map[string]*actor.PID{}, deleting: map[string]bool{},
		lastUsed: map[string]time.Time{}, forwards: map[string]uint64{}}
}

// conversationSupervisor restarts a failed conversation actor a few times; an actor that
// keeps failing is stopped, and the next command restores it afresh.
func conversationSupervisor() actor.SupervisorStrategy {
	return actor.NewOneForOneStrategy(5, 10*time.Second, func(reason any) actor.Directive {
		return actor.RestartDirective
	})
}

func (m *managerActor) Receive(ctx actor.Context) {
	switch msg := ctx.Message().(type) {
	case *actor.Started:
		m.startTicker(ctx)
	case *actor.Stopping, *actor.Restarting:
		// A restart makes a new manager whose Started starts its own ticker: this one's
		// must end here, or it would keep ticking beside it.
		if m.stopTicker != nil {
			close(m.stopTicker)
			m.stopTicker = nil
		}
	case cmdDelete:
		m.delete(ctx, msg.ID)
	case deleteDone:
		delete(m.deleting, msg.ID)
	case cmdResident:
		ctx.Respond(len(m.convs))
	case passivateTick:
		m.passivateIdle(ctx)
	case passivateAnswer:
		m.onPassivateAnswer(ctx, msg)
	case cmdCreate:
		m.create(ctx, msg)
	case cmdEvent:
		m.forward(ctx, msg.ID)
	case cmdArchive:
		m.forward(ctx, msg.ID)
	case cmdStop:
		m.forward(ctx, msg.ID)
	case cmdQueue:
		m.forward(ctx, msg.ID)
	case cmdRestore:
		m.forward(ctx, msg.ID)
	case cmdLoaded:
		m.forward(ctx, msg.ID)
	case *actor.Terminated:
		for id, pid := range m.convs {
			if pid.Equal(msg.Who) {
				m.forget(id)
			}
		}
	case cmdStopAll:
		for id, pid := range m.convs {
			if err := ctx.StopFuture(pid).Wait(); err != nil {
				m.rt.log.Warn("conversation did not stop in time", "conversation", id, "error", err)
			}
			m.forget(id)
		}
		ctx.Respond(reply{})
	}
}

// forward hands a command to its conversation's actor, which answers the caller itself.
func (m *managerActor) forward(ctx actor.Context, id string) {
	pid, err := m.actorFor(ctx, id)
	if err != nil {
		ctx.Respond(reply{Err: err})
		return
	}
	m.touch(ctx, id)
	ctx.Forward(pid)
}

// forget drops what the manager holds of a conversation whose actor is gone.
func (m *managerActor) forget(id string) {
	delete(m.convs, id)
	delete(m.lastUsed, id)
	delete(m.forwards, id)
}

// delete stops a conversation's actor, if it runs, and then deletes it from the store and the
// search index, off the manager's goroutine; the caller's reply is sent when it is gone.
func (m *managerActor) delete(ctx actor.Context, id string) {
	if m.deleting[id] {
		ctx.Respond(reply{Err: fmt.Errorf("conversation %s is already being deleted", id)})
		return
	}
	conv, err := m.rt.cfg.Store.Get(id)
	if err != nil && !errors.Is(err, persistence.ErrCorrupt) {
		if errors.Is(err, persistence.ErrNotFound) {
			err = fmt.Errorf("conversation %s does not exist (see phoenix-desktop list): %w", id, err)
		}
		ctx.Respond(reply{Err: fmt.Errorf("delete conversation %s: %w", id, err)})
		return
	}
	if err == nil && conv.IsSubAgent() {
		ctx.Respond(reply{Err: fmt.Errorf("conversation %s is a sub-agent: it is deleted with the conversation that started it (%s)", id, conv.ParentID)})
		return
	}
	m.deleting[id] = true
	pid := m.convs[id]
	m.forget(id)
	rt, self, caller := m.rt, ctx.Self(), ctx.Sender()
	rt.background.Add(1)
	go func() {
		defer rt.background.Done()
		if pid != nil {
			// Stopping the actor aborts its model request, kills its tool's process group
			// and stops its sub-agents (its children) before anything is deleted.
			if err := rt.system.Root.StopFuture(pid).Wait(); err != nil {
				rt.log.Warn("the conversation did not stop in time; deleting it anyway", "conversation", id, "error", err)
			}
		}
		rt.releaseCheckpoints(id)
		rt.hookBaselined.Delete(id)
		if conv.ID != "" {
			rt.forgetRemovedWorktree(conv)
		}
		err := rt.cfg.Store.Delete(id)
		rt.checkpointsReleased(id)
		if err == nil && rt.cfg.Search != nil {
			if serr := rt.cfg.Search.Remove(id); serr != nil {
				// The index drops it on its next catch-up with the store anyway.
				rt.log.Warn("could not remove a deleted conversation from the search index", "conversation", id, "error", serr)
			}
		}
		rt.system.Root.Send(self, deleteDone{ID: id})
		if err != nil {
			err = fmt.Errorf("delete conversation %s: %w", id, err)
		} else {
			rt.publish(ConversationDeleted{ConvID: id})
		}
		if caller != nil {
			rt.system.Root.Send(caller, reply{Err: err})
		}
	}()
}

func (m *managerActor) create(ctx actor.Context, msg cmdCreate) {
	conv, err := m.rt.storeNew(msg)
	if err != nil {
		ctx.Respond(replyConv{Err: fmt.Errorf("save the new conversation: %w", err)})
		return
	}
	m.spawn(ctx, conv.ID)
	m.rt.publish(ConversationCreated{Conv: conv})
	ctx.Respond(replyConv{Conv: conv})
}

// actorFor returns the actor of a user conversation, restoring it from the store if it is
// not running. Sub-agents are not routed here: they live under their parent's actor.
func (m *managerActor) actorFor(ctx actor.Context, id string) (*actor.PID, error) {
	if pid, ok := m.convs[id]; ok {
		return pid, nil
	}
	if m.deleting[id] {
		return nil, fmt.Errorf("conversation %s is being deleted", id)
	}
	conv, err := m.rt.cfg.Store.Get(id)
	if err != nil {
		if errors.Is(err, persistence.ErrNotFound) {
			return nil, fmt.Errorf("conversation %s does not exist: %w", id, err)
		}
		return nil, fmt.Errorf("open conversation %s: %w", id, err)
	}
	if conv.IsSubAgent() {
		return nil, fmt.Errorf("conversation %s is a sub-agent: it is read-only", id)
	}
	return m.spawn(ctx, id), nil
}

func (m *managerActor) spawn(ctx actor.Context, id string) *actor.PID {
	pid := ctx.Spawn(conversationProps(m.rt, id))
	ctx.Watch(pid)
	m.convs[id] = pid
	m.touch(ctx, id)
	return pid
}

// newID returns a conversation id that sorts by creation time and cannot collide.
func newID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on Linux; if it ever does, the clock alone still gives a
		// usable id for a single-user app.
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return strconv.FormatInt(time.Now().UnixMilli(), 36) + "-" + hex.EncodeToString(b[:])
}
