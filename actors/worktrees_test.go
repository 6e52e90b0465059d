package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/worktree"
)

// gitInit makes dir a repository on main with one commit of what it holds.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// A conversation made in a worktree works there: its edits, Undo and Rewind touch the
// worktree only, the list names the worktree, and a merge brings the work to the base.
func TestConversationWorksInItsWorktree_Issue34(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a1\n")
	gitInit(t, h.cwd)
	c := h.create(NewConversation{Unrestricted: true, Worktree: true, WorktreeName: "Change a"})
	w := c.Worktree
	if w == nil || w.Branch != "phoenix/change-a" || w.Base != "main" || c.Cwd != w.Path {
		t.Fatalf("conversation %s in %s with worktree %+v", c.ID, c.Cwd, w)
	}
	if want := worktree.Place(h.cwd, "change-a"); w.Path != want {
		t.Errorf("worktree at %s, want %s", w.Path, want)
	}
	list, err := h.rt.List(ctx, false)
	if err != nil || len(list) != 1 || list[0].Worktree == nil || *list[0].Worktree != *w {
		t.Fatalf("list: %+v, %v", list, err)
	}

	h.turn(c.ID, "patch: a.txt <<< a2\\n")
	// A fork works in the same folder, so it is in the same worktree and can merge it.
	if f, err := h.rt.Fork(ctx, c.ID, 0); err != nil || f.Worktree == nil || *f.Worktree != *w || f.Cwd != c.Cwd {
		t.Fatalf("fork: %+v in %s, %v", f.Worktree, f.Cwd, err)
	}
	if got := readFile(t, filepath.Join(w.Path, "a.txt")); got != "a2\n" {
		t.Fatalf("the worktree's a.txt is %q", got)
	}
	if got := readFile(t, filepath.Join(h.cwd, "a.txt")); got != "a1\n" {
		t.Fatalf("the main working tree's a.txt is %q, want it untouched", got)
	}
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints: %v, %v", cps, err)
	}
	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreRewind, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(w.Path, "a.txt")); got != "a1\n" {
		t.Fatalf("after Rewind the worktree's a.txt is %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.Path, ".git")); err != nil {
		t.Fatalf("Rewind took the worktree's .git: %v", err)
	}

	// The Rewind's own state changes are still to be read.
	h.freshTurn(c.ID, "patch: a.txt <<< a3\\n")
	if err := h.rt.RemoveWorktree(ctx, c.ID, false); !errors.Is(err, worktree.ErrUnmerged) {
		t.Fatalf("remove with unmerged work: %v", err)
	}
	res, err := h.rt.MergeWorktree(ctx, c.ID)
	if err != nil || !res.FastForward || !res.Committed {
		t.Fatalf("merge: %+v, %v", res, err)
	}
	if got := readFile(t, filepath.Join(h.cwd, "a.txt")); got != "a3\n" {
		t.Fatalf("after the merge the main working tree's a.txt is %q", got)
	}
	if err := h.rt.RemoveWorktree(ctx, c.ID, false); err != nil {
		t.Fatalf("remove after the merge: %v", err)
	}
	st, err := h.rt.WorktreeStatus(ctx, c.ID)
	if err != nil || st.Present || !st.BranchGone {
		t.Fatalf("status after the removal: %+v, %v", st, err)
	}
}

func TestWorktreeRefusals_Issue34(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	// Not a repository: nothing is made.
	if _, err := h.rt.Create(ctx, NewConversation{Cwd: h.cwd, Worktree: true}); !errors.Is(err, worktree.ErrNotRepository) {
		t.Fatalf("a worktree of a folder outside git: %v", err)
	}
	if list, _ := h.rt.List(ctx, false); len(list) != 0 {
		t.Fatalf("a refused worktree left a conversation: %+v", list)
	}
	c := h.create(NewConversation{})
	if _, err := h.rt.MergeWorktree(ctx, c.ID); !errors.Is(err, ErrNoWorktree) || !strings.Contains(err.Error(), c.Cwd) {
		t.Fatalf("merge of a conversation without a worktree: %v", err)
	}
}

// Issue 34: three conversations in worktrees of one repository run turns at the same time
// in Project mode, each patching and committing with bash: no file of one appears in
// another, the main working tree is untouched until a merge, and all three merge cleanly in
// turn.
func TestThreeWorktreesAtOnceInProjectMode_Issue34(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	if ok, why := sandbox.ProjectAvailable(); !h.cfg.Sandbox.Available || !ok {
		t.Skipf("Project mode is unavailable here: %s", why)
	}
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a\n")
	gitInit(t, h.cwd)
	var convs []domain.Conversation
	for i := range 3 {
		c := h.create(NewConversation{Mode: domain.ModeProject, Worktree: true, WorktreeName: fmt.Sprintf("agent %d", i)})
		if c.Mode != domain.ModeProject || c.Worktree == nil {
			t.Fatalf("conversation %d: mode %s, worktree %+v", i, c.Mode, c.Worktree)
		}
		convs = append(convs, c)
	}
	for i, c := range convs {
		h.send(c.ID, fmt.Sprintf("patch: file-%d.txt <<< from %d\\n\nbash: git add -A && git -c user.name=a -c user.email=a@example.com commit -q -m agent-%d && echo committed-%d", i, i, i, i))
	}
	rested := map[string]bool{}
	deadline := time.NewTimer(2 * time.Minute)
	defer deadline.Stop()
	for len(rested) < len(convs) {
		select {
		case ev := <-h.sub.Events():
			if sc, ok := ev.(StateChanged); ok && !domain.Busy(sc.Conv.State) && sc.Conv.NextSeq >= 4 {
				rested[sc.Conv.ID] = true
			}
		case <-deadline.C:
			t.Fatalf("only %d of the three turns ended", len(rested))
		}
	}
	for i, c := range convs {
		res := results(h.history(c.ID))
		if len(res) != 2 || !strings.Contains(res[1].Content, fmt.Sprintf("committed-%d", i)) {
			t.Fatalf("conversation %d's results: %+v", i, res)
		}
		for j := range convs {
			_, err := os.Stat(filepath.Join(c.Worktree.Path, fmt.Sprintf("file-%d.txt", j)))
			if (err == nil) != (i == j) {
				t.Errorf("worktree %d holds file-%d.txt: %v", i, j, err == nil)
			}
		}
		if _, err := os.Stat(filepath.Join(h.cwd, fmt.Sprintf("file-%d.txt", i))); err == nil {
			t.Errorf("the main working tree holds file-%d.txt before any merge", i)
		}
	}
	for i, c := range convs {
		res, err := h.rt.MergeWorktree(ctx, c.ID)
		if err != nil || res.Committed || res.UpToDate {
			t.Fatalf("merge %d: %+v, %v", i, res, err)
		}
	}
	for i := range convs {
		if got := readFile(t, filepath.Join(h.cwd, fmt.Sprintf("file-%d.txt", i))); got != fmt.Sprintf("from %d\n", i) {
			t.Errorf("after the merges file-%d.txt is %q", i, got)
		}
	}
}

// Issue 34: removing a conversation's worktree is undoable as Rewind is. The removal keeps
// the branch and the agent's changes not committed; RestoreWorktree brings both back, the
// conversation works there again, and deleting the conversation drops what was kept.
func TestRemovedWorktreeComesBackAndWorksAgain_Issue34(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a1\n")
	gitInit(t, h.cwd)
	c := h.create(NewConversation{Unrestricted: true, Worktree: true, WorktreeName: "Undo removal"})
	w := c.Worktree
	h.turn(c.ID, "patch: a.txt <<< a2\\n")
	if err := h.rt.RestoreWorktree(ctx, c.ID); !errors.Is(err, ErrNothingKept) {
		t.Fatalf("restore before any removal: %v", err)
	}
	if err := h.rt.RemoveWorktree(ctx, c.ID, true); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if st, err := h.rt.WorktreeStatus(ctx, c.ID); err != nil || st.Present || !st.BranchGone {
		t.Fatalf("status after the removal: %+v, %v", st, err)
	}
	if err := h.rt.RestoreWorktree(ctx, c.ID); err != nil {
		t.Fatalf("restore: %v", err)
	}
	st, err := h.rt.WorktreeStatus(ctx, c.ID)
	if err != nil || !st.Present || st.BranchGone || !st.Dirty {
		t.Fatalf("status after the restore: %+v, %v", st, err)
	}
	if got := readFile(t, filepath.Join(w.Path, "a.txt")); got != "a2\n" {
		t.Fatalf("the agent's change came back as %q", got)
	}
	// The removal's and the restore's state changes are still to be read.
	h.freshTurn(c.ID, "patch: b.txt <<< b\\n")
	if got := readFile(t, filepath.Join(w.Path, "b.txt")); got != "b\n" {
		t.Fatalf("the turn after the restore wrote b.txt as %q", got)
	}

	if err := h.rt.RemoveWorktree(ctx, c.ID, true); err != nil {
		t.Fatalf("second removal: %v", err)
	}
	if kept := gitOut(t, h.cwd, "for-each-ref", worktree.KeptPrefix+c.ID+"/"); kept == "" {
		t.Fatal("the removal kept nothing")
	}
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if kept := gitOut(t, h.cwd, "for-each-ref", worktree.KeptPrefix); kept != "" {
		t.Errorf("refs kept for a deleted conversation: %q", kept)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}
