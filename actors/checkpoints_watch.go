package actors

import (
	"context"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// warmCheckpoints takes a conversation's first snapshot in the background when it can
// change files (Project, Unrestricted), so that its first patch or bash call does not wait while the
// whole tree is copied; that call's own checkpoint then only adds what changed. Failures are
// left for that call to report.
func (r *Runtime) warmCheckpoints(id string) {
	c, err := r.cfg.Store.Get(id)
	if err != nil {
		return
	}
	_ = r.warmCheckpointsFor(c, false)
}

// warmCheckpointsFor warms c's repository (warmCheckpoints). The conversation actor calls it
// (fromActor) as its first model request goes out: the first request of a conversation that
// can change files starts the copy while the model thinks, so neither creating a
// conversation nor a turn's first request waits for git. It reports whether the repository
// is open or warming now (false for a Restricted conversation, or a runtime that is
// stopping), so that the actor asks once in its life. Finding git (checkpoint.Available)
// and opening the repository happen in the background.
func (r *Runtime) warmCheckpointsFor(c domain.Conversation, fromActor bool) bool {
	id := c.ID
	// A remote project's files are not here to snapshot (issue 37).
	if c.Mode.Rank() == domain.ModeRestricted.Rank() || r.cfg.Store.FilesDir(id) == "" || c.Host != "" {
		return false
	}
	// Under stopMu, so that no Add races with Shutdown's Wait. Shutdown holds it while it
	// stops the actors, so an actor only tries it: a runtime that is stopping warms nothing,
	// and the first tool call takes the whole snapshot itself.
	if !fromActor {
		r.stopMu.Lock()
	} else if !r.stopMu.TryLock() {
		return false
	}
	defer r.stopMu.Unlock()
	if r.stopped.Load() {
		return false
	}
	ctx, cancel := context.WithCancel(r.bgCtx)
	job := warmJob{cancel: cancel, done: make(chan struct{})}
	// One look and one insert under one lock: the actor's request and an approved upgrade
	// (DecideUpgrade) may ask at once, and only one copy may run.
	r.ckpts.mu.Lock()
	_, open := r.ckpts.repos[id]
	_, warming := r.ckpts.warming[id]
	if !open && !warming {
		if r.ckpts.warming == nil {
			r.ckpts.warming = map[string]warmJob{}
		}
		r.ckpts.warming[id] = job
	}
	r.ckpts.mu.Unlock()
	if open || warming {
		cancel()
		return true
	}
	r.bg.Add(1)
	go func() {
		defer r.bg.Done()
		defer close(job.done)
		defer cancel()
		err := checkpoint.Available()
		var repo CheckpointRepo
		if err == nil {
			repo, err = r.checkpointRepo(ctx, c)
		}
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
	return true
}

// watchCheckpoints turns on the change detector of a conversation's repository (package
// checkpoint): while nothing in the working tree changes, its snapshots start no git. It is
// on from the conversation's first checkpoint (or warming) until its actor stops
// (unwatchCheckpoints), so a person's programs keep their inotify instances.
func (r *Runtime) watchCheckpoints(id string, cr CheckpointRepo) {
	// A remote conversation's repository watches on its host, from the agent's first use.
	repo, local := cr.(*checkpoint.Repo)
	r.ckpts.mu.Lock()
	defer r.ckpts.mu.Unlock()
	if !local || r.ckpts.unwatched || r.ckpts.repos[id] != repo {
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
