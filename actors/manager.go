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
	// convs maps a user conversation's id to its actor. Only this actor touches it.
	convs map[string]*actor.PID
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
	case cmdCreate:
		m.create(ctx, msg)
	case cmdEvent:
		m.forward(ctx, msg.ID)
	case cmdArchive:
		m.forward(ctx, msg.ID)
	case cmdQueue:
		m.forward(ctx, msg.ID)
	case *actor.Terminated:
		for id, pid := range m.convs {
			if pid.Equal(msg.Who) {
				delete(m.convs, id)
			}
		}
	case cmdStopAll:
		for id, pid := range m.convs {
			if err := ctx.StopFuture(pid).Wait(); err != nil {
				m.rt.log.Warn("conversation did not stop in time", "conversation", id, "error", err)
			}
			delete(m.convs, id)
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
	ctx.Forward(pid)
}

func (m *managerActor) create(ctx actor.Context, msg cmdCreate) {
	conv, err := m.rt.cfg.Store.Create(msg.Conv)
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
