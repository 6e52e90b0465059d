package persistence

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"
	"github.com/phoenix-desktop/phoenix/domain"
)

// TestMappedFilesLeaveTheResidentMemory (issue 43): Badger writes its tables and logs and
// reads its tables through mappings of the files, and every page touched stayed in the
// app's resident memory while the store was open: a window open through 2,000 turns held
// some 10 MiB more that way. A table just written and a log just synced are dropped from
// it (the patched ristretto in third_party/ristretto), and ReleaseMappedFiles, at rest,
// drops what reads brought in; the pages stay in the page cache, so reads after it are
// still right, and the data is still on the disk after the store is closed.
func TestMappedFilesLeaveTheResidentMemory(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{SyncInterval: -1})
	defer func() { _ = s.Close() }()

	// Three quarters of a memtable in values Snappy cannot shrink, under the value threshold:
	// in the memtable and its log, then in a table as big.
	const size, n = 4 << 10, 3 * memTableSize / 4 / (4 << 10)
	rng := rand.New(rand.NewPCG(4, 3))
	want := make(map[string][]byte, n)
	for b := 0; b < n; b += 64 {
		err := s.db.Update(func(txn *badger.Txn) error {
			for i := b; i < b+64; i++ {
				v := make([]byte, size)
				for j := range v {
					v[j] = byte(rng.Uint32())
				}
				k := fmt.Sprintf("t/%05d", i)
				want[k] = v
				if err := txn.Set([]byte(k), v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if kib := mappedRssKiB(t, dir, ".mem"); kib < memTableSize/2>>10 {
		t.Fatalf("the memtable log holds %d KiB of resident memory after %d KiB written through it: the test writes too little to tell", kib, n*size>>10)
	}
	if err := s.db.Sync(); err != nil {
		t.Fatal(err)
	}
	if kib := mappedRssKiB(t, dir, ".mem"); kib > 64 {
		t.Errorf("the memtable log holds %d KiB of resident memory once synced, want at most 64", kib)
	}

	// DropPrefix writes every memtable to a table before it returns (a key of its own, so
	// that it has something to drop).
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("x/drop"), []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.db.DropPrefix([]byte("x/")); err != nil {
		t.Fatal(err)
	}
	if kib := mappedRssKiB(t, dir, ".sst"); kib > 256 {
		t.Errorf("the tables just written hold %d KiB of resident memory, want at most 256 (their index, read when opened)", kib)
	}

	read := func(when string) {
		t.Helper()
		err := s.db.View(func(txn *badger.Txn) error {
			for k, v := range want {
				item, err := txn.Get([]byte(k))
				if err != nil {
					return fmt.Errorf("%s: %w", k, err)
				}
				got, err := item.ValueCopy(nil)
				if err != nil {
					return err
				}
				if !bytes.Equal(got, v) {
					return fmt.Errorf("%s holds other bytes", k)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read back %s: %v", when, err)
		}
	}
	read("from the new tables")
	if kib := mappedRssKiB(t, dir, ".sst"); kib < memTableSize/2>>10 {
		t.Fatalf("the tables hold %d KiB of resident memory after %d KiB read from them: the test reads too little to tell", kib, n*size>>10)
	}
	if n := ReleaseMappedFiles(); n < 3 {
		t.Errorf("ReleaseMappedFiles advised %d mappings, want the tables, logs and discard file", n)
	}
	if kib := mappedRssKiB(t, dir, ".sst"); kib > 64 {
		t.Errorf("the tables hold %d KiB of resident memory after ReleaseMappedFiles, want at most 64", kib)
	}
	read("after their pages were released")

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openDir(t, dir, Options{SyncInterval: -1})
	read("after the store opened again")
}

// mappedRssKiB is the resident memory of this process's mappings of the files in dir whose
// name ends with ext (/proc/self/smaps).
func mappedRssKiB(t *testing.T, dir, ext string) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	kib, ours := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			name := ""
			if len(fields) >= 6 {
				name = fields[5]
			}
			ours = filepath.Dir(name) == abs && strings.HasSuffix(name, ext)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ours && ok {
			v, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			if err != nil {
				t.Fatalf("smaps line %q: %v", line, err)
			}
			kib += v
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return kib
}

// TestLoadLeavesTheTablesItReadOutOfTheResidentMemory (issue 43): loading a conversation reads
// its whole history from the tables, and the caller keeps it; the pages it faulted in leave
// the app's resident memory once it is read (a conversation loaded again reads them from the
// page cache), or every conversation loaded since the last rest stayed there twice.
func TestLoadLeavesTheTablesItReadOutOfTheResidentMemory(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{SyncInterval: -1, Now: newFakeClock().Now})
	defer func() { _ = s.Close() }()
	c := newConv(t, s, "long")
	rng := rand.New(rand.NewPCG(5, 6))
	for range 24 {
		var msgs []domain.Message
		for i := range 32 {
			text := make([]byte, 4<<10)
			for j := range text {
				text[j] = 'a' + byte(rng.IntN(26))
			}
			msgs = append(msgs, domain.Message{Seq: c.NextSeq + uint64(i), Kind: domain.KindSystem, Text: string(text)})
		}
		c.NextSeq += uint64(len(msgs))
		var err error
		if c, _, err = s.Commit(c, msgs); err != nil {
			t.Fatal(err)
		}
	}
	// Every memtable becomes a table before DropPrefix returns.
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte("x/drop"), []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.db.DropPrefix([]byte("x/")); err != nil {
		t.Fatal(err)
	}
	ReleaseMappedFiles()
	got, msgs, err := s.Load("long")
	if err != nil {
		t.Fatal(err)
	}
	if got.NextSeq != c.NextSeq || uint64(len(msgs)) != c.NextSeq {
		t.Fatalf("loaded %d messages (next sequence %d), want %d", len(msgs), got.NextSeq, c.NextSeq)
	}
	if kib := mappedRssKiB(t, dir, ".sst"); kib > 64 {
		t.Errorf("the tables hold %d KiB of resident memory after a load of %d KiB of history, want at most 64", kib, len(msgs)*4)
	}
}
