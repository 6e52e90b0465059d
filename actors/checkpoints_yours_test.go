package actors

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// snapshotNow is the checkpoint repository's snapshot of the conversation's tree as it is.
func snapshotNow(t *testing.T, h *harness, id string) string {
	t.Helper()
	conv, err := h.store.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	repo, err := h.rt.checkpointRepo(context.Background(), conv)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := repo.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestRewindKeepsWhatThePersonChangedBetweenCalls is the reported loss: the agent adds
// agent.txt, the person then makes mine.txt and .claude/commands/review.md by hand, a later
// call changes notes.txt, and a Rewind to the first call removed the person's files too,
// naming them as plain "removed" lines and keeping no way back. Now they are the person's
// ("changed by you"), kept unless the person chooses to overwrite them, and every rewind
// can be taken back exactly.
func TestRewindKeepsWhatThePersonChangedBetweenCalls(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	notes, agent, mine := filepath.Join(h.cwd, "notes.txt"), filepath.Join(h.cwd, "agent.txt"), filepath.Join(h.cwd, "mine.txt")
	review := filepath.Join(h.cwd, ".claude", "commands", "review.md")
	writeFile(t, notes, "n1\n")
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, "bash: echo a > agent.txt")
	writeFile(t, mine, "mine\n")
	writeFile(t, review, "review\n")
	h.turn(c.ID, "bash: echo n2 > notes.txt")
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil || len(cps) != 2 {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}

	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreRewind, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".claude/commands/review.md", "mine.txt"}; !slices.Equal(plan.Yours, want) {
		t.Fatalf("changed by you = %q, want %q", plan.Yours, want)
	}
	if got := checkpoint.Paths(plan.Files); !slices.Equal(got, []string{"agent.txt", "notes.txt"}) {
		t.Fatalf("a rewind that keeps the person's files changes %q", got)
	}
	if got := checkpoint.Paths(plan.AllFiles); !slices.Equal(got, []string{".claude/commands/review.md", "agent.txt", "mine.txt", "notes.txt"}) {
		t.Fatalf("a rewind that overwrites them changes %q", got)
	}
	beforeRewind := plan.current
	rec, err := h.rt.ApplyRestore(ctx, c.ID, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, agent) != "<missing>" || readFile(t, notes) != "n1\n" {
		t.Fatalf("the rewind left agent.txt %q, notes.txt %q", readFile(t, agent), readFile(t, notes))
	}
	if readFile(t, mine) != "mine\n" || readFile(t, review) != "review\n" {
		t.Fatalf("the rewind took the person's files: mine.txt %q, review.md %q", readFile(t, mine), readFile(t, review))
	}
	if rec.N != 1 || rec.Before != beforeRewind || !slices.Equal(rec.Kept, plan.Yours) || !rec.Complete() {
		t.Fatalf("restore record = %+v", rec)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "kept as they left them: .claude/commands/review.md, mine.txt.")

	// Undo the rewind: the tree is exactly as it was before it.
	back, err := h.rt.PlanUndoRestore(ctx, c.ID, rec.N)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Yours) != 0 || len(back.Conflicts) != 0 {
		t.Fatalf("undoing an untouched rewind asks about %q / %q", back.Yours, back.Conflicts)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, back, false); err != nil {
		t.Fatal(err)
	}
	if now := snapshotNow(t, h, c.ID); now != beforeRewind {
		t.Fatalf("after undoing the rewind the tree is %s, want %s as before it", now, beforeRewind)
	}

	// Overwriting is the person's choice, and it can be taken back too: nothing is lost.
	plan, err = h.rt.PlanRestore(ctx, c.ID, RestoreRewind, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	plan.OverwriteYours = true
	rec, err = h.rt.ApplyRestore(ctx, c.ID, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, mine) != "<missing>" || readFile(t, review) != "<missing>" || readFile(t, agent) != "<missing>" {
		t.Fatal("a rewind that overwrites left files it should have removed")
	}
	back, err = h.rt.PlanUndoRestore(ctx, c.ID, rec.N)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, back, false); err != nil {
		t.Fatal(err)
	}
	if now := snapshotNow(t, h, c.ID); now != beforeRewind {
		t.Fatalf("after undoing the overwriting rewind the tree is %s, want %s", now, beforeRewind)
	}
	if readFile(t, mine) != "mine\n" || readFile(t, review) != "review\n" || readFile(t, notes) != "n2\n" || readFile(t, agent) != "a\n" {
		t.Fatal("undoing the rewind did not bring every file back")
	}
	all, err := h.rt.Restores(ctx, c.ID)
	if err != nil || len(all) != 4 || all[1].Kind != RestoreBack || all[1].Undoes != 1 || all[3].Undoes != 3 {
		t.Fatalf("restores = %+v, %v", all, err)
	}
}

// TestRewindKeepsThePersonsVersionUnderALaterCall: a file the person changed between calls
// and a later call changed again is kept as the person left it, not as the call left it.
func TestRewindKeepsThePersonsVersionUnderALaterCall(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	notes := filepath.Join(h.cwd, "notes.txt")
	writeFile(t, notes, "n1\n")
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, "bash: echo a > agent.txt")
	writeFile(t, notes, "mine\n")
	h.turn(c.ID, "bash: echo agent >> notes.txt")
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil || len(cps) != 2 {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}
	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreRewind, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Yours, []string{"notes.txt"}) {
		t.Fatalf("changed by you = %q", plan.Yours)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, notes); got != "mine\n" {
		t.Fatalf("notes.txt = %q, want the person's version", got)
	}
}

// TestUndoOfOneCallKeepsThePersonsChangeInBetween: the person changed one of a call's files
// before the next call; undoing the call brings back its other files and keeps the person's,
// and the Undo itself can be undone.
func TestUndoOfOneCallKeepsThePersonsChangeInBetween(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	a, cf, b := filepath.Join(h.cwd, "a.txt"), filepath.Join(h.cwd, "c.txt"), filepath.Join(h.cwd, "b.txt")
	writeFile(t, a, "a1\n")
	writeFile(t, cf, "c1\n")
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, "bash: echo a2 > a.txt && echo c2 > c.txt")
	writeFile(t, a, "mine\n")
	h.turn(c.ID, "bash: echo b > b.txt")
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil || len(cps) != 2 {
		t.Fatalf("checkpoints: %+v, %v", cps, err)
	}
	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreUndo, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plan.Yours, []string{"a.txt"}) || len(plan.Conflicts) != 0 || !slices.Equal(checkpoint.Paths(plan.Files), []string{"c.txt"}) {
		t.Fatalf("undo plan: yours %q conflicts %q files %+v", plan.Yours, plan.Conflicts, plan.Files)
	}
	beforeUndo := plan.current
	rec, err := h.rt.ApplyRestore(ctx, c.ID, plan, false)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, a) != "mine\n" || readFile(t, cf) != "c1\n" || readFile(t, b) != "b\n" {
		t.Fatalf("after the Undo: a.txt %q c.txt %q b.txt %q", readFile(t, a), readFile(t, cf), readFile(t, b))
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "kept as they left them: a.txt.")
	back, err := h.rt.PlanUndoRestore(ctx, c.ID, rec.N)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, back, false); err != nil {
		t.Fatal(err)
	}
	if now := snapshotNow(t, h, c.ID); now != beforeUndo {
		t.Fatalf("after undoing the Undo the tree is %s, want %s", now, beforeUndo)
	}
	// Overwriting the person's change is their choice.
	plan, err = h.rt.PlanRestore(ctx, c.ID, RestoreUndo, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	plan.OverwriteYours = true
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil {
		t.Fatal(err)
	}
	if readFile(t, a) != "a1\n" || readFile(t, cf) != "c1\n" {
		t.Fatalf("an overwriting Undo: a.txt %q c.txt %q", readFile(t, a), readFile(t, cf))
	}
}
