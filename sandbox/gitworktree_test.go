//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestProjectModeWorktreeCannotMoveTheBaseBranch_Issue34: from a linked worktree, a
// Project command commits, stashes, makes and deletes its own branches (loose and packed),
// but cannot move or delete the branch the main working tree has checked out (the base the
// worktree merges into) nor another worktree's branch — by git update-ref, git branch -f,
// writing the ref, renaming its directories or rewriting packed-refs — whether the base was
// a loose ref or only in packed-refs when the command started.
func TestProjectModeWorktreeCannotMoveTheBaseBranch_Issue34(t *testing.T) {
	for _, packed := range []bool{false, true} {
		t.Run(map[bool]string{false: "loose", true: "packed"}[packed], func(t *testing.T) {
			f := newProjectFixture(t)
			main := f.tree
			git := f.git(t)
			base := git(main, "symbolic-ref", "--short", "HEAD")
			wt := filepath.Join(t.TempDir(), "wt")
			other := filepath.Join(t.TempDir(), "other")
			git(main, "worktree", "add", "-q", "-b", "phoenix/x", wt)
			git(main, "worktree", "add", "-q", "-b", "phoenix/y", other)
			if packed {
				git(main, "pack-refs", "--all", "--prune")
				if _, err := os.Stat(filepath.Join(main, ".git", "refs", "heads", base)); err == nil {
					t.Fatal("the base branch is still a loose ref after pack-refs")
				}
			}
			baseAt, otherAt := git(main, "rev-parse", base), git(main, "rev-parse", "phoenix/y")
			reflog := git(main, "reflog", "show", "--format=%H %gs", base)

			f.tree = wt
			f.env = append(f.env, "C="+filepath.Join(main, ".git"), "B="+base)
			works := `set -e
echo edited >> main.go && git commit -qam agent
echo more >> main.go && git stash -q && git stash list | grep -q .
git branch mine && git branch -D mine >/dev/null
git branch packedmine && git pack-refs --all && git branch -D packedmine >/dev/null
git log --oneline | wc -l`
			if r, _ := f.run(t, works, ""); r.code != 0 || strings.TrimSpace(r.stdout) != "2" {
				t.Fatalf("commit, stash and own branches in the worktree: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			attempts := []string{
				`git update-ref "refs/heads/$B" HEAD`,
				`git branch -f "$B" HEAD`,
				`git update-ref -d "refs/heads/$B"`,
				`git branch -D "$B"`,
				`git rev-parse HEAD > "$C/refs/heads/$B"`,
				`rm -f "$C/refs/heads/$B" && test ! -e "$C/refs/heads/$B"`,
				`mv "$C/refs/heads" "$C/refs/heads-old"`,
				`mv "$C/refs" "$C/refs-old"`,
				`git update-ref refs/heads/phoenix/y HEAD`,
				`mv "$C/refs/heads/phoenix" "$C/refs/heads/phoenix-old"`,
				`git rev-parse HEAD > "$C/worktrees/other/HEAD"`,
			}
			for _, a := range attempts {
				if r, _ := f.run(t, a, ""); r.code == 0 {
					t.Errorf("%q succeeded\nstderr: %s", a, r.stderr)
				}
			}
			// packed-refs is the worktree's to rewrite, but the loose base wins over it.
			f.run(t, `sed -i "s#^[0-9a-f]* refs/heads/$B\$#$(git rev-parse HEAD) refs/heads/$B#" "$C/packed-refs"`, "")
			if got := git(main, "rev-parse", base); got != baseAt {
				t.Errorf("the base branch %s moved: %s, was %s", base, got, baseAt)
			}
			if got := git(main, "rev-parse", "phoenix/y"); got != otherAt {
				t.Errorf("the other worktree's branch moved: %s, was %s", got, otherAt)
			}
			// A refused update must not leave a false entry in the base's reflog either.
			if got := git(main, "reflog", "show", "--format=%H %gs", base); got != reflog {
				t.Errorf("the base branch's reflog changed though the branch did not move:\n%s\nwas:\n%s", got, reflog)
			}
			if st := git(main, "status", "--porcelain"); st != "" {
				t.Errorf("the main working tree changed: %q", st)
			}
			if got := git(main, "log", "-1", "--format=%s", "phoenix/x"); got != "agent" {
				t.Errorf("the worktree's branch: %q, want its commit", got)
			}
			// The person commits on the base in their own tree (the loose file replaced
			// under any bind): the next command still cannot move it.
			mustWrite(t, filepath.Join(main, "person.txt"), "mine\n")
			git(main, "add", "person.txt")
			git(main, "commit", "-q", "-m", "person")
			baseAt = git(main, "rev-parse", base)
			if r, _ := f.run(t, `git update-ref "refs/heads/$B" HEAD`, ""); r.code == 0 {
				t.Errorf("after the person's commit, update-ref of the base succeeded")
			}
			if got := git(main, "rev-parse", base); got != baseAt {
				t.Errorf("the base branch %s moved after the person's commit: %s, was %s", base, got, baseAt)
			}
		})
	}
}

// TestProjectModeLeavesNoLockOfAProtectedFile_Issue34: a git the command started that holds
// the locks of the base branch and another worktree's branch when it is killed (here: left
// running in the background when the command's shell exits, so the supervisor kills it; a
// Stop or a timeout does the same) leaves refs/heads/<base>.lock behind, which would refuse
// the person's next commit on their branch. The supervisor removes the locks it can prove
// the command left, says so, and leaves alone a lock that was there before the command.
func TestProjectModeLeavesNoLockOfAProtectedFile_Issue34(t *testing.T) {
	f := newProjectFixture(t)
	main := f.tree
	git := f.git(t)
	base := git(main, "symbolic-ref", "--short", "HEAD")
	wt := filepath.Join(t.TempDir(), "wt")
	git(main, "worktree", "add", "-q", "-b", "phoenix/x", wt)
	git(main, "worktree", "add", "-q", "-b", "phoenix/y", filepath.Join(t.TempDir(), "other"))
	common := filepath.Join(main, ".git")
	// A git of the person's holds the config's lock as the command starts.
	theirs := filepath.Join(common, "config.lock")
	mustWrite(t, theirs, "")
	f.tree = wt
	f.env = append(f.env, "C="+common, "B="+base)
	r, notes := f.run(t, `echo x >> main.go && git commit -qam agent
(printf 'start\nupdate refs/heads/%s HEAD\nupdate refs/heads/phoenix/y HEAD\nprepare\n' "$B"; exec sleep 600) |
	git update-ref --stdin >/dev/null 2>&1 &
until [ -e "$C/refs/heads/$B.lock" ] && [ -e "$C/refs/heads/phoenix/y.lock" ]; do sleep 0.02; done
echo locked`, "")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "locked" {
		t.Fatalf("the command: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, ref := range []string{base, "phoenix/y"} {
		lock := filepath.Join(common, "refs", "heads", filepath.FromSlash(ref)+".lock")
		if _, err := os.Lstat(lock); err == nil {
			t.Errorf("the lock %s outlived the command", lock)
		}
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, lock) }) {
			t.Errorf("no note names the removed %s: %q", lock, notes)
		}
	}
	if _, err := os.Lstat(theirs); err != nil {
		t.Errorf("the person's lock %s, there before the command, was removed: %v", theirs, err)
	}
	if err := os.Remove(theirs); err != nil {
		t.Fatal(err)
	}
	// The person commits on their branch.
	mustWrite(t, filepath.Join(main, "person.txt"), "mine\n")
	git(main, "add", "person.txt")
	git(main, "commit", "-q", "-m", "person")
}

// TestProjectModeStartsWhileAnotherWorktreeCommits_Issue34: a git outside the sandbox
// committing in another worktree (another conversation's command, the person's) renames a
// new index and a new branch ref over the old ones as this command's protections are bound;
// the command still starts, every time. (Once renamed over, a file is no longer bound in a
// command that was already running: docs/ARCHITECTURE.md says so.)
func TestProjectModeStartsWhileAnotherWorktreeCommits_Issue34(t *testing.T) {
	f := newProjectFixture(t)
	main := f.tree
	git := f.git(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(main, "worktree", "add", "-q", "-b", "phoenix/x", wt)
	git(main, "worktree", "add", "-q", "-b", "phoenix/y", filepath.Join(t.TempDir(), "other"))
	common := filepath.Join(main, ".git")
	replaced := []string{
		filepath.Join(common, "worktrees", "other", "index"),
		filepath.Join(common, "refs", "heads", "phoenix", "y"),
	}
	stop := make(chan struct{})
	churned := make(chan error, 1)
	go func() {
		// What git does to each file on a commit: write <file>.lock, rename it over <file>.
		for i := 0; ; i++ {
			select {
			case <-stop:
				churned <- nil
				return
			default:
			}
			for _, p := range replaced {
				old, err := os.ReadFile(p)
				if err == nil {
					err = os.WriteFile(p+".tmp", old, 0o644)
				}
				if err == nil {
					err = os.Rename(p+".tmp", p)
				}
				if err != nil {
					churned <- err
					return
				}
			}
		}
	}()
	f.tree = wt
	for i := range 60 {
		r, _ := f.run(t, `echo ran`, "")
		if r.code != 0 || strings.TrimSpace(r.stdout) != "ran" {
			close(stop)
			<-churned
			t.Fatalf("command %d while another worktree commits: exit %d\nstdout: %s\nstderr: %s", i, r.code, r.stdout, r.stderr)
		}
	}
	close(stop)
	if err := <-churned; err != nil {
		t.Fatalf("the commits outside: %v", err)
	}
}

// TestProjectModeLeavesAWorktreeBeingMade_Issue34: files git writes itself while it makes a
// worktree (its index, HEAD, commondir, gitdir), missing when a command starts because a
// `git worktree add` is under way, are that git's when the command ends and stay; a
// config.worktree that appears there (it can make the person's git run a program) is removed.
func TestProjectModeLeavesAWorktreeBeingMade_Issue34(t *testing.T) {
	f := newProjectFixture(t)
	main := f.tree
	git := f.git(t)
	wt := filepath.Join(t.TempDir(), "wt")
	git(main, "worktree", "add", "-q", "-b", "phoenix/x", wt)
	common := filepath.Join(main, ".git")
	making := filepath.Join(common, "worktrees", "making")
	mustWrite(t, filepath.Join(making, "locked"), "initializing\n")
	f.tree = wt
	f.env = append(f.env, "W="+making)
	r, notes := f.run(t, `for f in index HEAD commondir gitdir config.worktree; do echo "$f" > "$W/$f"; done; echo ran`, "")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "ran" {
		t.Fatalf("the command: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"index", "HEAD", "commondir", "gitdir"} {
		if _, err := os.Lstat(filepath.Join(making, name)); err != nil {
			t.Errorf("%s of the worktree being made was removed: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(making, "config.worktree")); err == nil {
		t.Errorf("a config.worktree that appeared in the worktree being made is still there")
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "config.worktree") }) {
		t.Errorf("no note names the removed config.worktree: %q", notes)
	}
}

// git runs git outside the sandbox, as the person would, in the fixture's environment
// and returns its trimmed output; a failure ends the test.
func (f *projectFixture) git(t *testing.T) func(dir string, args ...string) string {
	return func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, f.env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// TestProjectModeLeavesAnotherGitsLockMidUpdate_Issue34: another conversation commits in
// its own worktree while this command ends: its git holds that worktree's index.lock, about
// to rename it over the index. The command ended by itself (nothing of it was killed), so
// the lock is not its own and must not go: removed, the other commit failed with "Unable to
// write new index file" (TestThreeWorktreesAtOnceInProjectMode_Issue34 met it). A lock the
// command itself made and left is still removed once it stays.
func TestProjectModeLeavesAnotherGitsLockMidUpdate_Issue34(t *testing.T) {
	f := newProjectFixture(t)
	main := f.tree
	git := f.git(t)
	wt := filepath.Join(t.TempDir(), "wt")
	other := filepath.Join(t.TempDir(), "other")
	git(main, "worktree", "add", "-q", "-b", "phoenix/x", wt)
	git(main, "worktree", "add", "-q", "-b", "phoenix/y", other)
	index := filepath.Join(main, ".git", "worktrees", "other", "index")
	// In the tree: the only place the command may write.
	ended, started := filepath.Join(wt, "ended"), filepath.Join(wt, "started")
	f.tree = wt
	f.env = append(f.env, "ENDED="+ended, "STARTED="+started)
	// The other git: takes the lock once the command runs, renames it over the index once
	// the command's shell has ended, as a commit there does.
	renamed := make(chan error, 1)
	go func() {
		for !exists(started) {
			time.Sleep(5 * time.Millisecond)
		}
		if err := os.WriteFile(index+".lock", []byte("new index"), 0o644); err != nil {
			renamed <- err
			return
		}
		for !exists(ended) {
			time.Sleep(5 * time.Millisecond)
		}
		renamed <- os.Rename(index+".lock", index)
	}()
	r, notes := f.run(t, `: > "$STARTED"; sleep 0.3; : > "$ENDED"`, "")
	if r.code != 0 {
		t.Fatalf("the command: exit %d\n%s", r.code, r.stderr)
	}
	if err := <-renamed; err != nil {
		t.Fatalf("the other worktree's commit failed to rename its lock over its index: %v (notes %q)", err, notes)
	}
	if b, _ := os.ReadFile(index); string(b) != "new index" {
		t.Fatalf("the other worktree's index is %q, want its commit's", b)
	}
	// A lock the command makes and leaves goes.
	r, notes = f.run(t, `: > "`+index+`.lock"`, "")
	if r.code != 0 {
		t.Fatalf("the command: exit %d\n%s", r.code, r.stderr)
	}
	if exists(index + ".lock") {
		t.Errorf("the lock the command left outlived it (notes %q)", notes)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
