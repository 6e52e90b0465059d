//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectModeCommitsInALinkedWorktree_Issue34: in a linked worktree (a conversation's
// own), a Project command commits on the worktree's branch — objects and refs in the main
// repository's .git — while that .git's hooks and config, the worktrees' pointers and the
// main working tree stay unwritable, and a protected file the command creates there is
// removed.
func TestProjectModeCommitsInALinkedWorktree_Issue34(t *testing.T) {
	f := newProjectFixture(t)
	main := f.tree
	wt := filepath.Join(t.TempDir(), "wt")
	cmd := exec.Command("git", "worktree", "add", "-q", "-b", "phoenix/x", wt)
	cmd.Dir, cmd.Env = main, f.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	common := filepath.Join(main, ".git")
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return string(b)
	}
	guarded := []string{
		filepath.Join(common, "config"), filepath.Join(common, "hooks", "pre-commit"),
		filepath.Join(common, "worktrees", "wt", "commondir"), filepath.Join(common, "worktrees", "wt", "gitdir"),
		filepath.Join(wt, ".git"), filepath.Join(main, "main.go"),
		filepath.Join(common, "HEAD"), filepath.Join(common, "index"),
	}
	before := map[string]string{}
	for _, p := range guarded {
		before[p] = read(p)
	}
	f.tree = wt
	r, _ := f.run(t, `echo edited >> main.go && echo new > new.txt && git add -A && git commit -q -m agent && git log --oneline | wc -l`, "")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("commit in the worktree: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	out, err := exec.Command("git", "-C", main, "log", "--format=%s", "-1", "phoenix/x").Output()
	if err != nil || strings.TrimSpace(string(out)) != "agent" {
		t.Fatalf("the branch's last commit: %q, %v", out, err)
	}

	attempts := []string{
		`echo 'exit 1' >> "$C/hooks/pre-commit"`,
		`echo pwned > "$C/hooks/post-checkout"`,
		`git config core.fsmonitor 'touch /tmp/pwned'`,
		`echo '[core] fsmonitor = x' >> "$C/config"`,
		`mv "$C/hooks" "$C/hooks-old"`,
		`echo /tmp > "$C/worktrees/wt/commondir"`,
		`echo x > "$C/worktrees/wt/gitdir"`,
		`echo 'gitdir: /tmp' > .git`,
		`echo pwned > "$M/main.go"`,
		`echo 'ref: refs/heads/phoenix/x' > "$C/HEAD"`,
		`git --git-dir="$C" --work-tree="$M" read-tree --empty`,
	}
	f.env = append(f.env, "C="+common, "M="+main)
	for _, a := range attempts {
		if r, _ := f.run(t, a, ""); r.code == 0 {
			t.Errorf("%q succeeded\nstderr: %s", a, r.stderr)
		}
	}
	r, notes := f.run(t, `printf '[core]\n\thooksPath = /tmp\n' > "$C/config.worktree"`, "")
	if _, err := os.Stat(filepath.Join(common, "config.worktree")); err == nil {
		t.Errorf("a config.worktree the command made (exit %d) is still there", r.code)
	}
	if r.code == 0 && !strings.Contains(strings.Join(notes, "\n"), "config.worktree") {
		t.Errorf("the removal of config.worktree is not told: %q", notes)
	}
	for _, p := range guarded {
		if got := read(p); got != before[p] {
			t.Errorf("%s changed: %q", p, got)
		}
	}
}
