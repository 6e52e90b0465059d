package persistence

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/phoenix-desktop/phoenix/domain"
)

// tryStep is step without failing the test: it returns the commit's error.
func tryStep(s *Store, c domain.Conversation, ev domain.Event) (domain.Conversation, error) {
	next, effects, err := domain.Transition(c, ev)
	if err != nil {
		return c, fmt.Errorf("transition %T from %s: %w", ev, c.State.Kind(), err)
	}
	next, _, err = s.Commit(next, persisted(effects))
	if err != nil {
		return c, err
	}
	return next, nil
}

// turn commits one exchange: the person's message, then the reply.
func turn(s *Store, c domain.Conversation, text string) (domain.Conversation, error) {
	c, err := tryStep(s, c, domain.UserMessage{Text: text})
	if err != nil {
		return c, err
	}
	exec, _ := domain.CurrentExec(c.State)
	return tryStep(s, c, domain.LLMResponse{Exec: exec, Text: "reply to " + text})
}

// fakeSpace is a file system whose free space the test sets.
type fakeSpace struct{ free atomic.Int64 }

func (f *fakeSpace) FreeSpace(string) (int64, error) { return f.free.Load(), nil }

func TestDiskFullRefusesWritesAndResumes(t *testing.T) {
	space := &fakeSpace{}
	space.free.Store(10 * DefaultReserve)
	s := openDir(t, t.TempDir(), Options{FreeSpace: space.FreeSpace})
	defer s.Close()
	c := newConv(t, s, "c1")
	c, err := turn(s, c, "first")
	if err != nil {
		t.Fatal(err)
	}

	space.free.Store(DefaultReserve - 300*1000*1000)
	_, err = turn(s, c, "second")
	mustErrIs(t, err, ErrDiskFull)
	var full *DiskFullError
	if !errors.As(err, &full) || !strings.Contains(err.Error(), "The disk holding your conversations is full: free 300 MB; nothing was lost") {
		t.Fatalf("the error does not say how much to free in the banner's words: %v", err)
	}
	if err := s.PutAux(c.ID, "queue", []byte("x")); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("PutAux on a full disk: %v, want ErrDiskFull", err)
	}
	if _, err := s.PutBlob([]byte("image")); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("PutBlob on a full disk: %v, want ErrDiskFull", err)
	}
	if err := s.Space(); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("Space on a full disk: %v", err)
	}
	// Reading still works and everything committed is there.
	_, msgs, err := s.Load(c.ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("load on a full disk: %d messages, %v", len(msgs), err)
	}
	if list, err := s.List(false); err != nil || len(list) != 1 {
		t.Fatalf("list on a full disk: %v, %v", list, err)
	}

	space.free.Store(10 * DefaultReserve)
	if _, err := turn(s, c, "third"); err != nil {
		t.Fatalf("writing did not resume when space returned: %v", err)
	}
	if _, msgs, _ = s.Load(c.ID); len(msgs) != 4 {
		t.Fatalf("after space returned: %d messages, want 4", len(msgs))
	}
}

func TestOpenOnFullDiskIsReadOnlyAndTurnsWritable(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{})
	c := newConv(t, s, "c1")
	c, err := turn(s, c, "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := logFiles(dir)
	if err != nil {
		t.Fatal(err)
	}

	space := &fakeSpace{}
	s = openDir(t, dir, Options{FreeSpace: space.FreeSpace})
	defer s.Close()
	if !s.ReadOnly() {
		t.Fatal("a store opened on a full disk is not read-only")
	}
	after, _ := logFiles(dir)
	for name := range after {
		if _, ok := before[name]; !ok && filepath.Ext(name) == ".mem" {
			t.Errorf("opening on a full disk created %s", name)
		}
	}
	if _, msgs, err := s.Load(c.ID); err != nil || len(msgs) != 2 {
		t.Fatalf("read a read-only store: %d messages, %v", len(msgs), err)
	}
	if _, err := turn(s, c, "second"); !errors.Is(err, ErrDiskFull) {
		t.Fatalf("write to a read-only store: %v, want ErrDiskFull", err)
	}

	space.free.Store(10 * DefaultReserve)
	if _, err := turn(s, c, "second"); err != nil {
		t.Fatalf("the store did not turn writable when space returned: %v", err)
	}
	if s.ReadOnly() {
		t.Fatal("still read-only after a write succeeded")
	}
}

// --- a real small file system ------------------------------------------------------------

// smallFS mounts a file system of size bytes (a tmpfs, or an ext4 image on a loop device) and
// returns its mount point; the test's cleanup unmounts it. Without root or mount support the
// test is skipped with the reason.
func smallFS(t *testing.T, kind string, size int64) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("a %s file system needs root to mount; run the tests as root to check a full disk for real", kind)
	}
	mnt := t.TempDir()
	switch kind {
	case "tmpfs":
		if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, fmt.Sprintf("size=%d", size)); err != nil {
			t.Skipf("cannot mount a tmpfs here (%v); the full-disk test needs one", err)
		}
	case "ext4":
		img := filepath.Join(t.TempDir(), "fs.img")
		if err := os.WriteFile(img, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(img, size); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("mkfs.ext4", "-q", "-F", "-m", "0", img).CombinedOutput(); err != nil {
			t.Skipf("cannot make an ext4 image (mkfs.ext4: %v: %s)", err, out)
		}
		if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
			t.Skipf("cannot loop-mount an ext4 image here (%v: %s); the full-disk test needs one", err, out)
		}
	}
	t.Cleanup(func() {
		if err := unix.Unmount(mnt, unix.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", mnt, err)
		}
	})
	return mnt
}

// fill writes a file until the file system has at most leave bytes free (ENOSPC ends it
// too), and returns it so the test can free the space again.
func fill(t *testing.T, dir string, leave int64) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for {
		free, err := FreeSpace(dir)
		if err != nil {
			t.Fatal(err)
		}
		if free <= leave {
			return path
		}
		n := min(int64(len(chunk)), free-leave)
		if _, err := f.Write(chunk[:n]); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return path
			}
			t.Fatal(err)
		}
	}
}

func allocated(t *testing.T, path string) (size, blocks int64) {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	return st.Size, st.Blocks * 512
}

// TestFullDiskRealFS fills a real small file system while a conversation commits turns: the
// commits are refused with ErrDiskFull (no SIGBUS, which would kill the test binary), every
// acknowledged turn is kept, reading works, and writing resumes once the filler goes — and
// the same with the disk full when the store opens, down to the last block.
func TestFullDiskRealFS(t *testing.T) {
	for _, kind := range []string{"tmpfs", "ext4"} {
		t.Run(kind, func(t *testing.T) {
			mnt := smallFS(t, kind, 3*DefaultReserve)
			dir := filepath.Join(mnt, "data")
			s := openDir(t, dir, Options{})
			// Every memtable log Badger mapped has its blocks: a write to it cannot fault.
			logs, _ := logFiles(dir)
			for name := range logs {
				if filepath.Ext(name) == ".mem" {
					if size, blocks := allocated(t, filepath.Join(dir, name)); blocks < size {
						t.Errorf("%s: %d of %d bytes allocated", name, blocks, size)
					}
				}
			}
			c := newConv(t, s, "c1")
			var err error
			turns := 0
			filled := false
			var filler string
			for i := 0; ; i++ {
				if i == 5 {
					// The disk fills during the conversation, below the reserve.
					filler, filled = fill(t, mnt, DefaultReserve/2), true
				}
				c, err = turn(s, c, fmt.Sprintf("turn %d %s", i, strings.Repeat("words ", 2000)))
				if err != nil {
					break
				}
				turns++
				if i > 100 {
					t.Fatal("the disk never counted as full")
				}
			}
			if !filled || !errors.Is(err, ErrDiskFull) {
				t.Fatalf("after %d turns: %v, want ErrDiskFull once the disk filled", turns, err)
			}
			if _, msgs, err := s.Load(c.ID); err != nil || len(msgs) != 2*turns {
				t.Fatalf("on the full disk: %d messages, %v; want %d", len(msgs), err, 2*turns)
			}
			// Down to the last block: still no fault, still readable.
			fill(t, mnt, 0)
			if _, err := turn(s, c, "on a disk with no block left"); !errors.Is(err, ErrDiskFull) {
				t.Fatalf("on a disk with no block left: %v", err)
			}
			if err := s.Close(); err != nil {
				t.Logf("close on a full disk: %v", err)
			}
			before, _ := logFiles(dir)
			s = openDir(t, dir, Options{})
			if !s.ReadOnly() {
				t.Fatal("opened writable on a full disk")
			}
			reopened, msgs, err := s.Load(c.ID)
			if err != nil || len(msgs) != 2*turns {
				t.Fatalf("reopened on the full disk: %d messages, %v; want %d", len(msgs), err, 2*turns)
			}
			after, _ := logFiles(dir)
			if len(after) > len(before) {
				t.Errorf("opening on a full disk left logs behind: before %v, after %v", before, after)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			if _, err := turn(s, reopened, "after freeing space"); err != nil {
				t.Fatalf("writing did not resume by itself once space was freed: %v", err)
			}
			if _, msgs, _ := s.Load(c.ID); len(msgs) != 2*turns+2 {
				t.Fatalf("after freeing: %d messages, want %d", len(msgs), 2*turns+2)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Issue 33: a data directory whose creation a full disk cut short (a first start on a
// nearly full disk: Badger never wrote its MANIFEST) opened on a full disk is an empty read-only store, not "no manifest found,
// required for read-only db": reading works, writing says the disk is full in the store's
// words, and once there is room the database is created and keeps what is written.
func TestNeverCreatedStoreOpensEmptyOnAFullDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// What a first start on a disk with less than the reserve free leaves: the directory.
	space := &fakeSpace{}
	s := openDir(t, dir, Options{FreeSpace: space.FreeSpace})
	defer s.Close()
	if !s.ReadOnly() {
		t.Fatal("a never-created store opened on a full disk is not read-only")
	}
	if list, err := s.List(true); err != nil || len(list) != 0 {
		t.Fatalf("list of a never-created store: %v, %v; want it empty", list, err)
	}
	c := domain.Conversation{ID: "c1", Cwd: "/w", Model: "m", State: domain.Idle{}}
	_, err := s.Create(c)
	var full *DiskFullError
	if !errors.As(err, &full) || !strings.Contains(err.Error(), "The disk holding your conversations is full") {
		t.Fatalf("write to a never-created store on a full disk: %v; want the store's disk-full words", err)
	}

	space.free.Store(10 * DefaultReserve)
	newConv(t, s, "c1")
	if s.ReadOnly() {
		t.Fatal("still read-only after a write succeeded")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir, Options{})
	defer s.Close()
	if _, err := s.Get("c1"); err != nil {
		t.Fatalf("the conversation written once there was room: %v", err)
	}
}
