package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// Checkpoints: before each tool call that can change files (patch, bash and MCP tools in
// Project or Unrestricted mode; in Restricted mode nothing can change, so none is taken) the tool's worker snapshots
// the working tree into the conversation's shadow repository (package checkpoint), and after
// the call snapshots it again and records which files the call changed. The records live in
// the store (aux "ckpt/<exec>"), written before the tool runs and completed after, so a
// crash during the call still leaves the checkpoint to go back to. The completion runs once
// the call's result is handed on, off the round's critical path; the next checkpoint and
// every reader wait for it (checkpointAfterPending). While nothing in the tree changes, the
// repository's change detector answers both snapshots without git. Undo restores the files
// one call changed; Rewind restores the whole tree as it was before a message's turn. Both
// keep what the person changed themselves unless told to overwrite it, record the tree first
// so that they can be undone (checkpoints_yours.go), run on the caller's goroutine at rest,
// never in a mailbox, and tell the agent what was restored (domain.UserRestoredFiles).

// Checkpoint is the working tree before (and after) one tool call.
type Checkpoint struct {
	// ID is the tool call's execution id: unique in the conversation, increasing.
	ID domain.ExecID `json:"id"`
	// MsgSeq is the sequence number of the user message whose turn made the call.
	MsgSeq uint64 `json:"msg_seq"`
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	// Before and After are snapshot ids; After is empty while the call runs, and stays empty
	// if the app stopped during it.
	Before string `json:"before"`
	After  string `json:"after,omitempty"`
	// Files are what the call changed (Before → After).
	Files []checkpoint.Change `json:"files,omitempty"`
	At    time.Time           `json:"at"`
}

// Complete reports whether the call finished and its changes are known.
func (c Checkpoint) Complete() bool { return c.After != "" }

// ChangedNothing reports whether the call finished without changing a file: there is
// nothing to undo. The checkpoint is kept all the same, because its Before is the tree
// "Rewind to here" goes back to when it is the first of its message's turn.
func (c Checkpoint) ChangedNothing() bool { return c.Complete() && len(c.Files) == 0 }

// CheckpointSaved announces a checkpoint once its call has finished.
type CheckpointSaved struct {
	ConvID     string
	Checkpoint Checkpoint
}

func (e CheckpointSaved) Conversation() string { return e.ConvID }

// FileChange is one file a restore changes.
type FileChange = checkpoint.Change

// ErrRestoreConflict rejects a restore that would overwrite files changed after the
// checkpoint, until the person confirms.
var ErrRestoreConflict = errors.New("files changed after the checkpoint")

// ErrNoCheckpoint rejects an Undo or Rewind that has no checkpoint to go back to.
var ErrNoCheckpoint = errors.New("no checkpoint")

const auxCheckpointPrefix = "ckpt/"

func checkpointName(id domain.ExecID) string {
	return fmt.Sprintf("%s%020d", auxCheckpointPrefix, id)
}

// takesCheckpoint says whether a tool call can change files: patch, bash and MCP tools (whose
// servers run under the conversation's sandbox policy), in a mode that writes (Project,
// Unrestricted).
func takesCheckpoint(e domain.ExecuteTool) bool {
	return canChangeFiles(e.Mode, e.Call.Name)
}

// checkpointRepos keeps one open shadow repository per conversation, so that its lock
// serialises the snapshots of a tool with an Undo the person starts.
type checkpointRepos struct {
	mu    sync.Mutex
	repos map[string]*checkpoint.Repo
	// warming holds the first snapshot running in the background for a conversation
	// (warmCheckpoints), so that a delete can stop it before the files go.
	warming map[string]warmJob
	// deleting holds the conversations whose files the store is removing: no repository may
	// be opened (and so re-created) for them until the delete has ended.
	deleting map[string]bool
	// unwatched is set by Shutdown: no repository's change detector may start again.
	unwatched bool
	// watching holds when each conversation whose change detector is on last took a
	// checkpoint, so that only the maxCheckpointWatchers most recent ones keep theirs.
	watching map[string]time.Time
	// afterPending holds, per conversation, the checkpoint still being completed after its
	// call's result was sent (checkpointAfterPending); closed when it is done.
	afterPending map[string]chan struct{}
	// calls holds, per conversation, the last call that takes a checkpoint, from its start
	// until its checkpoint is complete (checkpointCallStarted).
	calls map[string]chan struct{}
}

// checkpointCallStarted registers a call that takes a checkpoint, from before its tool runs
// until its checkpoint is complete (finish), and returns the conversation's call before it,
// if that one has not finished. Stop puts the conversation at rest at once, while the
// stopped call's goroutine still kills its processes and then completes its checkpoint: the
// next call's checkpoint, and a restore, wait for it (waitCheckpointCalls), so neither is
// taken for that call's changes. Shutdown waits for a call registered before it (bg): the
// call's snapshots write into the data directory, which closes after Shutdown.
func (r *Runtime) checkpointCallStarted(id string) (prev <-chan struct{}, finish func()) {
	counted := r.bgAdd()
	done := make(chan struct{})
	r.ckpts.mu.Lock()
	if r.ckpts.calls == nil {
		r.ckpts.calls = map[string]chan struct{}{}
	}
	if p, ok := r.ckpts.calls[id]; ok {
		prev = p
	}
	r.ckpts.calls[id] = done
	r.ckpts.mu.Unlock()
	return prev, func() {
		r.ckpts.mu.Lock()
		if r.ckpts.calls[id] == done {
			delete(r.ckpts.calls, id)
		}
		r.ckpts.mu.Unlock()
		close(done)
		if counted {
			r.bg.Done()
		}
	}
}

// waitCheckpointCalls waits until the conversation's last call that takes a checkpoint has
// completed it (see checkpointCallStarted).
func (r *Runtime) waitCheckpointCalls(ctx context.Context, id string) error {
	r.ckpts.mu.Lock()
	done := r.ckpts.calls[id]
	r.ckpts.mu.Unlock()
	return waitDone(ctx, done)
}

// waitDone waits for done to close; a nil done is closed already.
func waitDone(ctx context.Context, done <-chan struct{}) error {
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkpointAfterPending registers the completion of a conversation's last checkpoint,
// which runs after the call's result was handed on, off the round's critical path (the
// snapshot after a call that changed files runs git, tens of milliseconds on a large tree,
// while the next request is already on its way). Until release is called, the
// conversation's next checkpoint and every reader of its checkpoints wait for it
// (waitCheckpointAfter), so a later call's changes can never be taken for this one's, and
// Shutdown waits for it too. later is false once Shutdown waits for its background work:
// the caller then completes the checkpoint first, as it did before.
func (r *Runtime) checkpointAfterPending(id string) (release func(), later bool) {
	if !r.bgAdd() {
		return nil, false
	}
	done := make(chan struct{})
	r.ckpts.mu.Lock()
	if r.ckpts.afterPending == nil {
		r.ckpts.afterPending = map[string]chan struct{}{}
	}
	r.ckpts.afterPending[id] = done
	r.ckpts.mu.Unlock()
	return func() {
		r.ckpts.mu.Lock()
		if r.ckpts.afterPending[id] == done {
			delete(r.ckpts.afterPending, id)
		}
		r.ckpts.mu.Unlock()
		close(done)
		r.bg.Done()
	}, true
}

// waitCheckpointAfter waits until the conversation's last checkpoint is complete.
func (r *Runtime) waitCheckpointAfter(ctx context.Context, id string) error {
	r.ckpts.mu.Lock()
	done := r.ckpts.afterPending[id]
	r.ckpts.mu.Unlock()
	if done == nil {
		return nil
	}
	if r.cfg.checkpointWaited != nil {
		r.cfg.checkpointWaited(id)
	}
	return waitDone(ctx, done)
}

type warmJob struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// releaseCheckpoints stops the checkpoint work of a conversation that is being deleted: it
// cancels and waits for a background first snapshot, then closes the open repository, which
// waits for a snapshot or restore still running and refuses later ones. Only then may the
// store remove the repository's directory; a git command writing into it meanwhile would
// make the removal fail.
func (r *Runtime) releaseCheckpoints(id string) {
	r.ckpts.mu.Lock()
	if r.ckpts.deleting == nil {
		r.ckpts.deleting = map[string]bool{}
	}
	r.ckpts.deleting[id] = true
	job, warming := r.ckpts.warming[id]
	delete(r.ckpts.warming, id)
	repo := r.ckpts.repos[id]
	delete(r.ckpts.repos, id)
	r.ckpts.mu.Unlock()
	if warming {
		job.cancel()
		<-job.done
	}
	// A checkpoint still completing finishes first (it is bounded by afterTimeout), that of
	// a stopped call too; it would fail on the closed repository otherwise.
	_ = r.waitCheckpointCalls(context.Background(), id)
	_ = r.waitCheckpointAfter(context.Background(), id)
	if repo != nil {
		repo.Close()
	}
	r.removeRemoteCheckpoints(id)
}

// checkpointsReleased ends releaseCheckpoints once the store's delete has returned.
func (r *Runtime) checkpointsReleased(id string) {
	r.ckpts.mu.Lock()
	delete(r.ckpts.deleting, id)
	r.ckpts.mu.Unlock()
}

func (r *Runtime) checkpointRepo(ctx context.Context, c domain.Conversation) (CheckpointRepo, error) {
	if c.Host != "" {
		return r.remoteCheckpointRepo(c)
	}
	dir := r.cfg.Store.FilesDir(c.ID)
	if dir == "" {
		return nil, errors.New("checkpoints need a data directory on disk")
	}
	r.ckpts.mu.Lock()
	defer r.ckpts.mu.Unlock()
	if r.ckpts.deleting[c.ID] {
		return nil, checkpoint.ErrClosed
	}
	// A repository removed meanwhile (its conversation was deleted and the id used again)
	// is opened afresh.
	if repo, ok := r.ckpts.repos[c.ID]; ok {
		if _, err := os.Stat(filepath.Join(repo.GitDir(), "HEAD")); err == nil {
			return repo, nil
		}
		// The old one's change detector goes with it.
		repo.SetWatching(false)
		delete(r.ckpts.watching, c.ID)
	}
	// Once Shutdown has begun, no repository is made: a call it stopped may still be on its
	// way here, and would create one in the data directory after Shutdown returned.
	if r.stopped.Load() {
		return nil, checkpoint.ErrClosed
	}
	repo, err := checkpoint.Open(ctx, filepath.Join(dir, "shadow.git"), c.Cwd, checkpoint.WithLogger(r.log),
		checkpoint.WithSpaceCheck(r.cfg.spaceCheck), checkpoint.WithExcluded(r.cfg.Store.Dir()))
	if err != nil {
		return nil, err
	}
	// The change detector runs only while the conversation can run tools (watchCheckpoints):
	// a repository opened for an Undo of a conversation that is not in memory takes no
	// inotify instance.
	repo.SetWatching(false)
	if r.ckpts.repos == nil {
		r.ckpts.repos = map[string]*checkpoint.Repo{}
	}
	r.ckpts.repos[c.ID] = repo
	return repo, nil
}
