package actors

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

func (r *Runtime) saveCheckpoint(convID string, cp Checkpoint) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	// A checkpoint holds none of the person's words: it is kept like the agent's own
	// commits (surviving the app's crash), without a flush on the bash round's path.
	return r.cfg.Store.PutAuxUnflushed(convID, checkpointName(cp.ID), b)
}

// checkpointTask is what a tool worker needs to checkpoint its call; nil when the call
// cannot change files.
type checkpointTask struct {
	rt     *Runtime
	conv   domain.Conversation
	msgSeq uint64
	// prev is the conversation's call before this one, until its checkpoint is complete
	// (checkpointCallStarted); nil when there is none.
	prev <-chan struct{}
}

// before snapshots the tree and records the checkpoint; on failure the tool still runs, and
// the person is told that this call has no Undo.
func (t *checkpointTask) before(ctx context.Context, exec domain.ExecID, call domain.ToolCall) (Checkpoint, bool) {
	// The previous call's checkpoint is completed first: its "after" must not see this call
	// (a stopped call may still be ending when the next one starts).
	// The previous call's done is closed only after its checkpoint is complete, so this also
	// waits for that "after" (checkpointAfterPending).
	var err error
	select {
	case <-t.prev: // done, or nil: no call before it
	default:
		if t.prev != nil {
			if t.rt.cfg.checkpointWaited != nil {
				t.rt.cfg.checkpointWaited(t.conv.ID)
			}
			err = waitDone(ctx, t.prev)
		}
	}
	var repo CheckpointRepo
	if err == nil {
		repo, err = t.rt.checkpointRepo(ctx, t.conv)
	}
	var tree string
	if err == nil {
		t.rt.watchCheckpoints(t.conv.ID, repo)
		tree, err = repo.Snapshot(ctx)
	}
	cp := Checkpoint{ID: exec, MsgSeq: t.msgSeq, CallID: call.ID, Tool: call.Name, Before: tree, At: time.Now()}
	if err == nil {
		err = t.rt.saveCheckpoint(t.conv.ID, cp)
	}
	if err != nil {
		if ctx.Err() == nil {
			t.rt.log.Warn("no checkpoint before a tool call", "conversation", t.conv.ID, "error", err)
			t.rt.publish(Notice{ConvID: t.conv.ID, Level: NoticeWarning,
				Text: "No checkpoint was taken before this " + call.Name + " call, so it cannot be undone: " + err.Error()})
		}
		return Checkpoint{}, false
	}
	return cp, true
}

// afterTimeout bounds the snapshot after a call, which runs even when the call was stopped
// (a stopped command may have changed files before it died).
const afterTimeout = 2 * time.Minute

func (t *checkpointTask) after(cp Checkpoint) {
	ctx, cancel := context.WithTimeout(context.Background(), afterTimeout)
	defer cancel()
	repo, err := t.rt.checkpointRepo(ctx, t.conv)
	if err == nil {
		cp.After, err = repo.Snapshot(ctx)
	}
	if err == nil {
		// The same id (nothing changed, which the change detector tells without git)
		// needs no git either.
		cp.Files, err = repo.Changes(ctx, cp.Before, cp.After)
	}
	if err == nil {
		err = t.rt.saveCheckpoint(t.conv.ID, cp)
	}
	if errors.Is(err, checkpoint.ErrClosed) {
		// The conversation is being deleted with its checkpoints: nothing to complete.
		return
	}
	if err != nil {
		t.rt.log.Warn("could not complete a checkpoint; Undo compares with the current files instead", "conversation", t.conv.ID, "error", err)
		return
	}
	t.rt.publish(CheckpointSaved{ConvID: t.conv.ID, Checkpoint: cp})
}

// checkpointTaskFor returns the task for a tool call, or nil when it takes no checkpoint.
func (a *conversationActor) checkpointTaskFor(e domain.ExecuteTool) *checkpointTask {
	if !takesCheckpoint(e) {
		return nil
	}
	var seq uint64
	for i := len(a.history) - 1; i >= 0; i-- {
		if a.history[i].Kind == domain.KindUser {
			seq = a.history[i].Seq
			break
		}
	}
	return &checkpointTask{rt: a.rt, conv: a.conv, msgSeq: seq}
}
