package persistence

import (
	"path/filepath"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/ristretto/v2/z"
)

// Badger's memory, sized for an app that stays open for weeks (issue 43). Badger's defaults
// are a server's: a 64 MiB memtable (held as a Go arena of 1.3 times that, in full, from
// the moment it is made), 5 of them, a 256 MiB block cache and every table's index kept in
// memory. What each size here is, and why:
//
//   - memTableSize (space.go), 2 MiB: the arena Badger allocates for a memtable is 1.3 ×
//     this, and the mutable one is always held, so this is what a store holds at rest. Its
//     pages become resident as the memtable fills (in the window's soak, issue 43: untouched
//     at start, partly filled after the first 200 turns, filled and replaced every 300–400
//     turns), and each turnover allocates the next arena beside the one being flushed,
//     whose pages the heap keeps until the scavenger returns them. A turn writes a few KiB,
//     so a memtable still takes hundreds of turns; a flush of 2 MiB takes milliseconds.
//     The cost is the size of one transaction: Badger refuses one over 15% of the memtable
//     (about 307 KiB here, counting a value's full size below valueThreshold and a
//     pointer's 12 bytes above it) or over that many ÷ 96 entries (3,276), which
//     valueThreshold keeps out of reach (TestLargestCommitFits).
//   - valueThreshold, 64 KiB: a value this big or bigger goes to the value log and costs a
//     transaction (and the memtable) a pointer. The largest commit the app makes is an
//     assistant reply with tool calls together with the conversation record, whose state
//     repeats those calls, or a round's results answered at once; with every value over
//     64 KiB a pointer, four values just under it still fit (Badger refuses to open with
//     a threshold over what one transaction takes, as its default of 1 MiB is here). It
//     stays at 64 KiB, not lower for more headroom, because nothing collects the value log:
//     a record rewritten at each commit (a conversation's) that crossed the threshold would
//     leave a copy there every time. Values between 64 KiB and 1 MiB (the longest tool
//     outputs and replies) now sit in the value log beside the images: the log is
//     appended to and read through its map, so they cost the process no heap.
//   - numMemtables, 2: the mutable memtable and one being flushed. More only help a writer
//     faster than a flush, which one person's conversations never are.
//   - blockCacheSize, 512 KiB: decompressed table blocks, in the Go heap for as long as the
//     store is open. The tables are Snappy-compressed (Badger's default, never changed, and
//     what every store on disk holds), and Badger refuses to open compressed tables without a
//     block cache (only uncompressed, unencrypted ones may go without). The cache fills with
//     what was read and stays full, so its size is what it holds: the window's soak (issue
//     43) left the two stores' caches holding 3.1 MiB of 4 at rest after 2,000 turns, and at
//     GOGC 50 the heap grows by half as much again before a collection. What is read again
//     soon fits in 128 blocks: the conversations' records (a commit reads its own from a
//     memo, convmemo.go) and the list's summaries; a conversation loaded again — its whole
//     history, once per rest — is read from the page cache and decompressed again (Snappy:
//     about a millisecond per MiB; TestReadingTheStoreHoldsLittle).
//   - no index cache (Badger's default): Badger reads an unencrypted table's index and Bloom
//     filter in place from the mapped table and never puts them in this cache (only
//     encrypted tables use it), so a size here bought nothing but the cache's own counters.
//   - valueLogFileSize (space.go), 128 MiB: one value log must hold the largest value
//     (MaxValueSize). Badger maps it, as it maps the memtable logs and tables; the pages
//     touched leave the app's resident memory once written back and at rest
//     (ReleaseMappedFiles, below).
//
// An in-memory store (tests only) keeps Badger's value threshold and a memtable that takes
// it: without a value log every value lives in the memtable.
const (
	valueThreshold = 64 << 10
	numMemtables   = 2
	blockCacheSize = 512 << 10
	// inMemoryMemTableSize takes one value of Badger's default threshold (1 MiB) in a
	// transaction (15% of it, 2.4 MiB).
	inMemoryMemTableSize = 16 << 20
)

// badgerOptions are the store's Badger options for dir ("" in memory), before the store adds
// its logger, directories and sync choice.
func badgerOptions(inMemory bool) badger.Options {
	o := badger.DefaultOptions("").
		WithMetricsEnabled(false).
		WithNumCompactors(2).
		WithNumMemtables(numMemtables).
		WithBlockCacheSize(blockCacheSize).
		WithIndexCacheSize(0).
		// Small logs, so that the reserve a write leaves covers them (space.go).
		WithMemTableSize(memTableSize).
		WithValueThreshold(valueThreshold).
		WithValueLogFileSize(valueLogFileSize)
	if inMemory {
		o = o.WithInMemory(true).WithMemTableSize(inMemoryMemTableSize).WithValueThreshold(badger.DefaultOptions("").ValueThreshold)
	}
	return o
}

// LeftoverMemTableSize is the memtable size to open the Badger database in dir with: want,
// or more when a crash left memtable logs written with bigger memtables (a version before
// issue 43's sizes). Badger replays each such log into one memtable of the size it is opened
// with, and panics when the log holds more than that takes. Badger deletes every memtable
// log on a clean close and stops filling one at its memtable size, so a log's size bounds
// what it holds: a log left as Badger made it is twice its memtable, one a replay already
// cut to its last entry is what it holds (a memtable's arena takes the entries in about the
// bytes their log does, plus Badger's 30%). The search index opens its own Badger through
// this too.
func LeftoverMemTableSize(dir string, want int64) int64 {
	if dir == "" {
		return want
	}
	logs, err := logFiles(dir)
	if err != nil {
		return want
	}
	for name, size := range logs {
		if filepath.Ext(name) == ".mem" && size > want {
			want = size
		}
	}
	return want
}

// ReleaseMappedFiles drops from the process's resident memory the pages of every Badger file
// it maps — the store's and the search index's tables, logs and discard files — which stay
// in the kernel's page cache and come back at their next access; it returns how many
// mappings it advised. The app calls it once every conversation rested: what reads brought
// in (a table a conversation was loaded from) would otherwise count in its resident memory
// until the file is unmapped, which for a table is when a compaction replaces it. What
// writes touch is dropped as it reaches the disk: a table once written, a log at each sync
// (the patched ristretto in third_party/ristretto).
func ReleaseMappedFiles() int { return z.ReleaseMapped() }
