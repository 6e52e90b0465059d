package checkpoint

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

func write(t testing.TB, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

func open(t testing.TB, work string) *Repo {
	t.Helper()
	if err := Available(); err != nil {
		t.Skip(err)
	}
	r, err := Open(context.Background(), filepath.Join(t.TempDir(), "shadow.git"), work)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

func snap(t testing.TB, r *Repo) string {
	t.Helper()
	id, err := r.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSnapshotRestoreHonoursGitignoreAndNeverTouchesTheProjectRepo(t *testing.T) {
	work := t.TempDir()
	ctx := context.Background()
	// The person's own repository, with a commit and a clean status.
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.email", "p@x"}, {"config", "user.name", "p"}} {
		if out, err := exec.Command("git", append([]string{"-C", work}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	write(t, filepath.Join(work, ".gitignore"), "node_modules/\n*.o\n")
	write(t, filepath.Join(work, "main.go"), "package main\n")
	write(t, filepath.Join(work, "lib", "a.go"), "package lib // v1\n")
	write(t, filepath.Join(work, "node_modules", "dep", "index.js"), "big dependency")
	write(t, filepath.Join(work, "build.o"), "object")
	if out, err := exec.Command("git", "-C", work, "add", "-A").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", work, "commit", "-qm", "init").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	headBefore, _ := exec.Command("git", "-C", work, "rev-parse", "HEAD").Output()

	r := open(t, work)
	before := snap(t, r)
	ls, err := r.git(ctx, nil, "ls-tree", "-r", "--name-only", before)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(ls)); !slices.Equal(got, []string{".gitignore", "lib/a.go", "main.go"}) {
		t.Fatalf("snapshot holds %q; ignored files must not be copied", got)
	}

	write(t, filepath.Join(work, "lib", "a.go"), "package lib // v2\n")
	write(t, filepath.Join(work, "new", "b.go"), "package new\n")
	if err := os.Remove(filepath.Join(work, "main.go")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, "node_modules", "dep", "index.js"), "changed dependency")
	after := snap(t, r)
	changes, err := r.Changes(ctx, before, after)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"lib/a.go", Modified}, {"main.go", Deleted}, {"new/b.go", Added}}
	if !slices.Equal(changes, want) {
		t.Fatalf("changes = %+v, want %+v", changes, want)
	}
	diff, err := r.Diff(ctx, after, before, []string{"lib/a.go"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(diff, "-package lib // v2") || !strings.Contains(diff, "+package lib // v1") || strings.Contains(diff, "main.go") {
		t.Fatalf("diff:\n%s", diff)
	}

	if _, err := r.Restore(ctx, "", before, Paths(changes)); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(work, "lib", "a.go")) != "package lib // v1\n" || read(t, filepath.Join(work, "main.go")) != "package main\n" {
		t.Fatal("files not restored")
	}
	if _, err := os.Stat(filepath.Join(work, "new")); !os.IsNotExist(err) {
		t.Fatalf("an added file (and its now empty directory) was not removed: %v", err)
	}
	if read(t, filepath.Join(work, "node_modules", "dep", "index.js")) != "changed dependency" {
		t.Fatal("an ignored file was touched")
	}
	// The person's repository sees nothing: same HEAD, clean status, no new refs or objects
	// reachable from it.
	headAfter, _ := exec.Command("git", "-C", work, "rev-parse", "HEAD").Output()
	status, _ := exec.Command("git", "-C", work, "status", "--porcelain").Output()
	if string(headBefore) != string(headAfter) || len(status) != 0 {
		t.Fatalf("the project's repository changed: HEAD %s→%s, status %q", headBefore, headAfter, status)
	}
	if again := snap(t, r); again != before {
		t.Fatalf("after restoring, the tree is %s, want the first snapshot %s", again, before)
	}
}

func TestWorksOutsideAGitRepositoryAndWithAwkwardNames(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "*.go"), "star")
	write(t, filepath.Join(work, "a dir", "naïve file.txt"), "unicode")
	r := open(t, work)
	s1 := snap(t, r)
	write(t, filepath.Join(work, "*.go"), "star 2")
	write(t, filepath.Join(work, "a dir", "naïve file.txt"), "unicode 2")
	s2 := snap(t, r)
	ch, err := r.Changes(context.Background(), s1, s2)
	if err != nil || len(ch) != 2 || ch[0].Path != "*.go" || ch[1].Path != "a dir/naïve file.txt" {
		t.Fatalf("changes = %+v, %v", ch, err)
	}
	if _, err := r.Restore(context.Background(), "", s1, []string{"*.go"}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(work, "*.go")) != "star" || read(t, filepath.Join(work, "a dir", "naïve file.txt")) != "unicode 2" {
		t.Fatal("restore touched the wrong files")
	}
	empty := open(t, t.TempDir())
	if id := snap(t, empty); id != EmptyTree {
		t.Fatalf("empty dir snapshot = %s", id)
	}
}

func TestReopenKeepsSnapshots(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "f"), "one")
	if err := Available(); err != nil {
		t.Skip(err)
	}
	gitDir := filepath.Join(t.TempDir(), "shadow.git")
	r, err := Open(context.Background(), gitDir, work)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s1 := snap(t, r)
	write(t, filepath.Join(work, "f"), "two")
	r2, err := Open(context.Background(), gitDir, work)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := r2.Restore(context.Background(), "", s1, []string{"f"}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(work, "f")) != "one" {
		t.Fatal("not restored from a reopened repository")
	}
}

func TestFirstSnapshotRefusesAHugeTree(t *testing.T) {
	work := t.TempDir()
	for i := range 5 {
		write(t, filepath.Join(work, "data", string(rune('a'+i))), "x")
	}
	write(t, filepath.Join(work, ".gitignore"), "ignored/\n")
	for i := range 20 {
		write(t, filepath.Join(work, "ignored", string(rune('a'+i))), "x")
	}
	defer func(f int) { MaxFiles = f }(MaxFiles)
	MaxFiles = 4
	r := open(t, work)
	if _, err := r.Snapshot(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a tree over the limit: %v", err)
	}
	// The refusal is remembered for a while; then ignored files do not count.
	MaxFiles = 6
	if _, err := r.Snapshot(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("the refusal was not remembered: %v", err)
	}
	r.refusedAt = r.refusedAt.Add(-2 * refusalMemory)
	if _, err := r.Snapshot(context.Background()); err != nil {
		t.Fatalf("a tree within the limit (ignored files aside): %v", err)
	}
	// Later snapshots are incremental and not limited.
	write(t, filepath.Join(work, "data", "z"), "x")
	MaxFiles = 1
	if _, err := r.Snapshot(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// An init killed half-way (the app quitting while the first snapshot warmed) left a directory
// with a HEAD and nothing else; the next Open must make a working repository of it, not fail
// every snapshot with "not a git repository" (found by e2e TestQueueAndCheckpointsSurviveSIGKILL).
func TestOpenReplacesAnUnfinishedRepository(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	work, gitDir := t.TempDir(), filepath.Join(t.TempDir(), "shadow.git")
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(gitDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/master\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(context.Background(), gitDir, work)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if tree, err := repo.Snapshot(context.Background()); err != nil || tree == "" {
		t.Fatalf("snapshot after replacing the unfinished repository: %q, %v", tree, err)
	}
	if _, err := os.Stat(gitDir + ".init"); !os.IsNotExist(err) {
		t.Fatalf("the staging directory is left behind: %v", err)
	}
}

// The tree's .gitattributes cannot make the app run a filter outside the sandbox: a filter
// driver the person configured (as git-lfs is) is not run for a snapshot or a restore, and
// the bytes are kept exactly; nor does a hook of a relative core.hooksPath (inside the tree).
func TestCheckpointsRunNoFilterOrHookOfTheTree(t *testing.T) {
	work := t.TempDir()
	markers := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[filter \"evil\"]\n\tclean = sh -c 'touch "+markers+"/clean; cat'\n\tsmudge = sh -c 'touch "+markers+"/smudge; cat'\n"+
		"[core]\n\thooksPath = .githooks\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	write(t, filepath.Join(work, ".gitattributes"), "* filter=evil text eol=crlf\n")
	write(t, filepath.Join(work, ".githooks", "post-checkout"), "#!/bin/sh\ntouch "+markers+"/hook\n")
	if err := os.Chmod(filepath.Join(work, ".githooks", "post-checkout"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, "a.txt"), "one\nline\n")
	r := open(t, work)
	first := snap(t, r)
	write(t, filepath.Join(work, "a.txt"), "changed\n")
	snap(t, r)
	if _, err := r.Restore(context.Background(), "", first, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(work, "a.txt")); got != "one\nline\n" {
		t.Errorf("restored %q, want the bytes as they were", got)
	}
	entries, _ := os.ReadDir(markers)
	for _, e := range entries {
		t.Errorf("the tree's %s ran", e.Name())
	}
}

// The app's data directory inside the work tree (a conversation in the home folder) is never
// taken into a snapshot, nor touched by a restore.
func TestExcludedDirectoryStaysOutOfSnapshots(t *testing.T) {
	work := t.TempDir()
	data := filepath.Join(work, ".local", "share", "phoenix-desktop")
	write(t, filepath.Join(data, "000001.vlog"), "store")
	write(t, filepath.Join(work, ".local", "other.txt"), "kept")
	write(t, filepath.Join(work, "a.txt"), "one")
	if err := Available(); err != nil {
		t.Skip(err)
	}
	r, err := Open(context.Background(), filepath.Join(t.TempDir(), "shadow.git"), work, WithExcluded(data, "/elsewhere"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	first := snap(t, r)
	write(t, filepath.Join(data, "000002.vlog"), "more store")
	write(t, filepath.Join(work, "a.txt"), "two")
	second := snap(t, r)
	changes, err := r.Changes(context.Background(), first, second)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if strings.Contains(c.Path, "phoenix-desktop") {
			t.Errorf("the data directory is in the snapshots: %+v", c)
		}
	}
	if len(changes) != 1 {
		t.Errorf("changes %+v, want a.txt only", changes)
	}
	if _, err := r.Restore(context.Background(), "", first, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(data, "000002.vlog")) != "more store" {
		t.Error("a restore touched the data directory")
	}
}
