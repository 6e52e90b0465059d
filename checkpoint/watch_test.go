package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"go.uber.org/goleak"
)

// Every test closes its repositories: no watcher goroutine may outlive them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// truth is the snapshot id of work as git alone sees it now: a fresh shadow repository with
// no change detector. Tree ids name content, so two ids are equal exactly when the trees are.
func truth(t *testing.T, work string) string {
	t.Helper()
	r, err := Open(context.Background(), filepath.Join(t.TempDir(), "truth.git"), work)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.SetWatching(false)
	return snap(t, r)
}

// snapRuns snapshots and returns the id with the number of git processes it started.
func snapRuns(t *testing.T, r *Repo) (string, int64) {
	t.Helper()
	before := r.GitRuns()
	id := snap(t, r)
	return id, r.GitRuns() - before
}

// settle snapshots until a snapshot runs no git (a structural change takes one more run to
// watch new directories), and fails if that takes more than three.
// watched opens a repository of work, lets its change detector settle and returns it with
// the detector and the settled snapshot.
func watched(t *testing.T, work string) (*Repo, *treeWatch, string) {
	t.Helper()
	r := open(t, work)
	settled := settle(t, r)
	w := r.currentWatch()
	if w == nil {
		t.Fatal("no change detector")
	}
	return r, w, settled
}

func settle(t *testing.T, r *Repo) string {
	t.Helper()
	for range 3 {
		if id, runs := snapRuns(t, r); runs == 0 {
			return id
		}
	}
	t.Fatalf("snapshots of an unchanged tree still run git (watching: %v)", r.Watching())
	return ""
}

func TestUnchangedTreeRunsNoGit(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "main.go"), "package main\n")
	write(t, filepath.Join(work, "lib", "a.go"), "package lib\n")
	r := open(t, work)
	first, runs := snapRuns(t, r)
	if runs == 0 {
		t.Fatal("the first snapshot ran no git")
	}
	if !r.Watching() {
		t.Fatal("the first snapshot did not start the change detector")
	}
	// Reading the tree (cat, ls, a test run that writes nothing) is no change.
	for range 3 {
		if _, err := os.ReadFile(filepath.Join(work, "lib", "a.go")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.ReadDir(filepath.Join(work, "lib")); err != nil {
			t.Fatal(err)
		}
		id, runs := snapRuns(t, r)
		if id != first || runs != 0 {
			t.Fatalf("snapshot of an unchanged tree: id %s (want %s), %d git runs (want 0)", id, first, runs)
		}
	}
	// Changes compares equal ids without git.
	before := r.GitRuns()
	if ch, err := r.Changes(context.Background(), first, first); err != nil || ch != nil || r.GitRuns() != before {
		t.Fatalf("Changes of one id: %v %v, %d git runs", ch, err, r.GitRuns()-before)
	}
}

// Each kind of change is in the very next snapshot: no sleep between the change and the
// snapshot, so the detector's barrier is what makes it see the change.
func TestEveryChangeIsSeen(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, work, outside string)
	}{
		{"write", func(t *testing.T, work, outside string) {
			write(t, filepath.Join(work, "lib", "a.go"), "package lib // v2\n")
		}},
		{"append", func(t *testing.T, work, outside string) {
			f, err := os.OpenFile(filepath.Join(work, "main.go"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("// more\n")
			_ = f.Close()
		}},
		{"truncate", func(t *testing.T, work, outside string) { must(t, os.Truncate(filepath.Join(work, "main.go"), 3)) }},
		{"create", func(t *testing.T, work, outside string) {
			write(t, filepath.Join(work, "lib", "b.go"), "package lib\n")
		}},
		{"delete", func(t *testing.T, work, outside string) { must(t, os.Remove(filepath.Join(work, "lib", "a.go"))) }},
		{"rename in a directory", func(t *testing.T, work, outside string) {
			must(t, os.Rename(filepath.Join(work, "lib", "a.go"), filepath.Join(work, "lib", "z.go")))
		}},
		{"rename across directories", func(t *testing.T, work, outside string) {
			must(t, os.Rename(filepath.Join(work, "lib", "a.go"), filepath.Join(work, "a.go")))
		}},
		{"rename a directory, then write in it", func(t *testing.T, work, outside string) {
			must(t, os.Rename(filepath.Join(work, "lib"), filepath.Join(work, "pkg")))
			write(t, filepath.Join(work, "pkg", "a.go"), "package pkg\n")
		}},
		{"chmod", func(t *testing.T, work, outside string) { must(t, os.Chmod(filepath.Join(work, "lib", "a.go"), 0o755)) }},
		{"new subdirectory with a file", func(t *testing.T, work, outside string) {
			write(t, filepath.Join(work, "lib", "sub", "deep", "c.go"), "package deep\n")
		}},
		{"a file in an empty directory", func(t *testing.T, work, outside string) { write(t, filepath.Join(work, "empty", "x"), "x") }},
		{"a file beside ignored files only", func(t *testing.T, work, outside string) { write(t, filepath.Join(work, "out", "notes.txt"), "x") }},
		{"symlink", func(t *testing.T, work, outside string) { must(t, os.Symlink("main.go", filepath.Join(work, "link"))) }},
		{".gitignore un-ignores a directory", func(t *testing.T, work, outside string) { write(t, filepath.Join(work, ".gitignore"), "*.o\n") }},
		{"a write through a hard link outside the tree", func(t *testing.T, work, outside string) {
			f, err := os.OpenFile(filepath.Join(outside, "shared.txt"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = f.WriteString("changed elsewhere\n")
			_ = f.Close()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work, outside := t.TempDir(), t.TempDir()
			write(t, filepath.Join(work, ".gitignore"), "*.o\nvendor/\n")
			write(t, filepath.Join(work, "main.go"), "package main\n")
			write(t, filepath.Join(work, "lib", "a.go"), "package lib\n")
			write(t, filepath.Join(work, "out", "x.o"), "object")
			write(t, filepath.Join(work, "vendor", "v.go"), "package v\n")
			write(t, filepath.Join(work, "shared.txt"), "one\n")
			must(t, os.Link(filepath.Join(work, "shared.txt"), filepath.Join(outside, "shared.txt")))
			must(t, os.Mkdir(filepath.Join(work, "empty"), 0o755))
			r := open(t, work)
			snap(t, r)
			before := settle(t, r)
			c.change(t, work, outside)
			got := snap(t, r)
			if want := truth(t, work); got != want {
				t.Fatalf("after the change the snapshot is %s, git alone sees %s", got, want)
			}
			if got == before {
				t.Fatal("the change made no difference to the snapshot")
			}
			// And the detector is back to running no git on an unchanged tree.
			if again := settle(t, r); again != got {
				t.Fatalf("a later snapshot of the same tree is %s, want %s", again, got)
			}
			// A later change in the same place is seen too (new directories are watched).
			write(t, filepath.Join(work, "later.txt"), "later")
			if p := filepath.Join(work, "pkg"); exists(p) {
				write(t, filepath.Join(p, "a.go"), "package pkg // later\n")
			}
			if p := filepath.Join(work, "lib", "sub", "deep"); exists(p) {
				write(t, filepath.Join(p, "c.go"), "package deep // later\n")
			}
			if p := filepath.Join(work, "empty", "x"); exists(p) {
				write(t, p, "later")
			}
			if got, want := snap(t, r), truth(t, work); got != want {
				t.Fatalf("after a later change the snapshot is %s, git alone sees %s", got, want)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// A change made while git reads the tree may or may not be in that snapshot; it must be in
// the next one. The detector's flag is cleared before git runs, so the change's event marks
// the tree changed again.
func TestChangeDuringASnapshotIsNotLost(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r := open(t, work)
	snap(t, r)
	settle(t, r)
	write(t, filepath.Join(work, "a.txt"), "v2\n")
	r.afterAdd = func() {
		r.afterAdd = nil
		write(t, filepath.Join(work, "a.txt"), "v3, written after git add read the tree\n")
	}
	snap(t, r)
	got, runs := snapRuns(t, r)
	if runs == 0 || got != truth(t, work) {
		t.Fatalf("the change made during a snapshot was lost: %d git runs, snapshot %s, git alone sees %s", runs, got, truth(t, work))
	}
}

func TestIgnoredDirectoriesAndTheShadowRepositoryAreNotWatched(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, ".gitignore"), "node_modules/\n*.o\n")
	write(t, filepath.Join(work, "main.go"), "package main\n")
	write(t, filepath.Join(work, "node_modules", "dep", "lib", "index.js"), "x")
	write(t, filepath.Join(work, "build", "a.o"), "object")
	write(t, filepath.Join(work, ".git", "HEAD"), "ref: refs/heads/main\n")
	// The data directory inside the tree, as when a conversation works in the home directory.
	gitDir := filepath.Join(work, ".local", "shadow.git")
	write(t, filepath.Join(work, ".gitignore"), "node_modules/\n*.o\n.local/\n")
	if err := Available(); err != nil {
		t.Skip(err)
	}
	r, err := Open(context.Background(), gitDir, work)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap(t, r)
	settle(t, r)
	w := r.currentWatch()
	if w == nil {
		t.Fatal("not watching")
	}
	list := w.fs.WatchList()
	for _, p := range list {
		if p == w.syncDir {
			continue // the detector's own markers (see barrier)
		}
		if strings.Contains(p, "node_modules") || strings.HasPrefix(p, filepath.Join(w.root, ".git")) || strings.HasPrefix(p, filepath.Join(w.root, ".local")) {
			t.Errorf("%s is watched", p)
		}
	}
	if !slices.Contains(list, filepath.Join(w.root, "build")) {
		t.Errorf("build/ holds only ignored files but is not ignored itself: a file created there must be seen; watched: %q", list)
	}
	// What happens in ignored directories and the project's .git costs no git.
	write(t, filepath.Join(work, "node_modules", "dep", "lib", "index.js"), "y")
	write(t, filepath.Join(work, "node_modules", "new", "index.js"), "z")
	write(t, filepath.Join(work, ".git", "index"), "the project's own git status")
	if _, runs := snapRuns(t, r); runs != 0 {
		t.Fatalf("changes in ignored directories ran git %d times", runs)
	}
}

// A nested repository is recorded as its HEAD commit: a commit in it is a change.
func TestACommitInANestedRepositoryIsSeen(t *testing.T) {
	work := t.TempDir()
	nested := filepath.Join(work, "nested")
	write(t, filepath.Join(nested, "f"), "one")
	gitIn := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=p@x", "-c", "user.name=p", "-C", nested}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	gitIn("init", "-q")
	gitIn("add", "f")
	gitIn("commit", "-qm", "one")
	r := open(t, work)
	snap(t, r)
	before := settle(t, r)
	write(t, filepath.Join(nested, "f"), "two")
	gitIn("commit", "-qam", "two")
	if got, want := snap(t, r), truth(t, work); got != want || got == before {
		t.Fatalf("after a commit in the nested repository: snapshot %s (before %s), git alone sees %s", got, before, want)
	}
}

func TestTooManyDirectoriesFallBackToGit(t *testing.T) {
	work := t.TempDir()
	for i := range 5 {
		write(t, filepath.Join(work, "d"+strconv.Itoa(i), "f"), "x")
	}
	r := open(t, work)
	r.watchLimit = 3
	snap(t, r)
	if r.Watching() {
		t.Fatal("a tree over the watch limit is watched")
	}
	if !errors.Is(r.refusedWatch, errNotWatchable) {
		t.Fatalf("refusal = %v", r.refusedWatch)
	}
	for i := range 2 {
		write(t, filepath.Join(work, "d0", "f"), fmt.Sprint("y", i))
		got, runs := snapRuns(t, r)
		if runs == 0 || got != truth(t, work) {
			t.Fatalf("without the detector: %d git runs, snapshot %s, git alone sees %s", runs, got, truth(t, work))
		}
	}
	// Once the retry time has passed and the tree fits, it is watched again.
	r.watchLimit = DefaultWatchLimit
	r.refusedWatchAt = r.refusedWatchAt.Add(-2 * watchRetry)
	snap(t, r)
	if !r.Watching() {
		t.Fatalf("not watching again: %v", r.refusedWatch)
	}
}

// The kernel's queue overflows when events come faster than they are read: events are lost,
// so the detector counts the tree as changed and starts afresh.
func TestQueueOverflowCountsAsAChange(t *testing.T) {
	limit := 16384
	if b, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events"); err == nil {
		limit, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	if limit > 1<<17 {
		t.Skipf("max_queued_events is %d: too many events to overflow it in a test", limit)
	}
	work := t.TempDir()
	write(t, filepath.Join(work, "a"), "a")
	write(t, filepath.Join(work, "b"), "b")
	r := open(t, work)
	snap(t, r)
	before := settle(t, r)
	w := r.currentWatch()
	// Hold the detector so that it reads nothing, and queue more events than fit (fsnotify
	// reads up to 4,096 of them ahead into its own buffer).
	w.mu.Lock()
	for i := range limit + 8192 {
		name := filepath.Join(work, string(rune('a'+i%2)))
		if err := os.Chmod(name, os.FileMode(0o600+i%2)); err != nil {
			w.mu.Unlock()
			t.Fatal(err)
		}
	}
	w.mu.Unlock()
	must(t, os.Chmod(filepath.Join(work, "a"), 0o644))
	must(t, os.Chmod(filepath.Join(work, "b"), 0o755))
	// The barrier's marker is lost in the full queue too; the overflow ends the wait. The
	// overflow is read only after every event queued before it, which on a loaded machine
	// can take longer than one barrier waits, so the barrier is asked again (it returns at
	// once once the detector has failed) until the overflow arrived or a minute passed.
	deadline := time.Now().Add(time.Minute)
	for w.barrier(context.Background()); w.failure() == nil && time.Now().Before(deadline); {
		w.barrier(context.Background())
	}
	if !errors.Is(w.failure(), fsnotify.ErrEventOverflow) {
		t.Fatalf("the detector's failure is %v, want an overflow", w.failure())
	}
	got := snap(t, r)
	if r.currentWatch() == w {
		t.Fatal("the detector that lost events was kept")
	}
	if want := truth(t, work); got != want || got == before {
		t.Fatalf("after the overflow the snapshot is %s (before %s), git alone sees %s", got, before, want)
	}
}

func TestRestoreAndWatchingOff(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r := open(t, work)
	s1 := snap(t, r)
	settle(t, r)
	write(t, filepath.Join(work, "a.txt"), "v2\n")
	s2 := snap(t, r)
	after, err := r.Restore(context.Background(), "", s1, []string{"a.txt"})
	if err != nil || after != s1 || read(t, filepath.Join(work, "a.txt")) != "v1\n" {
		t.Fatalf("restore: %s (want %s), %v, %q", after, s1, err, read(t, filepath.Join(work, "a.txt")))
	}
	if got := settle(t, r); got != s1 {
		t.Fatalf("after a restore the snapshot is %s, want %s", got, s1)
	}
	// Off: every snapshot runs git, and sees what changed meanwhile.
	r.SetWatching(false)
	if r.Watching() {
		t.Fatal("still watching")
	}
	write(t, filepath.Join(work, "a.txt"), "v2\n")
	if got, runs := snapRuns(t, r); runs == 0 || got != s2 {
		t.Fatalf("with the detector off: %d git runs, %s (want %s)", runs, got, s2)
	}
	if r.Watching() {
		t.Fatal("a snapshot started the detector while it is off")
	}
	// On again: the first snapshot runs git (what changed while off is unknown).
	r.SetWatching(true)
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	if got, runs := snapRuns(t, r); runs == 0 || got != s1 {
		t.Fatalf("with the detector on again: %d git runs, %s (want %s)", runs, got, s1)
	}
	if got := settle(t, r); got != s1 {
		t.Fatalf("settled on %s, want %s", got, s1)
	}
}

// TestMovedDirectoriesAndRootsAreSeen: a watched directory moved away, with a new one made
// at its path (a rename, a swap of two directories, the work tree itself replaced as a
// re-clone does), leaves no stale watch behind: later changes there are seen.
func TestMovedDirectoriesAndRootsAreSeen(t *testing.T) {
	t.Run("a directory moved, then made again", func(t *testing.T) {
		work := t.TempDir()
		write(t, filepath.Join(work, "A", "x", "f"), "v1\n")
		r := open(t, work)
		snap(t, r)
		settle(t, r)
		must(t, os.Rename(filepath.Join(work, "A"), filepath.Join(work, "B")))
		write(t, filepath.Join(work, "A", "x", "f"), "v2\n")
		if got, want := snap(t, r), truth(t, work); got != want {
			t.Fatalf("after the move the snapshot is %s, git alone sees %s", got, want)
		}
		settle(t, r)
		write(t, filepath.Join(work, "A", "x", "f"), "v3\n")
		if got, want := snap(t, r), truth(t, work); got != want {
			t.Fatalf("a write in the new directory is not seen: %s, git alone sees %s", got, want)
		}
	})
	t.Run("two directories swapped", func(t *testing.T) {
		work := t.TempDir()
		write(t, filepath.Join(work, "src", "pkg", "f"), "old\n")
		write(t, filepath.Join(work, "src.new", "pkg", "f"), "new\n")
		r := open(t, work)
		snap(t, r)
		settle(t, r)
		must(t, os.Rename(filepath.Join(work, "src"), filepath.Join(work, "src.old")))
		must(t, os.Rename(filepath.Join(work, "src.new"), filepath.Join(work, "src")))
		snap(t, r)
		settle(t, r)
		write(t, filepath.Join(work, "src", "pkg", "f"), "edited\n")
		if got, want := snap(t, r), truth(t, work); got != want {
			t.Fatalf("an edit in the swapped-in directory is not seen: %s, git alone sees %s", got, want)
		}
	})
	t.Run("the work tree replaced", func(t *testing.T) {
		parent := t.TempDir()
		work := filepath.Join(parent, "proj")
		write(t, filepath.Join(work, "src", "f"), "v1\n")
		r := open(t, work)
		snap(t, r)
		settle(t, r)
		must(t, os.Rename(work, filepath.Join(parent, "proj.bak")))
		write(t, filepath.Join(work, "src", "f"), "re-cloned\n")
		if got, want := snap(t, r), truth(t, work); got != want {
			t.Fatalf("a replaced work tree is not seen: %s, git alone sees %s", got, want)
		}
	})
}

// TestLeftoverMarkersDoNotDisableTheDetector: markers a crash left in the sync directory do
// not make every snapshot run git.
func TestLeftoverMarkersDoNotDisableTheDetector(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r := open(t, work)
	snap(t, r)
	for i := 1; i <= 5; i++ {
		write(t, filepath.Join(r.GitDir(), syncDirName, "m"+strconv.Itoa(i)), "")
	}
	settle(t, r)
	before := r.GitRuns()
	for range 5 {
		snap(t, r)
	}
	if n := r.GitRuns() - before; n != 0 {
		t.Fatalf("five snapshots of an unchanged tree ran git %d times", n)
	}
}

// The barrier writes into one marker file: snapshots of an unchanged tree leave a single
// marker in the sync directory, always the same file (no new inode for each, which cost ext4
// 0.25 ms a barrier), and a change made just before a snapshot is still seen by it.
func TestBarriersWriteOneMarker(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r := open(t, work)
	settle(t, r)
	syncDir := filepath.Join(r.GitDir(), syncDirName)
	marker := func() os.FileInfo {
		t.Helper()
		entries, err := os.ReadDir(syncDir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 {
			t.Fatalf("the sync directory holds %d files, want the one marker", len(entries))
		}
		fi, err := os.Stat(filepath.Join(syncDir, entries[0].Name()))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	first := marker()
	for i := range 20 {
		if i%5 == 4 {
			write(t, filepath.Join(work, "a.txt"), fmt.Sprintf("v%d\n", i))
			if _, runs := snapRuns(t, r); runs == 0 {
				t.Fatalf("snapshot %d did not see the write made just before it", i)
			}
			continue
		}
		if _, runs := snapRuns(t, r); runs != 0 {
			t.Fatalf("snapshot %d of an unchanged tree ran git %d times", i, runs)
		}
	}
	if !os.SameFile(first, marker()) {
		t.Fatal("the barriers made new marker files instead of writing into the one")
	}
}

// TestABarrierQueuesOneEventAndLeavesTheDirectoryAlone: a snapshot of an unchanged tree costs
// the kernel one event, a write in place into the marker, and no change to the sync
// directory (renaming the marker from name to name queued two events and cost 16 µs of the
// kernel's time against 2 µs, twice in every tool round: issue 39).
func TestABarrierQueuesOneEventAndLeavesTheDirectoryAlone(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r, w, _ := watched(t, work)
	syncDir := filepath.Join(r.GitDir(), syncDirName)
	dirBefore, err := os.Stat(syncDir)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var events []fsnotify.Event
	hook := func(ev fsnotify.Event) {
		if filepath.Dir(ev.Name) == w.syncDir {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}
	}
	w.beforeEvent.Store(&hook)
	t.Cleanup(func() { w.beforeEvent.Store(nil) })
	const n = 10
	for i := range n {
		if _, runs := snapRuns(t, r); runs != 0 {
			t.Fatalf("snapshot %d of an unchanged tree ran git %d times", i, runs)
		}
	}
	// Each barrier returned once its event was read: all of them are in.
	mu.Lock()
	got := slices.Clone(events)
	mu.Unlock()
	if len(got) != n {
		t.Fatalf("%d snapshots of an unchanged tree queued %d events in the sync directory, want one each: %v", n, len(got), got)
	}
	for _, ev := range got {
		if ev.Op != fsnotify.Write {
			t.Fatalf("a barrier queued %v, want a write into the marker", ev)
		}
	}
	dirAfter, err := os.Stat(syncDir)
	if err != nil {
		t.Fatal(err)
	}
	if !dirAfter.ModTime().Equal(dirBefore.ModTime()) {
		t.Fatal("the barriers changed the sync directory")
	}
}

// TestAMarkerEventReadLateIsNotTakenForTheNextBarriers: every barrier's write looks alike, so
// the event of one that stopped waiting (its snapshot stopped, or the machine was too slow)
// must never end a later barrier's wait before the events queued ahead of that barrier are
// read: a change made in between would be missed, and the snapshot would say nothing changed.
func TestAMarkerEventReadLateIsNotTakenForTheNextBarriers(t *testing.T) {
	work := t.TempDir()
	file := filepath.Join(work, "a.txt")
	write(t, file, "v1\n")
	r, w, before := watched(t, work)
	// The detector holds at the first marker event, so the barrier below gives up on it.
	first := w.markerPath
	held, release, changeRead := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var heldOnce, changeOnce sync.Once
	var waiting bool
	hook := func(ev fsnotify.Event) {
		switch ev.Name {
		case first:
			heldOnce.Do(func() { close(held) })
			<-release
		case file:
			// Read after the late marker event: the barrier must still be waiting.
			changeOnce.Do(func() {
				w.mu.Lock()
				waiting = w.seen != nil
				w.mu.Unlock()
				close(changeRead)
			})
		}
	}
	w.beforeEvent.Store(&hook)
	t.Cleanup(func() { w.beforeEvent.Store(nil) })
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if w.barrier(stopped) {
		t.Fatal("a barrier whose snapshot was stopped says it saw its marker")
	}
	<-held
	// A change queues behind the late marker event; the next barrier lets the late event be
	// read once it has written its own marker.
	write(t, file, "v2\n")
	var released sync.Once
	written := func() { released.Do(func() { close(release) }) }
	w.markerWritten.Store(&written)
	t.Cleanup(func() { w.markerWritten.Store(nil) })
	if !w.barrier(context.Background()) {
		t.Fatal("the barrier after a stopped one did not see its marker")
	}
	<-changeRead
	if !waiting {
		t.Fatal("the late marker event of a stopped barrier ended the next one's wait before the change queued ahead of its marker was read")
	}
	if got, want := snap(t, r), truth(t, work); got != want || got == before {
		t.Fatalf("the snapshot after a change is %s (before %s), git alone sees %s", got, before, want)
	}
	if _, runs := snapRuns(t, r); runs != 0 {
		t.Fatalf("the next snapshot of the unchanged tree ran git %d times", runs)
	}
}

// TestEventsQueuedBeforeARunAreReadBeforeItsFlagIsCleared: a write queues several events;
// when the snapshot's check has read only the first (the tree dirty, no barrier needed), the
// others, still in the queue, are read before the flag is cleared for git's run — else they
// would mark the tree changed after it, and the next snapshot of the unchanged tree would
// run git again (seen in CI as TestBarriersWriteOneMarker's "ran git 2 times").
func TestEventsQueuedBeforeARunAreReadBeforeItsFlagIsCleared(t *testing.T) {
	work := t.TempDir()
	file := filepath.Join(work, "a.txt")
	write(t, file, "v1\n")
	r, w, _ := watched(t, work)
	// The first change is read; the next one waits in the queue until a barrier starts.
	write(t, file, "v2\n")
	for deadline := time.Now().Add(10 * time.Second); ; {
		w.mu.Lock()
		dirty := w.dirty
		w.mu.Unlock()
		if dirty {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first change was never read")
		}
		time.Sleep(time.Millisecond)
	}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	hook := func(ev fsnotify.Event) {
		if ev.Name == file {
			once.Do(func() { close(held) })
			<-release
		}
	}
	w.beforeEvent.Store(&hook)
	t.Cleanup(func() { w.beforeEvent.Store(nil) })
	if err := os.WriteFile(file, []byte("v3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	<-held
	// Once a barrier has written its marker, the held event may be read.
	var released sync.Once
	written := func() { released.Do(func() { close(release) }) }
	w.markerWritten.Store(&written)
	t.Cleanup(func() { w.markerWritten.Store(nil) })
	if _, runs := snapRuns(t, r); runs == 0 {
		t.Fatal("the snapshot after a change ran no git")
	}
	if _, runs := snapRuns(t, r); runs != 0 {
		t.Fatalf("the next snapshot of the unchanged tree ran git %d times: an event of the change git saw was read after the flag was cleared", runs)
	}
}

// TestARemovedMarkerIsMadeAgain: a marker someone removed (or moved) is made again by the
// next barrier, so snapshots of an unchanged tree go on running no git.
func TestARemovedMarkerIsMadeAgain(t *testing.T) {
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "v1\n")
	r, w, _ := watched(t, work)
	syncDir := filepath.Join(r.GitDir(), syncDirName)
	w.mu.Lock()
	marker := w.markerPath
	w.mu.Unlock()
	must(t, os.Remove(marker))
	// The first snapshot's barrier reads the removal's event; the next one makes the marker
	// again.
	snap(t, r)
	if _, runs := snapRuns(t, r); runs != 0 {
		t.Fatalf("a snapshot of an unchanged tree ran git %d times after its marker was removed", runs)
	}
	entries, err := os.ReadDir(syncDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("the sync directory holds %d files after the marker was removed, want a new marker", len(entries))
	}
	if r.currentWatch() != w {
		t.Fatal("the detector was replaced for a removed marker")
	}
}
