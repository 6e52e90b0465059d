package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a repository on branch main with one commit of the given files, in a folder of
// its own inside a temporary directory (the worktrees go beside it).
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "init", "-q", "-b", "main")
	for name, body := range files {
		write(t, filepath.Join(dir, name), body)
	}
	gitT(t, dir, "add", "-A")
	gitT(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Fix the login bug!":    "fix-the-login-bug",
		"  ":                    "conversation",
		"Ünïcode only é":        "n-code-only",
		strings.Repeat("a", 60): strings.Repeat("a", 40),
	} {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCreateMakesABranchAndAFolderBesideTheRepository(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "sub/b.txt": "b\n"})
	w, cwd, err := Create(ctx, filepath.Join(dir, "sub"), "Fix the bug")
	if err != nil {
		t.Fatal(err)
	}
	if w.Branch != "phoenix/fix-the-bug" || w.Base != "main" || w.Repo != dir {
		t.Errorf("worktree %+v", w)
	}
	if want := filepath.Join(filepath.Dir(dir), "app-worktrees", "fix-the-bug"); w.Path != want {
		t.Errorf("path %s, want %s (beside the repository)", w.Path, want)
	}
	if cwd != filepath.Join(w.Path, "sub") {
		t.Errorf("the conversation's folder %s, want the same sub-folder in the worktree", cwd)
	}
	if got := read(t, filepath.Join(w.Path, "a.txt")); got != "a\n" {
		t.Errorf("the worktree holds %q", got)
	}
	if got := gitT(t, w.Path, "symbolic-ref", "--short", "HEAD"); got != w.Branch {
		t.Errorf("the worktree is on %s", got)
	}
	// A second conversation of the same title gets a branch and a folder of its own.
	w2, _, err := Create(ctx, dir, "Fix the bug")
	if err != nil {
		t.Fatal(err)
	}
	if w2.Branch != "phoenix/fix-the-bug-2" || w2.Path == w.Path {
		t.Errorf("second worktree %+v", w2)
	}
	if _, _, err := Create(ctx, t.TempDir(), "x"); !errors.Is(err, ErrNotRepository) {
		t.Errorf("a folder outside git: %v", err)
	}
}

func TestCreateRunsNoHook(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	mark := filepath.Join(t.TempDir(), "ran")
	write(t, filepath.Join(dir, ".git", "hooks", "post-checkout"), "#!/bin/sh\ntouch "+mark+"\n")
	if err := os.Chmod(filepath.Join(dir, ".git", "hooks", "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Create(ctx, dir, "hooks"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the repository's post-checkout hook ran when the worktree was made")
	}
}

func TestMergeFastForwardsTheCheckedOutBase(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	w, _, err := Create(ctx, dir, "ff")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "new.txt"), "new\n") // not committed: Merge commits it
	res, err := Merge(ctx, w, "Work of the conversation")
	if err != nil {
		t.Fatal(err)
	}
	if !res.FastForward || !res.Committed || res.UpToDate {
		t.Errorf("result %+v", res)
	}
	if got := read(t, filepath.Join(dir, "new.txt")); got != "new\n" {
		t.Errorf("the main working tree after the merge holds %q", got)
	}
	res, err = Merge(ctx, w, "again")
	if err != nil || !res.UpToDate {
		t.Errorf("a second merge: %+v, %v", res, err)
	}
	// Merged: removing asks nothing.
	if err := Remove(ctx, w, false, ""); err != nil {
		t.Fatalf("remove after the merge: %v", err)
	}
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("the worktree's folder is still there")
	}
	if out := gitT(t, dir, "branch", "--list", w.Branch); out != "" {
		t.Errorf("the branch is still there: %s", out)
	}
}

func TestMergeMakesAMergeCommitWhenTheBaseMoved(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	w, _, err := Create(ctx, dir, "merge commit")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "a from the worktree\n")
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	write(t, filepath.Join(dir, "b.txt"), "b from main\n")
	gitT(t, dir, "commit", "-q", "-am", "person")
	res, err := Merge(ctx, w, "Work of the conversation")
	if err != nil {
		t.Fatal(err)
	}
	if res.FastForward || res.UpToDate {
		t.Errorf("result %+v, want a merge commit", res)
	}
	if parents := strings.Fields(gitT(t, dir, "log", "-1", "--format=%P", "main")); len(parents) != 2 {
		t.Errorf("main's head has parents %v, want two", parents)
	}
	if read(t, filepath.Join(dir, "a.txt")) != "a from the worktree\n" || read(t, filepath.Join(dir, "b.txt")) != "b from main\n" {
		t.Error("the main working tree does not hold both sides")
	}
}

func TestMergeIntoABaseNotCheckedOut(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	w, _, err := Create(ctx, dir, "elsewhere")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	// The person moved main on and switched to another branch.
	write(t, filepath.Join(dir, "b.txt"), "person\n")
	gitT(t, dir, "commit", "-q", "-am", "person")
	gitT(t, dir, "switch", "-q", "-c", "other")
	if _, err := Merge(ctx, w, "msg"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, dir, "show", "main:a.txt"); got != "agent" {
		t.Errorf("main holds a.txt %q", got)
	}
	if got := gitT(t, dir, "show", "main:b.txt"); got != "person" {
		t.Errorf("main holds b.txt %q", got)
	}
}

func TestMergeConflictChangesNothingAndNamesTheFiles(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "c.txt": "c\n"})
	w, _, err := Create(ctx, dir, "conflict")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	write(t, filepath.Join(w.Path, "c.txt"), "agent\n")
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	write(t, filepath.Join(dir, "a.txt"), "person\n")
	write(t, filepath.Join(dir, "c.txt"), "person\n")
	gitT(t, dir, "commit", "-q", "-am", "person")
	head := gitT(t, dir, "rev-parse", "HEAD")
	_, err = Merge(ctx, w, "msg")
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("merge: %v, want a conflict", err)
	}
	if !slices.Equal(conflict.Files, []string{"a.txt", "c.txt"}) {
		t.Errorf("conflicted files %v", conflict.Files)
	}
	if !strings.Contains(err.Error(), "a.txt, c.txt") {
		t.Errorf("the message does not name the files: %v", err)
	}
	if gitT(t, dir, "rev-parse", "HEAD") != head || gitT(t, dir, "status", "--porcelain") != "" {
		t.Error("the main working tree changed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); err == nil {
		t.Error("a merge was left under way")
	}
}

func TestRemoveRefusesUnmergedWorkWithoutConfirmation(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	w, _, err := Create(ctx, dir, "unmerged")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	err = Remove(ctx, w, false, "")
	var unmerged *UnmergedError
	if !errors.As(err, &unmerged) || !unmerged.Dirty {
		t.Fatalf("remove of a changed worktree: %v", err)
	}
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	err = Remove(ctx, w, false, "")
	if !errors.As(err, &unmerged) || unmerged.Commits != 1 || unmerged.Dirty || !errors.Is(err, ErrUnmerged) {
		t.Fatalf("remove of an unmerged commit: %v", err)
	}
	if _, err := os.Stat(w.Path); err != nil {
		t.Fatal("a refused removal removed the folder")
	}
	if err := Remove(ctx, w, true, ""); err != nil {
		t.Fatalf("confirmed removal: %v", err)
	}
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("the worktree's folder is still there")
	}
	if _, err := os.Stat(filepath.Dir(w.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Error("the empty folder of worktrees is still there")
	}
}

func TestKeepKeepsTheBranchWithEveryChange(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	w, _, err := Create(ctx, dir, "keep")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	if err := Keep(ctx, w, "kept"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("the worktree's folder is still there")
	}
	if got := gitT(t, dir, "show", w.Branch+":a.txt"); got != "agent" {
		t.Errorf("the kept branch holds %q", got)
	}
	st, err := Look(ctx, w)
	if err != nil || st.Present || st.Unmerged != 1 {
		t.Errorf("status after keep: %+v, %v", st, err)
	}
	// The kept branch's name is taken, though its folder is free.
	again, _, err := Create(ctx, dir, "keep")
	if err != nil || again.Branch != "phoenix/keep-2" {
		t.Errorf("a worktree of the same title after keep: %+v, %v", again, err)
	}
	// Detached and unborn repositories are refused in words.
	gitT(t, dir, "checkout", "-q", "--detach")
	if _, _, err := Create(ctx, dir, "x"); err == nil || !strings.Contains(err.Error(), "detached") {
		t.Errorf("a detached HEAD: %v", err)
	}
	empty := filepath.Join(t.TempDir(), "empty")
	gitT(t, t.TempDir(), "init", "-q", empty)
	if _, _, err := Create(ctx, empty, "x"); err == nil || !strings.Contains(err.Error(), "no commits yet") {
		t.Errorf("a repository without commits: %v", err)
	}
}

func TestMergeLeavesThePersonsChangesAlone(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	w, _, err := Create(ctx, dir, "over yours")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	write(t, filepath.Join(dir, "a.txt"), "the person's edit, not committed\n")
	head := gitT(t, dir, "rev-parse", "HEAD")
	_, err = Merge(ctx, w, "msg")
	if err == nil || !strings.Contains(err.Error(), "nothing was merged") {
		t.Fatalf("merge over the person's changes: %v", err)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "the person's edit, not committed\n" {
		t.Errorf("the person's a.txt is now %q", got)
	}
	if gitT(t, dir, "rev-parse", "HEAD") != head {
		t.Error("main moved")
	}
}

// A removal keeps what it removes, and Restore brings it back as it was: the branch with its
// commit that no other branch holds, the folder with a changed, a deleted and an untracked
// file, none of it committed; the person's stash list is not touched, and the kept refs go.
func TestRemoveIsUndoneByRestore_Issue34(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n", ".gitignore": "out/\n"})
	w, _, err := Create(ctx, dir, "undo me")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "committed\n")
	gitT(t, w.Path, "commit", "-q", "-am", "agent")
	tip := gitT(t, dir, "rev-parse", "refs/heads/"+w.Branch)
	write(t, filepath.Join(w.Path, "a.txt"), "not committed\n")
	if err := os.Remove(filepath.Join(w.Path, "b.txt")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "sub", "new.txt"), "untracked\n")
	write(t, filepath.Join(w.Path, "out", "build.o"), "ignored\n")
	before := gitT(t, w.Path, "status", "--porcelain")

	if err := Remove(ctx, w, true, "conv-1"); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the worktree's folder is still there")
	}
	if out := gitT(t, dir, "branch", "--list", w.Branch); out != "" {
		t.Fatalf("the branch is still there: %q", out)
	}
	if kept := gitT(t, dir, "for-each-ref", "--format=%(refname)", KeptPrefix+"conv-1/"); kept != KeptPrefix+"conv-1/branch\n"+KeptPrefix+"conv-1/worktree" {
		t.Fatalf("kept refs: %q", kept)
	}
	if out := gitT(t, dir, "stash", "list"); out != "" {
		t.Fatalf("the removal used the stash list: %q", out)
	}

	if err := Restore(ctx, w, "conv-1"); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if got := gitT(t, dir, "rev-parse", "refs/heads/"+w.Branch); got != tip {
		t.Fatalf("the branch is back at %s, want %s", got, tip)
	}
	if got := gitT(t, w.Path, "symbolic-ref", "HEAD"); got != "refs/heads/"+w.Branch {
		t.Fatalf("the folder is back on %s", got)
	}
	if got := read(t, filepath.Join(w.Path, "a.txt")); got != "not committed\n" {
		t.Errorf("a.txt is back as %q", got)
	}
	if _, err := os.Stat(filepath.Join(w.Path, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Error("the deleted b.txt came back")
	}
	if got := read(t, filepath.Join(w.Path, "sub", "new.txt")); got != "untracked\n" {
		t.Errorf("the untracked file is back as %q", got)
	}
	if after := gitT(t, w.Path, "status", "--porcelain"); after != before {
		t.Errorf("status after the restore:\n%s\nwant as before the removal:\n%s", after, before)
	}
	if kept := gitT(t, dir, "for-each-ref", KeptPrefix); kept != "" {
		t.Errorf("kept refs left after the restore: %q", kept)
	}
	if err := Restore(ctx, w, "conv-1"); !errors.Is(err, ErrNothingKept) {
		t.Errorf("a second restore: %v, want ErrNothingKept", err)
	}
	// Worked on again, the worktree merges as any other.
	if _, err := Merge(ctx, w, "work"); err != nil {
		t.Fatalf("merge after the restore: %v", err)
	}
	if got := read(t, filepath.Join(dir, "a.txt")); got != "not committed\n" {
		t.Errorf("merged a.txt is %q", got)
	}
}

// A branch kept without its folder comes back without one; a branch of the same name made
// since is not overwritten; Forget drops what was kept.
func TestRestoreOfAKeptBranchAndItsRefusals_Issue34(t *testing.T) {
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	w, _, err := Create(ctx, dir, "kept")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(w.Path, "a.txt"), "agent\n")
	if err := Keep(ctx, w, "keep"); err != nil {
		t.Fatal(err)
	}
	tip := gitT(t, dir, "rev-parse", "refs/heads/"+w.Branch)
	if err := Remove(ctx, w, true, "c2"); err != nil {
		t.Fatal(err)
	}
	gitT(t, dir, "branch", w.Branch, "main")
	if err := Restore(ctx, w, "c2"); err == nil || !strings.Contains(err.Error(), "holds other commits") {
		t.Fatalf("restore over a new branch of the same name: %v", err)
	}
	if got := gitT(t, dir, "rev-parse", "refs/heads/"+w.Branch); got == tip {
		t.Fatal("the refused restore moved the new branch")
	}
	gitT(t, dir, "branch", "-D", w.Branch)
	if err := Restore(ctx, w, "c2"); err != nil {
		t.Fatal(err)
	}
	if got := gitT(t, dir, "rev-parse", "refs/heads/"+w.Branch); got != tip {
		t.Fatalf("the branch is back at %s, want %s", got, tip)
	}
	if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
		t.Error("a folder came back that was not there at the removal")
	}
	if err := Remove(ctx, w, true, "c2"); err != nil {
		t.Fatal(err)
	}
	if err := Forget(ctx, w, "c2"); err != nil {
		t.Fatal(err)
	}
	if kept := gitT(t, dir, "for-each-ref", KeptPrefix); kept != "" {
		t.Errorf("kept refs left after Forget: %q", kept)
	}
	if err := Forget(ctx, w, "c2"); err != nil {
		t.Errorf("forget with nothing kept: %v", err)
	}
}
