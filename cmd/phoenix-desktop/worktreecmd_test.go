package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// Issue 34, headless: chat --worktree works in a worktree of its own that list --json names;
// merge exits non-zero on a conflict with the files named and changes nothing; a removal of
// unmerged work needs --confirm and --restore undoes it; a clean merge brings the work into
// the base.
func TestWorktreeHeadless_Issue34(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip(err)
	}
	data := t.TempDir()
	repo := filepath.Join(t.TempDir(), "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "init", "-q", "-b", "main")
	gitIn(t, repo, "add", "-A")
	gitIn(t, repo, "commit", "-q", "-m", "first")
	chat := func(prompt string) string {
		t.Helper()
		code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", repo, "--mode", "unrestricted", "--worktree", prompt)
		if code != 0 || !strings.Contains(out, "Worktree: ") {
			t.Fatalf("chat --worktree: %d\n%s\n%s", code, out, errs)
		}
		return out
	}
	chat(`patch: a.txt <<< agent\n`)
	_, out, _ := cli(t, "list", "--data-dir", data, "--json")
	var list []struct {
		ID       string
		Cwd      string
		Worktree *struct{ Path, Branch, Base string }
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0].Worktree == nil {
		t.Fatalf("list: %s %v", out, err)
	}
	first, firstPath := list[0], list[0].Worktree.Path
	if w := first.Worktree; !strings.HasPrefix(w.Branch, "phoenix/patch-a-txt") || w.Base != "main" || first.Cwd != w.Path ||
		filepath.Dir(w.Path) != repo+"-worktrees" {
		t.Fatalf("the worktree: %+v in %s", *w, first.Cwd)
	}
	// The person changes a.txt on main meanwhile: the merge conflicts.
	if err := os.WriteFile(filepath.Join(repo, "a.txt"), []byte("person\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-am", "person")
	code, _, errs := cli(t, "merge", first.ID, "--data-dir", data)
	if code != exitConflict || !strings.Contains(errs, "a.txt") {
		t.Fatalf("merge with a conflict: %d\n%s", code, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "person\n" {
		t.Fatalf("a refused merge changed the main tree: %q", b)
	}
	code, _, errs = cli(t, "worktree", first.ID, "--remove", "--data-dir", data)
	if code == 0 || !strings.Contains(errs, "--confirm") {
		t.Fatalf("remove of unmerged work: %d\n%s", code, errs)
	}
	if _, err := os.Stat(firstPath); err != nil {
		t.Fatalf("a refused removal removed the worktree: %v", err)
	}

	chat(`patch: b.txt <<< new\n`)
	_, out, _ = cli(t, "list", "--data-dir", data, "--json")
	list = nil
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 {
		t.Fatalf("list: %s %v", out, err)
	}
	second := list[0]
	if code, out, errs := cli(t, "merge", second.ID, "--data-dir", data); code != 0 || !strings.Contains(out, "Merged") {
		t.Fatalf("merge: %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "b.txt")); string(b) != "new\n" {
		t.Fatalf("after the merge b.txt is %q", b)
	}
	if code, out, errs := cli(t, "worktree", first.ID, "--remove", "--confirm", "--data-dir", data); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("confirmed removal: %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(firstPath); !os.IsNotExist(err) {
		t.Fatalf("the worktree is still there: %v", err)
	}
	// The removal is undone headless: the folder is back with the agent's change.
	if code, out, errs := cli(t, "worktree", first.ID, "--restore", "--data-dir", data); code != 0 || !strings.Contains(out, firstPath) {
		t.Fatalf("restore: %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(firstPath, "a.txt")); string(b) != "agent\n" {
		t.Fatalf("after the restore the worktree's a.txt is %q", b)
	}
	if code, _, errs := cli(t, "worktree", first.ID, "--restore", "--data-dir", data); code == 0 || !strings.Contains(errs, "nothing") {
		t.Fatalf("a second restore: %d\n%s", code, errs)
	}
}
