package checkpoint

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

var errFull = errors.New("the disk is full")

// Issue 25 item 4: on a disk that is short, no repository is made and no snapshot runs git
// (each is refused with the space check's error, so the caller can say so), and once there
// is room the snapshots go on as if nothing happened.
func TestSnapshotsWaitForRoomOnAFullDisk(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	work := t.TempDir()
	write(t, filepath.Join(work, "a.txt"), "one")
	var full atomic.Bool
	var asked atomic.Int64
	check := func(dir string, need int64) error {
		asked.Store(need)
		if full.Load() {
			return errFull
		}
		return nil
	}
	gitDir := filepath.Join(t.TempDir(), "shadow.git")
	ctx := context.Background()

	full.Store(true)
	if _, err := Open(ctx, gitDir, work, WithSpaceCheck(check)); !errors.Is(err, errFull) {
		t.Fatalf("open on a full disk: %v; want the space check's error", err)
	}
	for _, p := range []string{gitDir, gitDir + ".init"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused open left %s behind: %v", p, err)
		}
	}

	full.Store(false)
	r, err := Open(ctx, gitDir, work, WithSpaceCheck(check))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	first := snap(t, r)
	if asked.Load() != int64(len("one")) {
		t.Fatalf("the first snapshot asked for %d bytes; want the tree's size, %d", asked.Load(), len("one"))
	}

	write(t, filepath.Join(work, "a.txt"), "two")
	runs := r.GitRuns()
	full.Store(true)
	if _, err := r.Snapshot(ctx); !errors.Is(err, errFull) {
		t.Fatalf("snapshot on a full disk: %v; want the space check's error", err)
	}
	if r.GitRuns() != runs {
		t.Fatalf("a refused snapshot ran git %d times", r.GitRuns()-runs)
	}
	full.Store(false)
	second := snap(t, r)
	if second == first {
		t.Fatal("the snapshot after room returned missed the change")
	}
	if _, err := r.Restore(ctx, "", first, []string{"a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(work, "a.txt")); got != "one" {
		t.Fatalf("restore after a full disk: %q", got)
	}
}
