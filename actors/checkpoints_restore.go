package actors

import (
	"context"
	"encoding/json"
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
