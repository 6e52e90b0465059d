package actors

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// Whose change is whose. The files of a working tree change in spans: an agent call (its
// checkpoint's Before → After) or a restore the person applied (its record's Before →
// After). What changed between the end of one span and the start of the next — the
// checkpoint taken before a call against the one after the call before it, or the tree now
// against the last span — was changed by the person or a program of theirs: "changed by you".
// A restore keeps those changes unless the person chooses to overwrite them, and every
// restore first records the tree as it was (RestoreRecord), so that it can be undone exactly.

// RestoreRecord is one restore the person applied (an Undo, a Rewind, or the undoing of an
// earlier restore), kept in the store (aux "restore/<n>") so that it can be undone: Before is
// the snapshot of the working tree just before it, recorded before any file changed.
type RestoreRecord struct {
	// N numbers the conversation's restores: 1, 2, … in the order they were applied.
	N    int         `json:"n"`
	Kind RestoreKind `json:"kind"`
	// Checkpoint is what an Undo or a Rewind went back to; Undoes is the restore that a
	// RestoreBack undid.
	Checkpoint domain.ExecID `json:"checkpoint,omitempty"`
	Undoes     int           `json:"undoes,omitempty"`
	// Before and After are snapshot ids; After is empty if the app stopped during the restore.
	Before string `json:"before"`
	After  string `json:"after,omitempty"`
	// Since is the conversation's newest checkpoint when the restore was applied.
	Since domain.ExecID `json:"since"`
	// Files are what the restore changed (relative to the tree before it); Kept are files
	// changed by the person that it left as the person had them.
	Files []FileChange `json:"files,omitempty"`
	Kept  []string     `json:"kept,omitempty"`
	// Hunk is the hunk a RestoreRevert took back (0: the whole file).
	Hunk int       `json:"hunk,omitempty"`
	At   time.Time `json:"at"`
}

// Complete reports whether the restore finished.
func (r RestoreRecord) Complete() bool { return r.After != "" }

const auxRestorePrefix = "restore/"

func restoreName(n int) string { return fmt.Sprintf("%s%020d", auxRestorePrefix, n) }

// Restores lists the restores the person applied in a conversation, oldest first.
func (r *Runtime) Restores(ctx context.Context, id string) ([]RestoreRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	items, err := r.cfg.Store.AuxList(id, auxRestorePrefix)
	if err != nil {
		return nil, fmt.Errorf("list the restores of %s: %w", id, err)
	}
	out := make([]RestoreRecord, 0, len(items))
	for _, it := range items {
		var rec RestoreRecord
		if err := json.Unmarshal(it.Value, &rec); err != nil {
			r.log.Error("a restore record does not decode; it is skipped", "conversation", id, "record", it.Name, "error", err)
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

func (r *Runtime) saveRestore(id string, rec RestoreRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	// Flushed: it is the only way back to the files as they were before the restore.
	if err := r.cfg.Store.PutAux(id, restoreName(rec.N), b); err != nil {
		return fmt.Errorf("record the files as they are before restoring (nothing was restored): %w", err)
	}
	return nil
}

// span is a stretch of time in which files changed on the agent's account (a call) or by a
// restore, with the snapshots before and after it ("" when unknown).
type span struct {
	before, after string
	ckpt          domain.ExecID // the call's checkpoint, or 0
	restore       int           // the restore's number, or 0
}

// spans puts the calls and restores in the order they happened: a restore comes after the
// newest checkpoint of its time (Since), restores among themselves by number. known is the
// tree an earlier build recorded after its last restore (knownTree), used only when there is
// no restore record.
func spans(all []Checkpoint, restores []RestoreRecord, known *knownTree) []span {
	type keyed struct {
		k1 domain.ExecID
		k2 int
		s  span
	}
	var ks []keyed
	for _, c := range all {
		ks = append(ks, keyed{c.ID, 0, span{before: c.Before, after: c.After, ckpt: c.ID}})
	}
	for _, rec := range restores {
		ks = append(ks, keyed{rec.Since, rec.N, span{before: rec.Before, after: rec.After, restore: rec.N}})
	}
	if len(restores) == 0 && known != nil {
		ks = append(ks, keyed{known.Since, 1, span{after: known.Tree}})
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := cmp.Compare(a.k1, b.k1); c != 0 {
			return c
		}
		return cmp.Compare(a.k2, b.k2)
	})
	out := make([]span, len(ks))
	for i, k := range ks {
		out[i] = k.s
	}
	return out
}

// personsChanges returns the files the person changed after span from began: for each, the
// snapshot of the tree as the person last left it (the start of the span that followed
// their change, or current for a change made since the last span). A gap next to a span
// whose end or start is unknown (a call during which the app stopped) counts as the agent's.
func personsChanges(ctx context.Context, repo CheckpointRepo, ss []span, from int, current string) (map[string]string, error) {
	out := map[string]string{}
	if from < 0 {
		// Not in the timeline: nothing after it is known.
		return out, nil
	}
	for i := from; i < len(ss); i++ {
		a, b := ss[i].after, current
		if i+1 < len(ss) {
			b = ss[i+1].before
		}
		if a == "" || b == "" || a == b {
			continue
		}
		ch, err := repo.Changes(ctx, a, b)
		if err != nil {
			return nil, err
		}
		for _, c := range ch {
			out[c.Path] = b
		}
	}
	return out, nil
}

// keepOverlays groups the person's files by the snapshot they are kept from, for Compose.
func keepOverlays(yours map[string]string, only func(string) bool) []checkpoint.Overlay {
	byTree := map[string][]string{}
	var trees []string
	for p, t := range yours {
		if only != nil && !only(p) {
			continue
		}
		if _, ok := byTree[t]; !ok {
			trees = append(trees, t)
		}
		byTree[t] = append(byTree[t], p)
	}
	slices.Sort(trees)
	var out []checkpoint.Overlay
	for _, t := range trees {
		slices.Sort(byTree[t])
		out = append(out, checkpoint.Overlay{Tree: t, Paths: byTree[t]})
	}
	return out
}
