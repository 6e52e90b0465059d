package actors

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/review"
)

// lines40 is a file of forty numbered lines, with some of them replaced.
func lines40(change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// escaped is text as the fake model's patch line takes it.
func escaped(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// TestRevertOneHunkOfTwoAndUndo: the agent changes a file in two places; the person changes
// another line of it and another file themselves. Reverting hunk 1 of the turn brings back
// that hunk's lines only: hunk 2, the person's line and their other file stay. The agent is
// told; the revert is a restore that "Undo the revert" takes back; a revert numbered against
// files that changed since is refused.
func TestRevertOneHunkOfTwoAndUndo(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	path := filepath.Join(h.cwd, "f.txt")
	writeFile(t, path, lines40(nil))
	c := h.create(NewConversation{Unrestricted: true})
	agent := lines40(map[int]string{5: "five by the agent", 30: "thirty by the agent"})
	h.turn(c.ID, "patch: f.txt <<< "+escaped(agent))

	ch, err := h.rt.Changes(ctx, c.ID, ChangesScope{Kind: review.Turn})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 1 || ch.Files[0].Path != "f.txt" || len(ch.Files[0].Hunks) != 2 {
		t.Fatalf("changes of the turn: %+v", ch)
	}
	// The person's own edits, outside the hunks.
	mine := strings.Replace(agent, "line 18\n", "line 18 by me\n", 1)
	writeFile(t, path, mine)
	writeFile(t, filepath.Join(h.cwd, "other.txt"), "mine\n")

	// Numbered against the files before the person's edit: refused, nothing changes.
	if _, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Turn}, Path: "f.txt", Hunk: 1, Expect: ch.To}); !isConflict(err) {
		t.Fatalf("a revert against files that changed since: %v", err)
	}
	if readFile(t, path) != mine {
		t.Fatal("a refused revert changed the file")
	}
	ch, err = h.rt.Changes(ctx, c.ID, ChangesScope{Kind: review.Turn})
	if err != nil || len(ch.Files) != 2 || len(ch.Files[0].Hunks) != 3 {
		t.Fatalf("changes after the person's edit: %v %+v", err, ch)
	}
	rec, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Turn}, Path: "f.txt", Hunk: 1, Expect: ch.To})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(mine, "five by the agent", "line 5", 1)
	if got := readFile(t, path); got != want {
		t.Fatalf("after reverting hunk 1:\n%s\nwant\n%s", got, want)
	}
	if readFile(t, filepath.Join(h.cwd, "other.txt")) != "mine\n" {
		t.Fatal("the revert touched another file")
	}
	if rec.Kind != RestoreRevert || rec.Hunk != 1 || len(rec.Files) != 1 || !rec.Complete() {
		t.Fatalf("revert record: %+v", rec)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "reverted one change in f.txt, at line 5: those lines are as they were before that turn")

	// Undo the revert: the file is as it was just before it.
	plan, err := h.rt.PlanUndoRestore(ctx, c.ID, rec.N)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != mine {
		t.Fatalf("after undoing the revert:\n%s\nwant\n%s", got, mine)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "took back their revert")

	// A whole file: the added file goes, f.txt is as before the turn.
	if _, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Conversation}, Path: "f.txt"}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, path) != lines40(nil) {
		t.Fatalf("after reverting the whole file: %s", readFile(t, path))
	}
	if _, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Conversation}, Path: "f.txt", Hunk: 1}); err == nil {
		t.Fatal("a revert of a file with no changes left was not refused")
	}
}

func isConflict(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrRestoreConflict.Error())
}

// TestRevertRefusedWhileBusy: as Rewind, a revert waits for rest; nothing is written while
// the agent works.
func TestRevertRefusedWhileBusy(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	path := filepath.Join(h.cwd, "f.txt")
	writeFile(t, path, lines40(nil))
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, "patch: f.txt <<< "+escaped(lines40(map[int]string{5: "five"})))
	h.send(c.ID, "delay: 20000\necho: slow")
	_, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Conversation}, Path: "f.txt", Hunk: 1})
	isErr(t, err, domain.ErrAgentBusy)
	if readFile(t, path) == lines40(nil) {
		t.Fatal("a revert refused while busy changed the file")
	}
	if err := h.rt.Cancel(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitRest(c.ID)
	if _, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Conversation}, Path: "f.txt", Hunk: 1}); err != nil {
		t.Fatalf("the revert at rest: %v", err)
	}
	if readFile(t, path) != lines40(nil) {
		t.Fatal("the revert at rest did not bring the line back")
	}
}

// TestUncommittedChangesAgainstHead: in a git repository, the uncommitted scope compares the
// files with HEAD (what the person changed before the conversation too, and a new file), and
// a whole-file revert there brings back the committed file; the person's repository gains
// no object and no index change.
func TestUncommittedChangesAgainstHead(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = h.cwd
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	writeFile(t, filepath.Join(h.cwd, "sub", "f.txt"), lines40(nil))
	git("add", "-A")
	git("commit", "-qm", "first")
	writeFile(t, filepath.Join(h.cwd, "sub", "f.txt"), lines40(map[int]string{2: "two by me"}))
	c := h.create(NewConversation{Unrestricted: true, Cwd: filepath.Join(h.cwd, "sub")})
	h.turn(c.ID, "patch: new.txt <<< new\\n")
	status := git("status", "--porcelain")

	ch, err := h.rt.Changes(ctx, c.ID, ChangesScope{Kind: review.Uncommitted})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Files) != 2 || ch.Files[0].Path != "f.txt" || ch.Files[1].Path != "new.txt" || ch.Files[1].Status != review.Added {
		t.Fatalf("uncommitted changes: %+v", ch.Files)
	}
	if _, err := h.rt.Revert(ctx, c.ID, RevertRequest{Scope: ChangesScope{Kind: review.Uncommitted}, Path: "f.txt"}); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(h.cwd, "sub", "f.txt")) != lines40(nil) {
		t.Fatal("the committed file is not back")
	}
	if got := git("status", "--porcelain"); got != strings.Replace(status, " M sub/f.txt\n", "", 1) {
		t.Fatalf("git status after the revert:\n%s\nbefore:\n%s", got, status)
	}
}
