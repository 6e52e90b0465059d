package search

import (
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// fullDisk stands a disk that fills and empties in front of the index (Options.SpaceCheck).
// tried receives a value each time a write is allowed while watched is set.
type fullDisk struct {
	full, watched atomic.Bool
	tried         chan struct{}
}

func (d *fullDisk) check(dir string, need int64) error {
	if d.full.Load() {
		return &persistence.DiskFullError{Dir: dir, Free: 0, Need: persistence.DefaultReserve + need}
	}
	if d.watched.Load() {
		select {
		case d.tried <- struct{}{}:
		default:
		}
	}
	return nil
}

// Issue 25 item 4: on a full disk the index writes nothing (Badger would fault on its
// memory-mapped log), pauses, and catches up by itself once there is room; opened on a full
// disk it is searched read-only as it is, and one that does not exist yet waits for room.
func TestFullDiskPausesAndCatchesUp(t *testing.T) {
	dir := t.TempDir()
	s, err := persistence.Open(filepath.Join(dir, "data"), persistence.Options{SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := addConv(t, s, "a", "A", "first message about zebras")
	disk := &fullDisk{tried: make(chan struct{}, 1)}
	idxDir := filepath.Join(dir, "idx")
	x, err := Open(idxDir, s, Options{SpaceCheck: disk.check})
	if err != nil {
		t.Fatal(err)
	}
	syncNow(t, x)

	disk.full.Store(true)
	c = appendMsgs(t, s, c, "a reply about giraffes")
	syncNow(t, x)
	if got := len(mustSearch(t, x, Query{Text: "giraffes"}).Hits); got != 0 || !x.paused.Load() {
		t.Fatalf("on a full disk: %d hits, paused %t; want nothing written and the index paused", got, x.paused.Load())
	}
	if got := len(mustSearch(t, x, Query{Text: "zebras"}).Hits); got != 1 {
		t.Fatalf("what was indexed before the disk filled: %d hits", got)
	}

	disk.watched.Store(true)
	disk.full.Store(false)
	<-disk.tried // the paused indexer woke and writes, holding mu until its catch-up is over
	x.mu.Lock()
	paused := x.paused.Load()
	x.mu.Unlock()
	if got := len(mustSearch(t, x, Query{Text: "giraffes"}).Hits); got != 1 || paused {
		t.Fatalf("after room returned: %d hits, paused %t; want the index caught up", got, paused)
	}
	disk.watched.Store(false)
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	disk.full.Store(true)
	appendMsgs(t, s, c, "and about okapis")
	ro, err := Open(idxDir, s, Options{SpaceCheck: disk.check})
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	if !ro.readOnly || len(mustSearch(t, ro, Query{Text: "giraffes"}).Hits) != 1 {
		t.Fatalf("opened on a full disk: read-only %t; want the index searched as it is", ro.readOnly)
	}
	ro.Notify("a")
	if err := ro.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(dir, "none"), s, Options{SpaceCheck: disk.check}); !errors.Is(err, persistence.ErrDiskFull) {
		t.Fatalf("a new index on a full disk: %v; want ErrDiskFull", err)
	}
}
