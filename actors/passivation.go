package actors

import (
	"slices"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/phoenix-desktop/phoenix/domain"
)

// Passivation bounds the memory conversations take over a long session. A conversation actor
// holds its whole history; one that is at rest — not busy in the core's sense (no model
// request, tool, approval, sub-agent or continuation pending) and with no child or timer left —
// is stopped after IdleAfter without a command, or as soon as more than MaxResident actors
// run, least recently used first. The next command for it starts a new actor, which loads the
// conversation from the store exactly as after a restart; the UI never notices, because it
// reads snapshots from the store and follows events, never an actor.
//
// The manager asks the actor whether it is at rest and passivates it only if no command was
// routed to it in between, so a message sent at that moment is never lost: it reaches the
// old actor (which then is not at rest, or has answered before it) or a new one.
type Passivation struct {
	// IdleAfter is how long a conversation at rest stays in memory; negative never
	// passivates on idleness.
	IdleAfter time.Duration
	// MaxResident caps the conversation actors in memory; negative means no cap.
	MaxResident int
}

// DefaultPassivation keeps the conversations of a working session in memory and lets the rest
// go.
var DefaultPassivation = Passivation{IdleAfter: 10 * time.Minute, MaxResident: 24}

// EnvPassivateAfter names the environment variable the app reads IdleAfter from, as a Go
// duration (cmd/phoenix-desktop): for measuring, so that the bench's soak with a window lets
// its conversations rest in seconds.
const EnvPassivateAfter = "PHOENIX_PASSIVATE_AFTER"

func (p Passivation) withDefaults() Passivation {
	if p.IdleAfter == 0 {
		p.IdleAfter = DefaultPassivation.IdleAfter
	}
	if p.MaxResident == 0 {
		p.MaxResident = DefaultPassivation.MaxResident
	}
	return p
}

// tickEvery is how often idleness is checked: often enough that IdleAfter is kept to within a
// fraction of itself.
func (p Passivation) tickEvery() time.Duration {
	return max(p.IdleAfter/4, 50*time.Millisecond)
}

func (m *managerActor) startTicker(ctx actor.Context) {
	p := m.rt.cfg.Passivation
	if p.IdleAfter < 0 {
		return
	}
	stop := make(chan struct{})
	m.stopTicker = stop
	self, root := ctx.Self(), m.rt.system.Root
	go func() {
		t := time.NewTicker(p.tickEvery())
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				root.Send(self, passivateTick{})
			}
		}
	}()
}

// touch records a command routed to a conversation, and asks the least recently used actors
// beyond the cap whether they can go.
func (m *managerActor) touch(ctx actor.Context, id string) {
	m.lastUsed[id] = time.Now()
	m.forwards[id]++
	max := m.rt.cfg.Passivation.MaxResident
	if max < 0 || len(m.convs) <= max {
		return
	}
	ids := make([]string, 0, len(m.convs))
	for cid := range m.convs {
		if cid != id {
			ids = append(ids, cid)
		}
	}
	slices.SortFunc(ids, func(a, b string) int { return m.lastUsed[a].Compare(m.lastUsed[b]) })
	for _, cid := range ids[:len(m.convs)-max] {
		m.query(ctx, cid)
	}
}

// passivateIdle asks every conversation idle for IdleAfter whether it can go.
func (m *managerActor) passivateIdle(ctx actor.Context) {
	idle := m.rt.cfg.Passivation.IdleAfter
	if idle < 0 {
		return
	}
	if m.restPending && len(m.convs) == 0 {
		if f := m.rt.cfg.OnAllRested; f != nil {
			go f()
		}
	}
	m.restPending = false
	for id := range m.convs {
		if time.Since(m.lastUsed[id]) >= idle {
			m.query(ctx, id)
		}
	}
}

func (m *managerActor) query(ctx actor.Context, id string) {
	if pid, ok := m.convs[id]; ok {
		ctx.Request(pid, passivateQuery{Forwards: m.forwards[id]})
	}
}

// onPassivateAnswer stops an actor that is at rest and was sent nothing since it was asked.
func (m *managerActor) onPassivateAnswer(ctx actor.Context, a passivateAnswer) {
	pid, ok := m.convs[a.ID]
	if !ok || !a.AtRest || m.forwards[a.ID] != a.Forwards || !pid.Equal(a.PID) {
		return
	}
	m.forget(a.ID)
	ctx.Stop(pid)
	m.restPending = len(m.convs) == 0
	if m.rt.cfg.passivated != nil {
		m.rt.cfg.passivated(a.ID)
	}
}

// atRest says whether the conversation can be stopped now and loaded again later with no
// difference: nothing runs and nothing waits.
func (a *conversationActor) atRest() bool {
	return a.loadErr == nil && !domain.Busy(a.conv.State) && a.llmPID == nil && a.toolPID == nil &&
		len(a.subAgents) == 0 && len(a.timers) == 0
}
