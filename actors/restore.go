package actors

import (
	"errors"
	"fmt"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/phoenix-desktop/phoenix/domain"
)

// ErrRestoring refuses a message while an Undo or Rewind is writing the working tree: the
// turn would start on a tree that is half restored.
var ErrRestoring = errors.New("files are being restored (Undo or Rewind): send again when it has finished")

// A restore goes through the conversation actor, like every other change of a conversation:
// Runtime.ApplyRestore asks the actor to begin (cmdRestore{Begin: true}), which it grants
// only at rest and marks on the conversation's gate; from then on the actor refuses every
// message of the person (refuseWhileRestoring) until ApplyRestore ends it, whatever happened.
// Checking "at rest" once and then restoring on another goroutine let a message start a turn
// while git was still writing the tree.

// onRestore begins or ends a restore. At the end, a message queued meanwhile goes, as it
// would have had no restore held it.
func (a *conversationActor) onRestore(ctx actor.Context, begin bool) error {
	if !begin {
		a.gate.mu.Lock()
		a.gate.restoring = false
		a.gate.mu.Unlock()
		if _, idle := a.conv.State.(domain.Idle); idle && a.loadErr == nil && !a.conv.IsSubAgent() {
			if q, err := loadQueue(a.rt.cfg.Store, a.id); err == nil && q.Held == "" && len(q.Items) > 0 {
				a.sendNext(ctx, q)
			}
		}
		return nil
	}
	if a.loadErr != nil {
		return a.loadErr
	}
	if domain.Busy(a.conv.State) {
		return fmt.Errorf("restore files: %w: stop it first", domain.ErrAgentBusy)
	}
	a.gate.mu.Lock()
	defer a.gate.mu.Unlock()
	if a.gate.restoring {
		return fmt.Errorf("restore files: %w", ErrRestoring)
	}
	a.gate.restoring = true
	return nil
}

// refuseWhileRestoring refuses an event of the person while a restore runs. Stop (nothing to
// stop at rest, answered by the core) and the restore's own notice to the agent pass.
func (a *conversationActor) refuseWhileRestoring(ev domain.Event) error {
	switch ev.(type) {
	case domain.UserCancel, domain.UserRestoredFiles:
		return nil
	}
	if a.restoring() {
		return ErrRestoring
	}
	return nil
}

func (a *conversationActor) restoring() bool {
	a.gate.mu.Lock()
	defer a.gate.mu.Unlock()
	return a.gate.restoring
}
