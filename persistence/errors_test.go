package persistence

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"

	"github.com/phoenix-desktop/phoenix/domain"
)

func TestOpenTwiceIsLocked(t *testing.T) {
	dir := t.TempDir()
	first := openDir(t, dir, Options{})
	_, err := Open(dir, Options{})
	mustErrIs(t, err, ErrLocked)
	if want := "Phoenix Desktop is already running with data in " + dir; !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	// The refused open must not have disturbed the first one.
	if _, err := first.Create(mustNew(t, "a")); err != nil {
		t.Fatalf("first store unusable after a refused second open: %v", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	again := openDir(t, dir, Options{})
	defer again.Close()
	if _, err := again.Get("a"); err != nil {
		t.Fatal(err)
	}
}

func TestOpenBadgerLockedByAnotherProgram(t *testing.T) {
	// Something other than Phoenix Desktop (a Badger tool) holds Badger's own lock.
	dir := t.TempDir()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, err = Open(dir, Options{})
	mustErrIs(t, err, ErrLocked)
	if !strings.Contains(err.Error(), dir) {
		t.Fatalf("error %q does not name the directory", err)
	}
}

func mustNew(t testing.TB, id string) domain.Conversation {
	t.Helper()
	c, err := domain.NewConversation(domain.NewConversationParams{ID: id, Cwd: "/tmp", Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOpenNotWritable(t *testing.T) {
	t.Run("path under a regular file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(file, "data")
		_, err := Open(dir, Options{})
		mustErrIs(t, err, ErrNotWritable)
		if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "--data-dir") {
			t.Fatalf("error %q should name %s and say what to do", err, dir)
		}
	})
	t.Run("read-only directory", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		makeReadOnly(t, dir)
		_, err := Open(dir, Options{})
		mustErrIs(t, err, ErrNotWritable)
		if !strings.Contains(err.Error(), dir) {
			t.Fatalf("error %q does not name %s", err, dir)
		}
	})
}

// makeReadOnly makes dir unwritable for this process. Root ignores permission bits, so as root
// the directory is marked immutable (chattr +i), which binds root too; where the file system
// has no such flag the case is skipped, saying why.
func makeReadOnly(t *testing.T, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags|fsImmutableFL))
	}
	if err != nil {
		t.Skipf("running as root, which ignores permission bits, and %s does not support the immutable flag (%v): "+
			"cannot make a directory read-only for this process", dir, err)
	}
	t.Cleanup(func() {
		f, err := os.Open(dir)
		if err != nil {
			t.Errorf("reopen %s to clear the immutable flag: %v", dir, err)
			return
		}
		defer f.Close()
		if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags)); err != nil {
			t.Errorf("clear the immutable flag of %s: %v", dir, err)
		}
	})
}

func TestOpenUnreadableDatabase(t *testing.T) {
	// A MANIFEST that is not Badger's: Open must fail, say where, and change nothing.
	dir := t.TempDir()
	manifest := filepath.Join(dir, "MANIFEST")
	garbage := []byte("this is not a badger manifest")
	if err := os.WriteFile(manifest, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir, Options{})
	if err == nil {
		t.Fatal("opened a directory with a damaged manifest")
	}
	if !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "nothing was changed or deleted") {
		t.Fatalf("error %q should name %s and reassure", err, dir)
	}
	if got, _ := os.ReadFile(manifest); string(got) != string(garbage) {
		t.Fatal("the damaged manifest was rewritten")
	}
	// The lock is released, so a fixed directory can be opened by the same process.
	if err := os.Remove(manifest); err != nil {
		t.Fatal(err)
	}
	s := openDir(t, dir, Options{})
	_ = s.Close()
}

func TestUndecodableValues(t *testing.T) {
	s := openMem(t)
	for _, id := range []string{"good", "badconv", "badsum", "badmsg", "p"} {
		c := newConv(t, s, id)
		step(t, s, c, domain.UserMessage{Text: "hello " + id})
	}
	kid := newConv(t, s, "p-sub-1-1", withParent("p", 1, "t"))
	_ = kid
	newConv(t, s, "p-sub-1-2", withParent("p", 1, "t"))
	garbage := []byte("\x00{not json")
	if err := s.db.Update(func(txn *badger.Txn) error {
		for _, k := range [][]byte{convKey("badconv"), summaryKey("badsum"), msgKey("badmsg", 0), convKey("p-sub-1-2")} {
			if err := txn.Set(k, garbage); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	t.Run("Load names the conversation", func(t *testing.T) {
		for _, id := range []string{"badconv", "badmsg"} {
			_, _, err := s.Load(id)
			mustErrIs(t, err, ErrCorrupt)
			var ce *CorruptError
			if !errors.As(err, &ce) || ce.ID != id {
				t.Fatalf("Load(%s) error %v does not name the conversation", id, err)
			}
		}
		_, err := s.Get("badconv")
		mustErrIs(t, err, ErrCorrupt)
		_, err = s.MessagesSince("badmsg", 0)
		mustErrIs(t, err, ErrCorrupt)
	})
	t.Run("the rest stays usable", func(t *testing.T) {
		for _, id := range []string{"good", "badsum"} {
			if _, msgs, err := s.Load(id); err != nil || len(msgs) != 1 {
				t.Fatalf("Load(%s) = %v, %v", id, msgs, err)
			}
		}
	})
	t.Run("List skips and reports", func(t *testing.T) {
		list, err := s.List(false)
		mustErrIs(t, err, ErrCorrupt)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.ID != "badsum" {
			t.Fatalf("List error %v does not name badsum", err)
		}
		got := summaryIDs(list)
		if len(got) != 4 || strings.Contains(strings.Join(got, ","), "badsum") {
			t.Fatalf("List returned %v, want the four readable conversations", got)
		}
	})
	t.Run("Children skips and reports", func(t *testing.T) {
		kids, err := s.Children("p")
		mustErrIs(t, err, ErrCorrupt)
		if len(kids) != 1 || kids[0].ID != "p-sub-1-1" {
			t.Fatalf("Children = %v", kids)
		}
	})
	t.Run("Recover reports and recovers the rest", func(t *testing.T) {
		rep, err := s.Recover()
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"badconv", "p-sub-1-2"} {
			if !errors.Is(rep.Failed[id], ErrCorrupt) {
				t.Errorf("Recover did not report %s as corrupt: %v", id, rep.Failed)
			}
		}
		if !errors.Is(rep.Failed["badmsg"], ErrCorrupt) {
			t.Errorf("Recover did not report badmsg's unreadable history: %v", rep.Failed)
		}
		for _, id := range []string{"good", "badsum", "p"} {
			c, err := s.Get(id)
			if err != nil || domain.Busy(c.State) {
				t.Errorf("%s not recovered: %v, %v", id, c.State, err)
			}
		}
	})
	t.Run("a corrupt conversation can be deleted", func(t *testing.T) {
		for _, id := range []string{"badconv", "p-sub-1-2"} {
			if err := s.Delete(id); err != nil {
				t.Fatalf("Delete(%s): %v", id, err)
			}
		}
		if kids, err := s.Children("p"); err != nil || len(kids) != 1 {
			t.Fatalf("Children after deleting the corrupt one = %v, %v", kids, err)
		}
	})
	t.Run("damaged history", func(t *testing.T) {
		if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(msgKey("good", 0)) }); err != nil {
			t.Fatal(err)
		}
		_, _, err := s.Load("good")
		mustErrIs(t, err, ErrCorrupt)
	})
}

func TestSchema(t *testing.T) {
	t.Run("new database stamped", func(t *testing.T) {
		s := openMem(t)
		v, ok, err := s.readSchema()
		if err != nil || !ok || v != currentSchema() || v != 1 {
			t.Fatalf("schema = %d %t %v, want 1", v, ok, err)
		}
	})
	t.Run("newer schema refused untouched", func(t *testing.T) {
		dir := t.TempDir()
		writeRaw(t, dir, keySchema, "7")
		_, err := Open(dir, Options{})
		mustErrIs(t, err, ErrSchema)
		if !strings.Contains(err.Error(), "update Phoenix Desktop") {
			t.Fatalf("error %q does not say what to do", err)
		}
		if got := readRaw(t, dir, keySchema); got != "7" {
			t.Fatalf("schema rewritten to %q", got)
		}
	})
	t.Run("data without schema refused", func(t *testing.T) {
		dir := t.TempDir()
		writeRaw(t, dir, "someone/else", "x")
		_, err := Open(dir, Options{})
		mustErrIs(t, err, ErrSchema)
	})
	t.Run("migration hook runs once per version", func(t *testing.T) {
		dir := t.TempDir()
		s := openDir(t, dir, Options{})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		saved := migrations
		t.Cleanup(func() { migrations = saved })
		runs := 0
		migrations = append(slices.Clone(saved), func(db *badger.DB) error {
			runs++
			return db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("meta/migrated"), []byte("yes")) })
		})
		for range 2 {
			s = openDir(t, dir, Options{})
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if runs != 1 {
			t.Fatalf("migration ran %d times, want 1", runs)
		}
		if got := readRaw(t, dir, keySchema); got != strconv.Itoa(2) {
			t.Fatalf("schema after migration = %q, want 2", got)
		}
		if got := readRaw(t, dir, "meta/migrated"); got != "yes" {
			t.Fatal("migration's write is missing")
		}
	})
	t.Run("failed migration keeps the version", func(t *testing.T) {
		dir := t.TempDir()
		s := openDir(t, dir, Options{})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		saved := migrations
		t.Cleanup(func() { migrations = saved })
		boom := errors.New("boom")
		migrations = append(slices.Clone(saved), func(*badger.DB) error { return boom })
		_, err := Open(dir, Options{})
		mustErrIs(t, err, boom)
		migrations = saved
		if got := readRaw(t, dir, keySchema); got != "1" {
			t.Fatalf("schema after a failed migration = %q, want 1", got)
		}
	})
}

func writeRaw(t *testing.T, dir, key, value string) {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(key), []byte(value)) }); err != nil {
		t.Fatal(err)
	}
}

func readRaw(t *testing.T, dir, key string) string {
	t.Helper()
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v []byte
	err = db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(key))
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if err != nil {
		t.Fatalf("read %s: %v", key, err)
	}
	return string(v)
}

// fsImmutableFL is FS_IMMUTABLE_FL from linux/fs.h, which golang.org/x/sys does not export.
const fsImmutableFL = 0x00000010

// TestOpenProbesOnlyADirectoryThatWasThere: a data directory Open makes is its own and
// writable, so it is not probed with a file made and removed (a cold chat's first open in a
// new directory, issue 39); one that existed is still proved writable (TestOpenNotWritable).
func TestOpenProbesOnlyADirectoryThatWasThere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	before := writeProbes.Load()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := writeProbes.Load() - before; n != 0 {
		t.Errorf("a new data directory was probed %d times, want none", n)
	}
	s, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := writeProbes.Load() - before; n != 1 {
		t.Errorf("an existing data directory was probed %d times, want once", n)
	}
}
