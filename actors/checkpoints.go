package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// run on the caller's goroutine at rest, never in a mailbox, and tell the agent what was
// restored (domain.UserRestoredFiles).

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
	return e.Mode.Rank() > domain.ModeRestricted.Rank() &&
		(e.Call.Name == domain.ToolPatch || e.Call.Name == domain.ToolBash || domain.IsMCPTool(e.Call.Name))
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
// taken for that call's changes.
func (r *Runtime) checkpointCallStarted(id string) (prev <-chan struct{}, finish func()) {
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
// Shutdown waits for it too. later is false once the runtime is stopping: the caller then
// completes the checkpoint first, as it did before.
func (r *Runtime) checkpointAfterPending(id string) (release func(), later bool) {
	r.stopMu.Lock()
	defer r.stopMu.Unlock()
	if r.stopped.Load() {
		return nil, false
	}
	r.bg.Add(1)
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
}

// checkpointsReleased ends releaseCheckpoints once the store's delete has returned.
func (r *Runtime) checkpointsReleased(id string) {
	r.ckpts.mu.Lock()
	delete(r.ckpts.deleting, id)
	r.ckpts.mu.Unlock()
}

func (r *Runtime) checkpointRepo(ctx context.Context, c domain.Conversation) (*checkpoint.Repo, error) {
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
	repo, err := checkpoint.Open(ctx, filepath.Join(dir, "shadow.git"), c.Cwd, checkpoint.WithLogger(r.log), checkpoint.WithSpaceCheck(r.cfg.spaceCheck))
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

// warmCheckpoints takes a conversation's first snapshot in the background when it can
// change files (Project, Unrestricted), so that its first patch or bash call does not wait while the
// whole tree is copied; that call's own checkpoint then only adds what changed. Failures are
// left for that call to report.
func (r *Runtime) warmCheckpoints(id string) {
	c, err := r.cfg.Store.Get(id)
	if err != nil {
		return
	}
	r.warmCheckpointsFor(c, false)
}

// warmCheckpointsFor warms c's repository (warmCheckpoints). The conversation actor calls it
// (fromActor) as each model request goes out: the first request of a conversation that can
// change files starts the copy while the model thinks, so neither creating a conversation
// nor a turn's first request waits for git; later requests find the repository open or
// warming and do nothing.
func (r *Runtime) warmCheckpointsFor(c domain.Conversation, fromActor bool) {
	id := c.ID
	if c.Mode.Rank() == domain.ModeRestricted.Rank() || r.cfg.Store.FilesDir(id) == "" {
		return
	}
	if fromActor {
		r.ckpts.mu.Lock()
		_, open := r.ckpts.repos[id]
		_, warming := r.ckpts.warming[id]
		r.ckpts.mu.Unlock()
		if open || warming {
			return
		}
	}
	if checkpoint.Available() != nil {
		return
	}
	// Under stopMu, so that no Add races with Shutdown's Wait. Shutdown holds it while it
	// stops the actors, so an actor only tries it: a runtime that is stopping warms nothing,
	// and the first tool call takes the whole snapshot itself.
	if !fromActor {
		r.stopMu.Lock()
	} else if !r.stopMu.TryLock() {
		return
	}
	defer r.stopMu.Unlock()
	if r.stopped.Load() {
		return
	}
	ctx, cancel := context.WithCancel(r.bgCtx)
	job := warmJob{cancel: cancel, done: make(chan struct{})}
	r.ckpts.mu.Lock()
	if r.ckpts.warming == nil {
		r.ckpts.warming = map[string]warmJob{}
	}
	r.ckpts.warming[id] = job
	r.ckpts.mu.Unlock()
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		defer close(job.done)
		defer cancel()
		repo, err := r.checkpointRepo(ctx, c)
		if err == nil {
			r.watchCheckpoints(id, repo)
			_, err = repo.Snapshot(ctx)
		}
		r.ckpts.mu.Lock()
		if r.ckpts.warming[id].done == job.done {
			delete(r.ckpts.warming, id)
		}
		r.ckpts.mu.Unlock()
		if err != nil && ctx.Err() == nil {
			r.log.Debug("warming the checkpoint repository failed; the first tool call will try again", "conversation", id, "error", err)
		}
	}()
}

// watchCheckpoints turns on the change detector of a conversation's repository (package
// checkpoint): while nothing in the working tree changes, its snapshots start no git. It is
// on from the conversation's first checkpoint (or warming) until its actor stops
// (unwatchCheckpoints), so a person's programs keep their inotify instances.
func (r *Runtime) watchCheckpoints(id string, repo *checkpoint.Repo) {
	r.ckpts.mu.Lock()
	defer r.ckpts.mu.Unlock()
	if r.ckpts.unwatched || r.ckpts.repos[id] != repo {
		return
	}
	repo.SetWatching(true)
	if r.ckpts.watching == nil {
		r.ckpts.watching = map[string]time.Time{}
	}
	r.ckpts.watching[id] = time.Now()
	if len(r.ckpts.watching) <= maxCheckpointWatchers {
		return
	}
	oldest := ""
	for other, at := range r.ckpts.watching {
		if other != id && (oldest == "" || at.Before(r.ckpts.watching[oldest])) {
			oldest = other
		}
	}
	delete(r.ckpts.watching, oldest)
	if old := r.ckpts.repos[oldest]; old != nil {
		// Its next checkpoint runs git once and turns it on again.
		old.SetWatching(false)
	}
}

// maxCheckpointWatchers caps the conversations whose change detector runs at once. Each
// takes an inotify instance, and a user has 128 (fs.inotify.max_user_instances) for all of
// their programs, editors and file managers included; the conversations a person works in at
// once are fewer than this, and any other pays one git run on its next call.
var maxCheckpointWatchers = 8

// unwatchCheckpoints turns the change detector off when a conversation's actor stops
// (passivation, delete, shutdown); its next checkpoint turns it on again.
//
// The actor calls it while it stops, on its mailbox: closing a detector closes its inotify
// descriptor and waits for its goroutine, which returns as soon as the descriptor is closed,
// so nothing here waits on the disk or the network. (A goroutine of its own would need
// stopMu to be counted for Shutdown, which holds stopMu while it stops the actors.)
func (r *Runtime) unwatchCheckpoints(id string) {
	r.ckpts.mu.Lock()
	repo := r.ckpts.repos[id]
	delete(r.ckpts.watching, id)
	r.ckpts.mu.Unlock()
	if repo != nil {
		repo.SetWatching(false)
	}
	if r.cfg.checkpointsUnwatched != nil {
		r.cfg.checkpointsUnwatched(id)
	}
}

// unwatchAllCheckpoints stops every change detector for good (Shutdown). The repositories
// stay usable: a call stopped by the shutdown still completes its checkpoint, with git.
func (r *Runtime) unwatchAllCheckpoints() {
	r.ckpts.mu.Lock()
	r.ckpts.unwatched = true
	r.ckpts.watching = nil
	repos := make([]*checkpoint.Repo, 0, len(r.ckpts.repos))
	for _, repo := range r.ckpts.repos {
		repos = append(repos, repo)
	}
	r.ckpts.mu.Unlock()
	for _, repo := range repos {
		repo.SetWatching(false)
	}
}

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
	var repo *checkpoint.Repo
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

// Checkpoints lists a conversation's checkpoints, oldest first.
func (r *Runtime) Checkpoints(ctx context.Context, id string) ([]Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The last call's checkpoint may still be completing (checkpointAfterPending).
	if err := r.waitCheckpointAfter(ctx, id); err != nil {
		return nil, err
	}
	items, err := r.cfg.Store.AuxList(id, auxCheckpointPrefix)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints of %s: %w", id, err)
	}
	out := make([]Checkpoint, 0, len(items))
	for _, it := range items {
		var cp Checkpoint
		if err := json.Unmarshal(it.Value, &cp); err != nil {
			r.log.Error("a checkpoint record does not decode; it is skipped", "conversation", id, "record", it.Name, "error", err)
			continue
		}
		out = append(out, cp)
	}
	return out, nil
}

// RestoreKind says what a restore brings back.
type RestoreKind string

const (
	// RestoreUndo brings back the files one call changed, as they were before it.
	RestoreUndo RestoreKind = "undo"
	// RestoreRewind brings back the whole working tree as it was before a checkpoint.
	RestoreRewind RestoreKind = "rewind"
)

// RestorePlan is what a restore will do, shown to the person before it is applied.
type RestorePlan struct {
	Kind       RestoreKind
	Checkpoint Checkpoint
	// Files are the files the restore changes, with what happens to each (relative to the
	// files as they are now: "deleted" means the restore removes the file).
	Files []FileChange
	// Diff is the unified diff the restore applies.
	Diff string
	// Conflicts are files changed after the checkpoint by the person or a later call;
	// restoring overwrites those changes.
	Conflicts []string
	// current is the snapshot the plan was made against.
	current string
	target  string
	// lastID is the conversation's newest checkpoint when the plan was made.
	lastID domain.ExecID
}

// Empty reports whether the restore would change nothing.
func (p RestorePlan) Empty() bool { return len(p.Files) == 0 }

func (r *Runtime) checkpointByID(ctx context.Context, id string, ckpt domain.ExecID) (Checkpoint, []Checkpoint, error) {
	all, err := r.Checkpoints(ctx, id)
	if err != nil {
		return Checkpoint{}, nil, err
	}
	for _, cp := range all {
		if cp.ID == ckpt {
			return cp, all, nil
		}
	}
	return Checkpoint{}, nil, fmt.Errorf("%w %d in conversation %s (see phoenix-desktop checkpoints %s)", ErrNoCheckpoint, ckpt, id, id)
}

// CheckpointForCall returns the checkpoint taken before a tool call, for a row's Undo.
func (r *Runtime) CheckpointForCall(ctx context.Context, id, callID string) (Checkpoint, bool) {
	all, err := r.Checkpoints(ctx, id)
	if err != nil {
		return Checkpoint{}, false
	}
	for _, cp := range all {
		if cp.CallID == callID {
			return cp, true
		}
	}
	return Checkpoint{}, false
}

// CheckpointBeforeMessage returns the first checkpoint of the turn of a user message or a
// later one: the tree as it was before that message's turn changed anything. ok is false
// when nothing was changed since (no checkpoint).
func (r *Runtime) CheckpointBeforeMessage(ctx context.Context, id string, msgSeq uint64) (Checkpoint, bool, error) {
	all, err := r.Checkpoints(ctx, id)
	if err != nil {
		return Checkpoint{}, false, err
	}
	for _, cp := range all {
		if cp.MsgSeq >= msgSeq {
			return cp, true, nil
		}
	}
	return Checkpoint{}, false, nil
}

// PlanRestore works out what an Undo (the files of one call) or a Rewind (the whole tree
// before a checkpoint) would change now, with its diff and the files that changed since.
func (r *Runtime) PlanRestore(ctx context.Context, id string, kind RestoreKind, ckpt domain.ExecID) (RestorePlan, error) {
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return RestorePlan{}, fmt.Errorf("restore files of %s: %w", id, err)
	}
	if !domain.Busy(conv.State) {
		// At rest, a call may still be ending (Stop does not wait for it): its checkpoint,
		// and the files it changed, come first.
		if err := r.waitCheckpointCalls(ctx, id); err != nil {
			return RestorePlan{}, err
		}
	}
	cp, all, err := r.checkpointByID(ctx, id, ckpt)
	if err != nil {
		return RestorePlan{}, err
	}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return RestorePlan{}, fmt.Errorf("restore files of %s: %w", id, err)
	}
	current, err := repo.Snapshot(ctx)
	if err != nil {
		return RestorePlan{}, fmt.Errorf("read the working tree: %w", err)
	}
	plan := RestorePlan{Kind: kind, Checkpoint: cp, current: current, target: cp.Before, lastID: all[len(all)-1].ID}
	var changedSince []checkpoint.Change
	switch kind {
	case RestoreUndo:
		callFiles := cp.Files
		after := cp.After
		if !cp.Complete() {
			// The app stopped during the call: what it changed is unknown, so everything
			// changed since its checkpoint counts.
			after = current
			if callFiles, err = repo.Changes(ctx, cp.Before, current); err != nil {
				return RestorePlan{}, err
			}
		}
		paths := checkpoint.Paths(callFiles)
		now, err := repo.Changes(ctx, current, cp.Before)
		if err != nil {
			return RestorePlan{}, err
		}
		plan.Files = onlyPaths(now, paths)
		if changedSince, err = repo.Changes(ctx, after, current); err != nil {
			return RestorePlan{}, err
		}
		plan.Conflicts = checkpoint.Paths(onlyPaths(changedSince, checkpoint.Paths(plan.Files)))
	case RestoreRewind:
		if plan.Files, err = repo.Changes(ctx, current, cp.Before); err != nil {
			return RestorePlan{}, err
		}
		// Files the agent did not change since its last completed call were changed by the
		// person (or another program): say so before overwriting them.
		lastAfter, lastID := "", domain.ExecID(0)
		for _, c := range all {
			if c.Complete() {
				lastAfter, lastID = c.After, c.ID
			}
		}
		// A restore since that call changed files on the person's behalf: they are not
		// changes of someone else.
		if known, ok := r.knownTree(id); ok && known.Since >= lastID {
			lastAfter = known.Tree
		}
		if lastAfter != "" {
			if changedSince, err = repo.Changes(ctx, lastAfter, current); err != nil {
				return RestorePlan{}, err
			}
			plan.Conflicts = checkpoint.Paths(onlyPaths(changedSince, checkpoint.Paths(plan.Files)))
		}
	default:
		return RestorePlan{}, fmt.Errorf("unknown restore kind %q", kind)
	}
	if len(plan.Files) > 0 {
		if plan.Diff, err = repo.Diff(ctx, current, cp.Before, checkpoint.Paths(plan.Files)); err != nil {
			return RestorePlan{}, err
		}
	}
	return plan, nil
}

// onlyPaths keeps the changes whose path is in paths.
func onlyPaths(changes []checkpoint.Change, paths []string) []checkpoint.Change {
	var out []checkpoint.Change
	for _, c := range changes {
		if slices.Contains(paths, c.Path) {
			out = append(out, c)
		}
	}
	return out
}

// ApplyRestore carries out a plan. The working tree is checked again first: if it changed
// since the plan was made, or the plan has conflicts and overwrite is false, nothing is
// restored and the error says which files (ErrRestoreConflict). The conversation must be at
// rest; the agent is told what was restored.
func (r *Runtime) ApplyRestore(ctx context.Context, id string, plan RestorePlan, overwrite bool) ([]FileChange, error) {
	// The actor grants the restore only at rest and refuses every message until it ends
	// (restore.go): nothing can start a turn while the tree is written.
	if err := r.restoreGate(ctx, id, true); err != nil {
		return nil, err
	}
	defer func() {
		// A fresh context: the restore must end even when the caller's was cancelled.
		if err := r.restoreGate(context.Background(), id, false); err != nil {
			r.log.Warn("could not end the restore; the conversation refuses messages until the app restarts", "conversation", id, "error", err)
		}
	}()
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return nil, fmt.Errorf("restore files of %s: %w", id, err)
	}
	fresh, err := r.PlanRestore(ctx, id, plan.Kind, plan.Checkpoint.ID)
	if err != nil {
		return nil, err
	}
	if fresh.current != plan.current {
		return nil, fmt.Errorf("%w: the files changed since the restore was shown; look at it again", ErrRestoreConflict)
	}
	if len(fresh.Conflicts) > 0 && !overwrite {
		return nil, fmt.Errorf("%w: %s; confirm to overwrite them", ErrRestoreConflict, strings.Join(fresh.Conflicts, ", "))
	}
	if fresh.Empty() {
		return nil, nil
	}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return nil, err
	}
	if r.restoreHook != nil {
		r.restoreHook()
	}
	tree, err := repo.Restore(ctx, fresh.target, checkpoint.Paths(fresh.Files))
	if err != nil {
		return nil, fmt.Errorf("restore files: %w", err)
	}
	r.saveKnownTree(id, knownTree{Tree: tree, Since: fresh.lastID})
	var before domain.Message
	if fresh.Kind != RestoreUndo {
		// Only for the words of the notice: without the message it names no message.
		before, _ = r.cfg.Store.Message(id, fresh.Checkpoint.MsgSeq)
	}
	summary := restoreSummary(fresh, before)
	if err := r.event(ctx, id, domain.UserRestoredFiles{Summary: summary}); err != nil {
		// The files are restored; only the notice to the agent is missing.
		r.publish(Notice{ConvID: id, Level: NoticeWarning, Text: "The files were restored, but the agent could not be told: " + err.Error()})
	}
	return fresh.Files, nil
}

// restoreGate begins or ends a restore in the conversation's actor.
func (r *Runtime) restoreGate(ctx context.Context, id string, begin bool) error {
	res, err := r.request(ctx, cmdRestore{ID: id, Begin: begin})
	if err != nil {
		return err
	}
	return res.(reply).Err
}

// restoreSummary is the system notice that tells the agent what the person restored. The
// person reads it too, so it names the call and the message by their time and words, never
// by internal ids; before is the user message a Rewind goes back before (zero if unknown).
func restoreSummary(p RestorePlan, before domain.Message) string {
	var b strings.Builder
	switch p.Kind {
	case RestoreUndo:
		fmt.Fprintf(&b, "The person undid the changes of your %s call%s. These files are back as they were before it:", p.Checkpoint.Tool, atClock(p.Checkpoint.At))
	default:
		what := "the person's message"
		if q := quoteStart(before.Text); q != "" {
			what += " " + q
		}
		fmt.Fprintf(&b, "The person rewound the working directory to how it was before %s%s. These files changed:", what, atClock(before.At))
	}
	for _, f := range p.Files {
		fmt.Fprintf(&b, "\n- %s (%s)", f.Path, RestoreVerb(f.Status))
	}
	b.WriteString("\nRead them again before relying on what you saw earlier.")
	return b.String()
}

// atClock is " at 21:29" in local time, or "" for a zero time.
func atClock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " at " + t.Local().Format("15:04")
}

// quoteStart quotes the first line of a message, cut to quoteRunes runes ("" for none).
func quoteStart(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + "…"
	}
	if r := []rune(s); len(r) > quoteRunes {
		s = strings.TrimSpace(string(r[:quoteRunes])) + "…"
	}
	if s == "" {
		return ""
	}
	return "“" + s + "”"
}

// quoteRunes is how much of a message a notice quotes to name it.
const quoteRunes = 60

// RestoreVerb says what a restore does to a file ("restored", "removed", "reverted"), given
// its change from the files as they are to the checkpoint.
func RestoreVerb(s checkpoint.Status) string {
	switch s {
	case checkpoint.Added:
		return "restored"
	case checkpoint.Deleted:
		return "removed"
	}
	return "reverted"
}

// knownTree is the working tree as the last restore left it, so that a later Rewind does not
// take the restore's own changes for changes by someone else.
type knownTree struct {
	Tree string `json:"tree"`
	// Since is the last checkpoint that existed at the restore.
	Since domain.ExecID `json:"since"`
}

const auxKnownTree = "restored-tree"

func (r *Runtime) knownTree(id string) (knownTree, bool) {
	b, err := r.cfg.Store.Aux(id, auxKnownTree)
	if err != nil {
		return knownTree{}, false
	}
	var k knownTree
	return k, json.Unmarshal(b, &k) == nil
}

func (r *Runtime) saveKnownTree(id string, k knownTree) {
	b, _ := json.Marshal(k)
	if err := r.cfg.Store.PutAux(id, auxKnownTree, b); err != nil {
		r.log.Warn("could not record the restored tree; a later Rewind may ask about files the restore changed", "conversation", id, "error", err)
	}
}
