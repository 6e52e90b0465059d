package actors

import (
	"context"
	"errors"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// CheckpointRepo is a conversation's shadow repository as checkpoints, Undo, Rewind and the
// Changes view use it: a *checkpoint.Repo in the data directory for a project on this
// machine, or, for a project on another machine, the repository the remote agent keeps there
// (RemoteRunner.Checkpoints), each method one request over the connection. The store keeps
// the same records for both — snapshot ids and the files each call changed — and no remote
// file's content is kept here.
type CheckpointRepo interface {
	Snapshot(ctx context.Context) (string, error)
	Changes(ctx context.Context, from, to string) ([]checkpoint.Change, error)
	Diff(ctx context.Context, from, to string, paths []string) (string, error)
	Compose(ctx context.Context, base string, overlays []checkpoint.Overlay) (string, error)
	Restore(ctx context.Context, expect, tree string, paths []string) (string, error)
	DiffTrees(ctx context.Context, objects, from, to string) (string, error)
	ReadFile(ctx context.Context, objects, tree, path string) (checkpoint.File, error)
	WithFile(ctx context.Context, base, path string, f checkpoint.File) (string, error)
}

// projectHeader is a repository that finds the project's own HEAD where the project is
// (the remote one); for a local repository checkpoint.ProjectHead reads the folder here.
type projectHeader interface {
	ProjectHead(ctx context.Context) (tree, objects string, err error)
}

// projectHead is the tree of the project's HEAD commit and its object folder, on the machine
// where the project is: the base of the Changes view's uncommitted scope.
func projectHead(ctx context.Context, conv domain.Conversation, repo CheckpointRepo) (tree, objects string, err error) {
	if h, ok := repo.(projectHeader); ok {
		return h.ProjectHead(ctx)
	}
	return checkpoint.ProjectHead(ctx, conv.Cwd)
}

// remoteCheckpointRepo is the shadow repository of a conversation whose project is on
// another machine: it lives there, kept by the agent.
func (r *Runtime) remoteCheckpointRepo(c domain.Conversation) (CheckpointRepo, error) {
	if r.cfg.Remote == nil {
		return nil, errors.New("the project is on " + c.Host + ", and this session of Phoenix Desktop cannot reach other machines")
	}
	r.ckpts.mu.Lock()
	deleting := r.ckpts.deleting[c.ID]
	r.ckpts.mu.Unlock()
	if deleting {
		return nil, checkpoint.ErrClosed
	}
	return r.cfg.Remote.Checkpoints(c.Host, c.ID, c.Cwd)
}

// remoteRemoveTimeout bounds the removal of a deleted conversation's checkpoints on its host:
// a host that is down does not hold up the delete for long; its folder there then stays
// until Settings → Forget or by hand.
const remoteRemoveTimeout = 10 * time.Second

// removeRemoteCheckpoints deletes, on its host, the shadow repository of a remote
// conversation that is being deleted.
func (r *Runtime) removeRemoteCheckpoints(id string) {
	c, err := r.cfg.Store.Get(id)
	if err != nil || c.Host == "" || r.cfg.Remote == nil || !r.hasCheckpoints(id) {
		return
	}
	cr, err := r.cfg.Remote.Checkpoints(c.Host, c.ID, c.Cwd)
	repo, ok := cr.(interface{ Remove(context.Context) error })
	if err != nil || !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), remoteRemoveTimeout)
	defer cancel()
	if err := repo.Remove(ctx); err != nil {
		r.log.Warn("could not remove a deleted conversation's checkpoints on its host", "conversation", id, "host", c.Host, "error", err)
	}
}

// hasCheckpoints says whether the store holds a checkpoint of the conversation: a remote
// conversation that never took one has no repository on its host to remove.
func (r *Runtime) hasCheckpoints(id string) bool {
	cps, err := r.Checkpoints(context.Background(), id)
	return err != nil || len(cps) > 0
}

// runWithCheckpoint runs a call that may take a checkpoint (ckpt not nil) as a tool worker
// does: the conversation's previous call's checkpoint completes first, the snapshot before is
// taken by run, and the one after (complete) once the result is on its way to the actor.
func (r *Runtime) runWithCheckpoint(convID string, ckpt *checkpointTask, run func() (domain.ToolResult, func()), send func(domain.ToolResult)) {
	if ckpt != nil {
		var finish func()
		ckpt.prev, finish = r.checkpointCallStarted(convID)
		defer finish()
	}
	res, complete := run()
	if complete == nil {
		send(res)
		return
	}
	release, later := r.checkpointAfterPending(convID)
	if !later {
		complete()
	}
	send(res)
	if later {
		if r.cfg.checkpointCompleting != nil {
			r.cfg.checkpointCompleting(convID)
		}
		complete()
		release()
	}
}
