package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/persistence/crashtest"
)

// TestOpenAfterCrashWithBiggerMemtables: a crash of a version whose index had 16 MiB
// memtables leaves a memtable log that today's memtables (indexMemTable) cannot take; Badger
// would panic replaying it. The index opens it with memtables of its size and then its own.
func TestOpenAfterCrashWithBiggerMemtables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(16 << 20).WithValueLogFileSize(64 << 20))
	if err != nil {
		t.Fatal(err)
	}
	const records = 2 * indexMemTable / 1024
	for i := range records {
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "z/%d", i), bytes.Repeat([]byte{'r'}, 900))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(t.TempDir(), "index")
	crashtest.CopyDir(t, dir, crashed)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, crashed, memStore(t))
	if _, err := x.Search(Query{Text: "anything"}); err != nil {
		t.Fatalf("search the reopened index: %v", err)
	}
}

// TestIndexReadsHoldLittle: what reading the index leaves in the Go heap for as long as the
// app stays open is its Badger's block cache (issue 43). Reading back far more than that
// cache leaves it holding at most 512 KiB (the old 16 MiB filled and stayed full, 2 MiB too), and there
// is no index cache, which only encrypted tables use.
func TestIndexReadsHoldLittle(t *testing.T) {
	x := openIndex(t, filepath.Join(t.TempDir(), "index"), memStore(t))
	if x.db.IndexCacheMetrics() != nil {
		t.Errorf("the index's Badger has an index cache of %d bytes, which only encrypted tables use", x.db.Opts().IndexCacheSize)
	}
	// 12 MiB of blocks beside the two memtables that may not yet be tables.
	const size = 8 << 10
	n := (12<<20 + 2*indexMemTable) / size
	rng := rand.New(rand.NewPCG(1, 2))
	value := make([]byte, size)
	key := func(i int) []byte { return fmt.Appendf(nil, "zz/test/%05d", i) }
	for i := range n {
		for j := range value {
			value[j] = 'a' + byte(rng.IntN(26))
		}
		if err := x.db.Update(func(txn *badger.Txn) error { return txn.Set(key(i), value) }); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for i := range n {
			if err := x.db.View(func(txn *badger.Txn) error {
				_, err := txn.Get(key(i))
				return err
			}); err != nil {
				t.Fatalf("read back record %d: %v", i, err)
			}
		}
	}
	m := x.db.BlockCacheMetrics()
	const budget = 512 << 10
	if held := int64(m.CostAdded()) - int64(m.CostEvicted()); held > budget {
		t.Errorf("reading %d MiB back left %d KiB of blocks in the index's block cache; it may hold at most %d KiB",
			n*size>>20, held>>10, budget>>10)
	}
}

// TestOpenIndexHoldsLittle (issue 43): what the open index holds in the Go heap from its
// start is its Badger's memtable arenas (1.3 × the memtable each, the mutable one always)
// and its block cache's bookkeeping; at GOGC 50 the heap grows by half as much again before
// a collection. With 4 MiB memtables it held 5.7 MiB; it may hold at most 3.
func TestOpenIndexHoldsLittle(t *testing.T) {
	s := memStore(t)
	dir := filepath.Join(t.TempDir(), "index")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	x := openIndex(t, dir, s)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(x)
	const budget = 3 << 20
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > budget {
		t.Errorf("the open index holds %.1f MiB of the Go heap, want at most %d MiB", float64(held)/(1<<20), budget>>20)
	}
}
