package persistence

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/persistence/crashtest"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestLargestCommitFits holds the store's Badger sizes (badgersizes.go) to the largest writes
// the app makes: an assistant reply with tool calls, committed with the conversation record
// whose state repeats those calls, both just under the value threshold (so both count in
// full) and far over it; a tool result at the output cap in the encoding that grows most;
// a checkpoint record naming many files; an image of the largest size; and the headroom the
// sizes promise, four messages just under the threshold in one commit. A memtable too small
// for these, or a threshold too high for the memtable, fails here with ErrTooLarge.
func TestLargestCommitFits(t *testing.T) {
	s := openDir(t, t.TempDir(), Options{Now: newFakeClock().Now})
	defer s.Close()
	c := newConv(t, s, "big", withWindow(10_000_000))
	c = step(t, s, c, domain.UserMessage{Text: "write the files"})

	// The reply's message and the state's copy of the calls, each just under the threshold.
	args := func(n int) string { return `{"command":"` + strings.Repeat("a", n) + `"}` }
	c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "here",
		ToolCalls: []domain.ToolCall{call("near", domain.ToolBash, args(valueThreshold-2048))}})
	// The result at the output cap, in control characters (six bytes each in JSON).
	c = step(t, s, c, domain.ToolComplete{Exec: execOf(t, c), Result: okResult(strings.Repeat("\x01", domain.ToolOutputLimit))})

	// A reply with many big calls: message and state far over the threshold.
	var calls []domain.ToolCall
	for i := range 16 {
		calls = append(calls, call(fmt.Sprintf("big-%d", i), domain.ToolBash, args(100<<10)))
	}
	c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "more", ToolCalls: calls})
	c = step(t, s, c, domain.UserCancel{})

	// A checkpoint record for a call that changed tens of thousands of files, and one just
	// under the threshold.
	for _, n := range []int{4 << 20, valueThreshold - 512} {
		if err := s.PutAuxUnflushed("big", fmt.Sprintf("cp-%d", n), bytes.Repeat([]byte("f"), n)); err != nil {
			t.Fatalf("a checkpoint record of %d bytes: %v", n, err)
		}
	}
	if _, err := s.PutBlob(bytes.Repeat([]byte{7}, MaxValueSize)); err != nil {
		t.Fatalf("an image of the largest size: %v", err)
	}

	// Four messages just under the threshold in one commit.
	var msgs []domain.Message
	for i := range 4 {
		msgs = append(msgs, domain.Message{Seq: c.NextSeq + uint64(i), Kind: domain.KindSystem, Text: strings.Repeat("n", valueThreshold-1024)})
	}
	c.NextSeq += uint64(len(msgs))
	if _, _, err := s.Commit(c, msgs); err != nil {
		t.Fatalf("four messages just under the value threshold in one commit: %v", err)
	}
	got, stored, err := s.Load("big")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkConsistent(s, got, stored); err != nil {
		t.Fatal(err)
	}
}

// TestOpenAfterCrashWithBiggerMemtables: a crash of a version with bigger memtables leaves a
// memtable log holding more than one of today's memtables takes; Badger would panic
// replaying it ("Arena too small"). The store opens it with memtables of its size, flushes
// it, and opens again with its own.
func TestOpenAfterCrashWithBiggerMemtables(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{})
	newConv(t, s, "old")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// The older version's memtables (16 MiB, Badger's default value threshold), filled to
	// twice what today's take, and a copy of the directory taken while it is open: what a
	// crash leaves.
	old := badgerOptions(false).WithDir(dir).WithValueDir(dir).WithLogger(nil).
		WithMemTableSize(16 << 20).WithValueThreshold(badger.DefaultOptions("").ValueThreshold)
	db, err := badger.Open(old)
	if err != nil {
		t.Fatal(err)
	}
	const records = 2 * memTableSize / 1024
	for i := range records {
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(auxKey("old", fmt.Sprintf("r%d", i)), bytes.Repeat([]byte{'r'}, 900))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	crashed := t.TempDir()
	crashtest.CopyDir(t, dir, crashed)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s = openDir(t, crashed, Options{})
	defer s.Close()
	if v, err := s.Aux("old", fmt.Sprintf("r%d", records-1)); err != nil || len(v) != 900 {
		t.Fatalf("the last record written before the crash: %d bytes, %v", len(v), err)
	}
	logs, err := logFiles(crashed)
	if err != nil {
		t.Fatal(err)
	}
	for name, size := range logs {
		if filepath.Ext(name) == ".mem" && size > 2*memTableSize {
			t.Errorf("the store still writes a memtable log of the old size: %s is %d bytes", name, size)
		}
	}
}

// TestSizesTableIsTrue: docs/ARCHITECTURE.md lists every cache and its size in one table
// ("Memory over a long life"); its rows for this store say what badgersizes.go sets.
func TestSizesTableIsTrue(t *testing.T) {
	doc, err := os.ReadFile("../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	mib := func(n int) string {
		if n%(1<<20) != 0 {
			return fmt.Sprintf("%d KiB", n>>10)
		}
		return fmt.Sprintf("%d MiB", n>>20)
	}
	want := map[string]string{
		"memtables":        fmt.Sprintf("| %s, %d (", mib(memTableSize), numMemtables),
		"value threshold":  fmt.Sprintf("| %d KiB |", valueThreshold>>10),
		"block cache":      fmt.Sprintf("| %s |", mib(blockCacheSize)),
		"value log file (": fmt.Sprintf("| %s |", mib(valueLogFileSize)),
	}
	for what, cell := range want {
		found := false
		for line := range strings.SplitSeq(string(doc), "\n") {
			if strings.HasPrefix(line, "| the store's Badger: "+what) {
				found = true
				if !strings.Contains(line, cell) {
					t.Errorf("docs/ARCHITECTURE.md says %q; the store sets %q", line, cell)
				}
			}
		}
		if !found {
			t.Errorf("docs/ARCHITECTURE.md has no row for the store's Badger %s", what)
		}
	}
}

// TestReadingTheStoreHoldsLittle: what reading a store leaves in the Go heap for as long as
// the app stays open is Badger's block cache (decompressed table blocks, in the heap; issue
// 43). Reading every record of a store far bigger than that cache, twice, leaves it holding
// at most 2 MiB (the old 16 MiB filled with what was read and stayed full).
func TestReadingTheStoreHoldsLittle(t *testing.T) {
	s := openDir(t, t.TempDir(), Options{})
	defer s.Close()
	newConv(t, s, "big")
	// Five memtables' worth in records of two blocks each: at most two memtables are not yet
	// tables, so the reads below go through at least 6 MiB of blocks.
	const size = 8 << 10
	n := 5 * memTableSize / size
	rng := rand.New(rand.NewPCG(1, 2))
	value := make([]byte, size)
	for i := range n {
		for j := range value {
			value[j] = 'a' + byte(rng.IntN(26))
		}
		if err := s.PutAuxUnflushed("big", fmt.Sprintf("r%05d", i), value); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		for i := range n {
			if v, err := s.Aux("big", fmt.Sprintf("r%05d", i)); err != nil || len(v) != size {
				t.Fatalf("record %d: %d bytes, %v", i, len(v), err)
			}
		}
	}
	m := s.db.BlockCacheMetrics()
	held := int64(m.CostAdded()) - int64(m.CostEvicted())
	const budget = 512 << 10
	if held > budget {
		t.Errorf("reading %d MiB of records left %d KiB of blocks in the block cache; the store may hold at most %d KiB",
			n*size>>20, held>>10, budget>>10)
	}
}

// TestNoIndexCache: Badger reads an unencrypted table's index and Bloom filter in place from
// the mapped table and puts them in its index cache only for encrypted tables, so the store
// opens none (the old 8 MiB one held nothing but its own counters).
func TestNoIndexCache(t *testing.T) {
	s := openDir(t, t.TempDir(), Options{})
	defer s.Close()
	if s.db.IndexCacheMetrics() != nil {
		t.Errorf("the store's Badger has an index cache of %d bytes, which only encrypted tables use", s.db.Opts().IndexCacheSize)
	}
}
