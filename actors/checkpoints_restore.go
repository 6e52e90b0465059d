package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

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
	// RestoreBack undoes an earlier restore: the files it changed are back as they were
	// just before it ("Undo the rewind").
	RestoreBack RestoreKind = "undo-restore"
)

// RestorePlan is what a restore will do, shown to the person before it is applied.
type RestorePlan struct {
	Kind RestoreKind
	// Checkpoint is what an Undo or a Rewind goes back to; Restore is the restore a
	// RestoreBack undoes.
	Checkpoint Checkpoint
	Restore    RestoreRecord
	// Files are the files the restore changes when the person's own changes are kept (the
	// default), with what happens to each relative to the files as they are now ("deleted"
	// means the restore removes the file); Diff is the unified diff it applies.
	Files []FileChange
	Diff  string
	// Yours are the files changed by the person (or another program) between the agent's
	// calls or since the last one, which the restore would otherwise overwrite: they are
	// kept as the person last left them unless OverwriteYours is set. AllFiles and AllDiff
	// are what the restore changes then.
	Yours    []string
	AllFiles []FileChange
	AllDiff  string
	// OverwriteYours is the person's choice: overwrite their own changes too.
	OverwriteYours bool
	// Conflicts are files of an Undo (or of the undone restore) that a later call changed;
	// restoring overwrites those changes, so ApplyRestore asks for overwrite.
	Conflicts []string
	// current is the snapshot the plan was made against; target is the tree the restore
	// makes when it overwrites the person's changes, keep the one when it keeps them.
	current, target, keep string
	// lastID is the conversation's newest checkpoint, lastRestore its newest restore, when
	// the plan was made.
	lastID      domain.ExecID
	lastRestore int
}

// Empty reports whether the restore would change nothing, whatever the choice.
func (p RestorePlan) Empty() bool { return len(p.Files) == 0 && len(p.AllFiles) == 0 }

// Chosen is what the restore changes with the person's choice (OverwriteYours), and its diff.
func (p RestorePlan) Chosen() ([]FileChange, string) {
	if p.OverwriteYours {
		return p.AllFiles, p.AllDiff
	}
	return p.Files, p.Diff
}

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
// before a checkpoint) would change now, with its diff, the files the person changed
// themselves, and the files a later call changed.
func (r *Runtime) PlanRestore(ctx context.Context, id string, kind RestoreKind, ckpt domain.ExecID) (RestorePlan, error) {
	if kind != RestoreUndo && kind != RestoreRewind {
		return RestorePlan{}, fmt.Errorf("unknown restore kind %q", kind)
	}
	return r.planRestore(ctx, id, kind, ckpt, 0)
}

// PlanUndoRestore works out what undoing restore n (RestoreRecord.N) would change now: the
// files it changed go back to how they were just before it.
func (r *Runtime) PlanUndoRestore(ctx context.Context, id string, n int) (RestorePlan, error) {
	return r.planRestore(ctx, id, RestoreBack, 0, n)
}

func (r *Runtime) planRestore(ctx context.Context, id string, kind RestoreKind, ckpt domain.ExecID, n int) (RestorePlan, error) {
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
	all, err := r.Checkpoints(ctx, id)
	if err != nil {
		return RestorePlan{}, err
	}
	restores, err := r.Restores(ctx, id)
	if err != nil {
		return RestorePlan{}, err
	}
	plan := RestorePlan{Kind: kind}
	if len(all) > 0 {
		plan.lastID = all[len(all)-1].ID
	}
	if len(restores) > 0 {
		plan.lastRestore = restores[len(restores)-1].N
	}
	var known *knownTree
	if k, ok := r.knownTree(id); ok {
		known = &k
	}
	ss := spans(all, restores, known)
	from := -1
	if kind == RestoreBack {
		for _, rec := range restores {
			if rec.N == n {
				plan.Restore = rec
			}
		}
		if plan.Restore.N == 0 {
			return RestorePlan{}, fmt.Errorf("conversation %s has no restore %d to take back (see phoenix-desktop checkpoints %s)", id, n, id)
		}
		from = slices.IndexFunc(ss, func(s span) bool { return s.restore == n })
	} else {
		if plan.Checkpoint, _, err = r.checkpointByID(ctx, id, ckpt); err != nil {
			return RestorePlan{}, err
		}
		from = slices.IndexFunc(ss, func(s span) bool { return s.ckpt == ckpt })
	}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return RestorePlan{}, fmt.Errorf("restore files of %s: %w", id, err)
	}
	current, err := repo.Snapshot(ctx)
	if err != nil {
		return RestorePlan{}, fmt.Errorf("read the working tree: %w", err)
	}
	plan.current = current
	yours, err := personsChanges(ctx, repo, ss, from, current)
	if err != nil {
		return RestorePlan{}, err
	}
	if kind == RestoreRewind {
		plan.target = plan.Checkpoint.Before
		if plan.keep, err = repo.Compose(ctx, plan.target, keepOverlays(yours, nil)); err != nil {
			return RestorePlan{}, err
		}
	} else {
		// An Undo brings back the files of one span (a call, or a restore being undone) and
		// leaves the rest as it is; the person's own changes to those files are left as
		// they are unless overwritten.
		before, after, files := plan.Checkpoint.Before, plan.Checkpoint.After, plan.Checkpoint.Files
		if kind == RestoreBack {
			before, after, files = plan.Restore.Before, plan.Restore.After, plan.Restore.Files
		}
		if after == "" {
			// The app stopped during it: what it changed is unknown, so everything changed
			// since it began counts.
			after = current
			if files, err = repo.Changes(ctx, before, current); err != nil {
				return RestorePlan{}, err
			}
		}
		paths := checkpoint.Paths(files)
		if plan.target, err = repo.Compose(ctx, current, []checkpoint.Overlay{{Tree: before, Paths: paths}}); err != nil {
			return RestorePlan{}, err
		}
		notYours := slices.DeleteFunc(slices.Clone(paths), func(p string) bool { _, ok := yours[p]; return ok })
		if plan.keep, err = repo.Compose(ctx, current, []checkpoint.Overlay{{Tree: before, Paths: notYours}}); err != nil {
			return RestorePlan{}, err
		}
		changedSince, err := repo.Changes(ctx, after, current)
		if err != nil {
			return RestorePlan{}, err
		}
		for _, c := range changedSince {
			if _, mine := yours[c.Path]; !mine && slices.Contains(paths, c.Path) {
				plan.Conflicts = append(plan.Conflicts, c.Path)
			}
		}
	}
	if plan.AllFiles, err = repo.Changes(ctx, current, plan.target); err != nil {
		return RestorePlan{}, err
	}
	if len(plan.AllFiles) > 0 {
		if plan.AllDiff, err = repo.Diff(ctx, current, plan.target, checkpoint.Paths(plan.AllFiles)); err != nil {
			return RestorePlan{}, err
		}
	}
	plan.Files, plan.Diff = plan.AllFiles, plan.AllDiff
	if plan.keep != plan.target {
		differ, err := repo.Changes(ctx, plan.target, plan.keep)
		if err != nil {
			return RestorePlan{}, err
		}
		plan.Yours = checkpoint.Paths(differ)
		if plan.Files, err = repo.Changes(ctx, current, plan.keep); err != nil {
			return RestorePlan{}, err
		}
		plan.Diff = ""
		if len(plan.Files) > 0 {
			if plan.Diff, err = repo.Diff(ctx, current, plan.keep, checkpoint.Paths(plan.Files)); err != nil {
				return RestorePlan{}, err
			}
		}
	}
	return plan, nil
}

// ApplyRestore carries out a plan, keeping the person's own changes unless the plan's
// OverwriteYours is set. The working tree is checked again first: if it changed since the
// plan was made, or the plan has conflicts (files a later call changed) and overwrite is
// false, nothing is restored and the error says which files (ErrRestoreConflict). Before any
// file changes, the tree as it is is recorded (the returned RestoreRecord, which
// PlanUndoRestore undoes). The conversation must be at rest; the agent is told what was
// restored. A plan that changes nothing returns a zero record.
func (r *Runtime) ApplyRestore(ctx context.Context, id string, plan RestorePlan, overwrite bool) (RestoreRecord, error) {
	// The actor grants the restore only at rest and refuses every message until it ends
	// (restore.go): nothing can start a turn while the tree is written.
	if err := r.restoreGate(ctx, id, true); err != nil {
		return RestoreRecord{}, err
	}
	defer func() {
		// A fresh context: the restore must end even when the caller's was cancelled.
		if err := r.restoreGate(context.Background(), id, false); err != nil {
			r.log.Warn("could not end the restore; the conversation refuses messages until the app restarts", "conversation", id, "error", err)
		}
	}()
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return RestoreRecord{}, fmt.Errorf("restore files of %s: %w", id, err)
	}
	fresh, err := r.planRestore(ctx, id, plan.Kind, plan.Checkpoint.ID, plan.Restore.N)
	if err != nil {
		return RestoreRecord{}, err
	}
	if fresh.current != plan.current {
		return RestoreRecord{}, fmt.Errorf("%w: the files changed since the restore was shown; look at it again", ErrRestoreConflict)
	}
	if len(fresh.Conflicts) > 0 && !overwrite {
		return RestoreRecord{}, fmt.Errorf("%w: %s; confirm to overwrite them", ErrRestoreConflict, strings.Join(fresh.Conflicts, ", "))
	}
	fresh.OverwriteYours = plan.OverwriteYours
	files, _ := fresh.Chosen()
	if len(files) == 0 {
		return RestoreRecord{}, nil
	}
	tree := fresh.keep
	if fresh.OverwriteYours {
		tree = fresh.target
	}
	repo, err := r.checkpointRepo(ctx, conv)
	if err != nil {
		return RestoreRecord{}, err
	}
	rec := RestoreRecord{N: fresh.lastRestore + 1, Kind: fresh.Kind, Checkpoint: fresh.Checkpoint.ID, Undoes: fresh.Restore.N,
		Before: fresh.current, Since: fresh.lastID, Files: files, At: time.Now()}
	if !fresh.OverwriteYours {
		rec.Kept = fresh.Yours
	}
	// The way back is on disk before the first file changes.
	if err := r.saveRestore(id, rec); err != nil {
		return RestoreRecord{}, err
	}
	if r.restoreHook != nil {
		r.restoreHook()
	}
	after, err := repo.Restore(ctx, fresh.current, tree, checkpoint.Paths(files))
	if errors.Is(err, checkpoint.ErrMoved) {
		if derr := r.cfg.Store.DeleteAux(id, restoreName(rec.N)); derr != nil {
			r.log.Warn("could not remove the record of a restore that did not happen", "conversation", id, "error", derr)
		}
		return RestoreRecord{}, fmt.Errorf("%w: the files changed since the restore was shown; look at it again", ErrRestoreConflict)
	}
	if err != nil {
		// Some files may have changed: the record (its Before) stays, so it can be undone.
		return RestoreRecord{}, fmt.Errorf("restore files: %w", err)
	}
	rec.After = after
	if err := r.saveRestore(id, rec); err != nil {
		r.log.Warn("could not complete the record of a restore; undoing it compares with the current files instead", "conversation", id, "error", err)
	}
	var before domain.Message
	if fresh.Kind == RestoreRewind {
		// Only for the words of the notice: without the message it names no message.
		before, _ = r.cfg.Store.Message(id, fresh.Checkpoint.MsgSeq)
	}
	summary := restoreSummary(fresh, files, before)
	if err := r.event(ctx, id, domain.UserRestoredFiles{Summary: summary}); err != nil {
		// The files are restored; only the notice to the agent is missing.
		r.publish(Notice{ConvID: id, Level: NoticeWarning, Text: "The files were restored, but the agent could not be told: " + err.Error()})
	}
	return rec, nil
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
// by internal ids; files are what was restored; before is the user message a Rewind goes
// back before (zero if unknown).
func restoreSummary(p RestorePlan, files []FileChange, before domain.Message) string {
	var b strings.Builder
	switch p.Kind {
	case RestoreUndo:
		fmt.Fprintf(&b, "The person undid the changes of your %s call%s. These files are back as they were before it:", p.Checkpoint.Tool, atClock(p.Checkpoint.At))
	case RestoreBack:
		what := "rewind"
		switch p.Restore.Kind {
		case RestoreRevert:
			what = "revert"
		case RestoreRewind:
		default:
			what = "undo"
		}
		fmt.Fprintf(&b, "The person took back their %s%s. These files are back as they were before it:", what, atClock(p.Restore.At))
	default:
		what := "the person's message"
		if q := quoteStart(before.Text); q != "" {
			what += " " + q
		}
		fmt.Fprintf(&b, "The person rewound the working directory to how it was before %s%s. These files changed:", what, atClock(before.At))
	}
	for _, f := range files {
		fmt.Fprintf(&b, "\n- %s (%s)", f.Path, RestoreVerb(f.Status))
	}
	if !p.OverwriteYours && len(p.Yours) > 0 {
		b.WriteString("\nThe person's own changes to these files were kept as they left them: " + strings.Join(p.Yours, ", ") + ".")
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

// knownTree is the working tree as the last restore left it, as builds before restore
// records (RestoreRecord) kept it: read only for a conversation that has no restore record,
// so that its last restore's own changes are not taken for the person's.
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
