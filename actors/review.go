package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/review"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// The Changes view and the headless changes and revert commands: what a conversation
// changed, in three scopes (package review), and the revert of one file or one hunk. The
// files as they are now are a snapshot of the conversation's shadow repository; a scope's
// base is a checkpoint's Before (turn, conversation) or the HEAD commit of the project's
// git repository (uncommitted). A revert is a restore like Undo and Rewind: granted by the
// actor only at rest (restoreGate), recorded before a file changes (RestoreRecord, kind
// RestoreRevert), so "Undo the revert" (PlanUndoRestore) takes it back, and told to the
// agent. It writes one file, and of a hunk only the hunk's lines: what the person changed
// anywhere else stays as they left it.

// RestoreRevert takes back one file, or one hunk of it, as a scope of the Changes view
// shows it.
const RestoreRevert RestoreKind = "revert"

// ChangesScope picks the changes to show.
type ChangesScope struct {
	Kind review.Scope
	// Turn is the sequence number of the user message whose turn is shown (Kind
	// review.Turn); 0 is the last turn that changed files.
	Turn uint64
}

// Changes lists the files a conversation changed in a scope, with their numbered hunks,
// against the files as they are now.
func (r *Runtime) Changes(ctx context.Context, id string, scope ChangesScope) (review.Changes, error) {
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return review.Changes{}, fmt.Errorf("changes of %s: %w", id, err)
	}
	if !domain.Busy(conv.State) {
		// A stopped call may still be ending: its files come first.
		if err := r.waitCheckpointCalls(ctx, id); err != nil {
			return review.Changes{}, err
		}
	}
	ch, _, err := r.changes(ctx, conv, scope)
	return ch, err
}

// changes is Changes for a conversation read from the store; objects is the object
// directory of the project's repository for the uncommitted scope.
func (r *Runtime) changes(ctx context.Context, conv domain.Conversation, scope ChangesScope) (ch review.Changes, objects string, err error) {
	if scope.Kind == "" {
		scope.Kind = review.Conversation
	}
	ch = review.Changes{Scope: scope.Kind, Files: []review.File{}}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return ch, "", fmt.Errorf("changes of %s: %w", conv.ID, err)
	}
	switch scope.Kind {
	case review.Uncommitted:
		if ch.From, objects, err = projectHead(ctx, conv, repo); err != nil {
			return ch, "", fmt.Errorf("no uncommitted changes to show: %w; the turn and conversation scopes work in any folder", err)
		}
	case review.Turn, review.Conversation:
		all, err := r.Checkpoints(ctx, conv.ID)
		if err != nil {
			return ch, "", err
		}
		if scope.Kind == review.Turn && scope.Turn == 0 && len(all) > 0 {
			scope.Turn = all[len(all)-1].MsgSeq
		}
		ch.Turn = scope.Turn
		for _, cp := range all {
			if scope.Kind == review.Conversation || cp.MsgSeq == scope.Turn {
				ch.From = cp.Before
				break
			}
		}
	default:
		return ch, "", fmt.Errorf("unknown scope %q: choose %s, %s or %s", scope.Kind, review.Turn, review.Conversation, review.Uncommitted)
	}
	if ch.To, err = repo.Snapshot(ctx); err != nil {
		return ch, "", fmt.Errorf("read the files of %s: %w", conv.Cwd, err)
	}
	if ch.From == "" {
		// Nothing was changed in this scope: no checkpoint was taken.
		ch.From = ch.To
		return ch, objects, nil
	}
	diff, err := repo.DiffTrees(ctx, objects, ch.From, ch.To)
	if err != nil {
		return ch, "", err
	}
	files, err := review.Parse(diff)
	if err != nil {
		return ch, "", err
	}
	if files != nil {
		ch.Files = files
	}
	return ch, objects, nil
}

// RevertRequest names what to revert.
type RevertRequest struct {
	Scope ChangesScope
	Path  string
	// Hunk numbers the hunk in the file, from 1; 0 reverts the whole file.
	Hunk int
	// Expect, when set, is the Changes.To the person saw: if the files changed since (the
	// hunks may be numbered differently now), nothing is reverted.
	Expect string
}

// ErrNothingToRevert rejects a revert of a file or hunk the scope does not show.
var ErrNothingToRevert = errors.New("nothing to revert")

// Revert takes back one file, or one hunk of it, as the scope shows it: the file (or the
// hunk's lines) become what they are in the scope's base, and nothing else changes. Refused
// while the conversation is busy, as Rewind is; undone by PlanUndoRestore of the returned
// record's N; the agent is told.
func (r *Runtime) Revert(ctx context.Context, id string, req RevertRequest) (RestoreRecord, error) {
	if err := r.restoreGate(ctx, id, true); err != nil {
		return RestoreRecord{}, err
	}
	defer func() {
		if err := r.restoreGate(context.Background(), id, false); err != nil {
			r.log.Warn("could not end the revert; the conversation refuses messages until the app restarts", "conversation", id, "error", err)
		}
	}()
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return RestoreRecord{}, fmt.Errorf("revert in %s: %w", id, err)
	}
	if err := r.waitCheckpointCalls(ctx, id); err != nil {
		return RestoreRecord{}, err
	}
	ch, objects, err := r.changes(ctx, conv, req.Scope)
	if err != nil {
		return RestoreRecord{}, err
	}
	if req.Expect != "" && ch.To != req.Expect {
		return RestoreRecord{}, fmt.Errorf("%w: the files changed since the changes were shown; look at them again", ErrRestoreConflict)
	}
	f, ok := ch.File(req.Path)
	if !ok {
		return RestoreRecord{}, fmt.Errorf("%w: %s has no changes in the %s scope (see phoenix-desktop changes %s)", ErrNothingToRevert, req.Path, ch.Scope, id)
	}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return RestoreRecord{}, err
	}
	base, err := repo.ReadFile(ctx, objects, ch.From, req.Path)
	if err != nil {
		return RestoreRecord{}, fmt.Errorf("read %s as it was: %w", req.Path, err)
	}
	target := base
	if req.Hunk != 0 {
		if req.Hunk < 0 || req.Hunk > len(f.Hunks) {
			return RestoreRecord{}, fmt.Errorf("%w: %s has no hunk %d in the %s scope (it has %s)", ErrNothingToRevert, req.Path, req.Hunk, ch.Scope, transcript.Count(len(f.Hunks), "hunk", "hunks"))
		}
		if f.Status == review.Modified {
			cur, err := repo.ReadFile(ctx, "", ch.To, req.Path)
			if err != nil {
				return RestoreRecord{}, fmt.Errorf("read %s: %w", req.Path, err)
			}
			content, err := review.RevertHunk(base.Content, cur.Content, f.Hunks[req.Hunk-1])
			if err != nil {
				return RestoreRecord{}, fmt.Errorf("%w: %s: %w", ErrRestoreConflict, req.Path, err)
			}
			target = checkpoint.File{Mode: cur.Mode, Content: content}
		}
		// The one hunk of a file that was added or removed is the whole file.
	}
	tree, err := repo.WithFile(ctx, ch.To, req.Path, target)
	if err != nil {
		return RestoreRecord{}, fmt.Errorf("revert %s: %w", req.Path, err)
	}
	files, err := repo.Changes(ctx, ch.To, tree)
	if err != nil {
		return RestoreRecord{}, err
	}
	if len(files) == 0 {
		return RestoreRecord{}, nil
	}
	all, err := r.Checkpoints(ctx, id)
	if err != nil {
		return RestoreRecord{}, err
	}
	restores, err := r.Restores(ctx, id)
	if err != nil {
		return RestoreRecord{}, err
	}
	rec := RestoreRecord{Kind: RestoreRevert, Before: ch.To, Files: files, Hunk: req.Hunk, At: time.Now()}
	if len(all) > 0 {
		rec.Since = all[len(all)-1].ID
	}
	rec.N = 1
	if len(restores) > 0 {
		rec.N = restores[len(restores)-1].N + 1
	}
	// The way back is on disk before the file changes.
	if err := r.saveRestore(id, rec); err != nil {
		return RestoreRecord{}, err
	}
	after, err := repo.Restore(ctx, ch.To, tree, checkpoint.Paths(files))
	if errors.Is(err, checkpoint.ErrMoved) {
		if derr := r.cfg.Store.DeleteAux(id, restoreName(rec.N)); derr != nil {
			r.log.Warn("could not remove the record of a revert that did not happen", "conversation", id, "error", derr)
		}
		return RestoreRecord{}, fmt.Errorf("%w: the files changed since the changes were shown; look at them again", ErrRestoreConflict)
	}
	if err != nil {
		// The file may have changed: the record (its Before) stays, so it can be undone.
		return RestoreRecord{}, fmt.Errorf("revert %s: %w", req.Path, err)
	}
	rec.After = after
	if err := r.saveRestore(id, rec); err != nil {
		r.log.Warn("could not complete the record of a revert; undoing it compares with the current files instead", "conversation", id, "error", err)
	}
	if err := r.event(ctx, id, domain.UserRestoredFiles{Summary: revertSummary(req, ch, f)}); err != nil {
		r.publish(Notice{ConvID: id, Level: NoticeWarning, Text: "The change was reverted, but the agent could not be told: " + err.Error()})
	}
	return rec, nil
}

// revertSummary is the system notice that tells the agent (and the person reading the
// history) what was reverted.
func revertSummary(req RevertRequest, ch review.Changes, f review.File) string {
	since := "before the conversation changed them"
	switch ch.Scope {
	case review.Turn:
		since = "before that turn"
	case review.Uncommitted:
		since = "in the last commit"
	}
	if req.Hunk == 0 || f.Status != review.Modified {
		return fmt.Sprintf("The person reverted %s to how it was %s (%s). Read it again before relying on what you saw earlier.", f.Path, since, RestoreVerb(revertStatus(f.Status)))
	}
	return fmt.Sprintf("The person reverted one change in %s, at %s: those lines are as they were %s, and the rest of the file is as it was. Read it again before relying on what you saw earlier.", f.Path, changedLines(f.Hunks[req.Hunk-1]), since)
}

// changedLines names where a hunk's changes are in the new file: "line 5", "lines 5–7".
func changedLines(h review.Hunk) string {
	first, last, at := 0, 0, h.NewStart
	for _, l := range h.Lines {
		switch l.Kind {
		case review.Add:
			if first == 0 {
				first = l.New
			}
			last = l.New
		case review.Context:
			at = l.New + 1
		case review.Delete:
			if first == 0 {
				first, last = at, at
			}
		}
	}
	if first == last {
		return fmt.Sprintf("line %d", first)
	}
	return fmt.Sprintf("lines %d–%d", first, last)
}

// revertStatus is what a revert does to a file, as a restore's status: taking back an
// added file removes it.
func revertStatus(s review.Status) checkpoint.Status {
	switch s {
	case review.Added:
		return checkpoint.Deleted
	case review.Deleted:
		return checkpoint.Added
	}
	return checkpoint.Modified
}
