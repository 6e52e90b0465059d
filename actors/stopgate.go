package actors

import (
	"context"
	"errors"
	"sync"

	"github.com/phoenix-desktop/phoenix/domain"
)

// ErrAlreadyStopping answers a Stop while an earlier Stop of the same conversation is still
// being handled (orchestration-design item 14, "interrupt_in_progress").
var ErrAlreadyStopping = errors.New("already stopping: the previous Stop is still being handled")

// stopGate is the fast path of Stop (REQ-BED-005: "process cancel with higher priority than
// operation completion"; orchestration-design items 12–14). A Stop does not wait its turn in
// the conversation's mailbox behind results that are already queued:
//
//   - Runtime.Cancel opens the gate (begin) before it sends anything, and at once cancels the
//     model request and the tool that are bound to it, so the work stops even while the actor
//     is busy with something else (out-of-band, item 12–13);
//   - the conversation actor looks at the gate before every message it handles and applies the
//     Stop first when one is pending (applyPendingStop), so a queued tool result finds the
//     conversation at rest and is dropped as stale instead of starting the next tool;
//   - work started while a Stop is pending is cancelled the moment it is bound, before its
//     worker runs (the interrupt-during-start race, orchestration C-038/039).
//
// The gate never touches the conversation itself: only the actor changes it, through
// domain.Transition (single writer). Runtime.Cancel and the actor share it; mu guards every
// field.
type stopGate struct {
	mu sync.Mutex
	// requested is true from begin to end: one Stop is in flight. applied says the actor has
	// applied it, with outcome result.
	requested, applied bool
	result             error
	// running holds the cancel functions of the model request and the tool in flight, by
	// execution id.
	running map[domain.ExecID]context.CancelFunc
	// restoring is true while an Undo or Rewind writes the working tree (restore.go). It
	// lives here, beside the actor, so that an actor reloaded mid-restore (a restart, a
	// passivation) still refuses messages until the restore ends.
	restoring bool
}

func newStopGate() *stopGate {
	return &stopGate{running: map[domain.ExecID]context.CancelFunc{}}
}

// begin opens the gate for one Stop and cancels what runs. It returns false when a Stop is
// already in flight.
func (g *stopGate) begin() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.requested {
		return false
	}
	g.requested, g.applied, g.result = true, false, nil
	for _, cancel := range g.running {
		cancel()
	}
	return true
}

// pending reports a Stop that the actor has yet to apply.
func (g *stopGate) pending() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.requested && !g.applied
}

// finish records the outcome of applying the Stop.
func (g *stopGate) finish(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.applied, g.result = true, err
}

// outcome is the recorded outcome; ok is false when no Stop was applied.
func (g *stopGate) outcome() (err error, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.result, g.requested && g.applied
}

// end closes the gate once the Stop's caller has its answer.
func (g *stopGate) end() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.requested, g.applied, g.result = false, false, nil
}

// bind registers the cancel function of work being started; if a Stop is pending, the work
// is cancelled at once, before it runs.
func (g *stopGate) bind(exec domain.ExecID, cancel context.CancelFunc) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running[exec] = cancel
	if g.requested && !g.applied {
		cancel()
	}
}

// unbind forgets finished work.
func (g *stopGate) unbind(exec domain.ExecID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.running, exec)
}
