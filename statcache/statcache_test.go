package statcache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A file is read once while it stays the same; an edit in place, a save by rename and a
// removal are each seen at the next Load; a file changed just now is read again.
func TestLoadReadsAgainOnlyWhenTheFileChanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	// Each write gets a modification time of its own: a kernel's clock ticks coarser than
	// two writes in a row (the reason for Settle, which the clock below moves past).
	stamp := time.Now().Add(-time.Hour)
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		stamp = stamp.Add(time.Second)
		if err := os.Chtimes(path, stamp, stamp); err != nil {
			t.Fatal(err)
		}
	}
	reads := 0
	read := func(p string) (string, error) {
		reads++
		b, err := os.ReadFile(p)
		return string(b), err
	}
	var c Cache[string]
	later := time.Now().Add(time.Minute)
	c.now = func() time.Time { return later }
	load := func(want string, wantReads int) {
		t.Helper()
		got, err := c.Load(path, read)
		if err != nil || got != want || reads != wantReads {
			t.Fatalf("Load = %q, %v after %d reads; want %q after %d", got, err, reads, want, wantReads)
		}
	}
	write("one")
	load("one", 1)
	load("one", 1)
	write("two") // in place, same size
	load("two", 2)
	load("two", 2)
	tmp := filepath.Join(dir, "new")
	if err := os.WriteFile(tmp, []byte("six"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	load("six", 3)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Load(path, read); !errors.Is(err, fs.ErrNotExist) || reads != 3 {
		t.Fatalf("removed file: %v after %d reads; want not-exist without a read", err, reads)
	}
	// Changed just now: not kept, so read at each Load until it settles.
	c.now = time.Now
	write("new")
	load("new", 4)
	load("new", 5)
	c.now = func() time.Time { return later }
	load("new", 6)
	load("new", 6)
}

// A read's error is kept with the file like a value, and a bounded number of files is kept.
func TestLoadKeepsErrorsAndStaysBounded(t *testing.T) {
	dir := t.TempDir()
	var c Cache[int]
	later := time.Now().Add(time.Minute)
	c.now = func() time.Time { return later }
	bad := errors.New("not a hooks file")
	reads := 0
	read := func(string) (int, error) { reads++; return 0, bad }
	for i := range MaxEntries + 10 {
		p := filepath.Join(dir, string(rune('a'+i%26))+string(rune('a'+i/26)))
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Load(p, read); !errors.Is(err, bad) {
			t.Fatalf("error %v; want the read's", err)
		}
		if _, err := c.Load(p, read); !errors.Is(err, bad) || reads != i+1 {
			t.Fatalf("second Load of %s: %v after %d reads; want the kept error after %d", p, err, reads, i+1)
		}
		if len(c.entries) > MaxEntries {
			t.Fatalf("%d entries kept; want at most %d", len(c.entries), MaxEntries)
		}
	}
}
