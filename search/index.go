package search

// DESIGN: why an index in Badger rather than bleve.
//
// bleve (github.com/blevesearch/bleve/v2 v2.6.3) builds with Go 1.26, but measured on the
// development VM (2 cores shared with seven other builds) a program that does nothing but
// index and query with it is 21 MB, and it pulls in some twenty modules (seven versions of
// its zap segment format, bbolt, roaring bitmaps, protobuf) beside a second storage engine
// with its own file format and crash behaviour. It indexed about 2,100 messages a second.
// What we need is small — whole-word AND queries, BM25 ranking, a filter by conversation,
// removing a conversation, the matching line — and Badger, which the store already uses,
// gives the crash behaviour we already test. This index adds no dependency, indexes 100,000
// messages in 12–35 s on the same machine depending on its load (`phoenix-desktop bench`; in
// the background, search works meanwhile), and answers a two-word query over them in 15–25
// ms. What bleve would add and we do without: stemming, phrase, prefix and fuzzy queries.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// Source is what the index reads: *persistence.Store satisfies it.
type Source interface {
	List(includeArchived bool) ([]persistence.Summary, error)
	Get(id string) (domain.Conversation, error)
	MessagesSince(id string, seq uint64) ([]domain.Message, error)
	Message(id string, seq uint64) (domain.Message, error)
}

// formatVersion changes whenever the layout or the tokenizer does; an index of another
// version is rebuilt.
const formatVersion = 2

const (
	keyVersion      = "v"
	prefixPosting   = "p/"
	prefixForward   = "f/"
	prefixWatermark = "w/"
)

// Errors of Search.
var (
	ErrEmptyQuery    = errors.New("the search has no word of two letters or more: type a word to look for")
	ErrTooManyTerms  = fmt.Errorf("the search has more than %d words: use fewer, more telling words", maxQueryTerms)
	ErrClosed        = errors.New("the search index is closed")
	maxQueryTerms    = 10
	defaultLimit     = 50
	maxHitsPerConv   = 3
	indexChunk       = 256
	bm25K1, bm25B    = 1.2, 0.75
	maxLineRunes     = 160
	lineContextRunes = 50
)

// Options tune Open.
type Options struct {
	// InMemory keeps the index in memory (tests); the directory is ignored.
	InMemory bool
	// Logger receives what went wrong in the background; nil discards it.
	Logger *slog.Logger
	// SpaceCheck refuses a write into the index's directory while its disk is short, with
	// an error matching persistence.ErrDiskFull; nil means persistence.CheckSpace. Tests
	// stand a full disk here.
	SpaceCheck func(dir string, need int64) error
}

// diskRetryEvery is how often a paused index asks for room again (see pause).
const diskRetryEvery = 2 * time.Second

// Index is the search index. It is safe for concurrent use. One goroutine, started by Open,
// catches up with the store; Search reads a consistent snapshot at any time.
type Index struct {
	db  *badger.DB
	src Source
	log *slog.Logger
	dir string

	// mu serialises the writers (the indexer goroutine, Remove, Sync) and guards known and
	// skip. Search never takes it.
	mu sync.Mutex
	// known are the user-initiated conversations; skip are sub-agents, which are not indexed
	// (their work is reported in their parent's conversation).
	known, skip map[string]bool

	// docs and terms are BM25's collection statistics: messages indexed and the sum of
	// their lengths in terms.
	docs, terms atomic.Int64

	dirtyMu sync.Mutex
	dirty   map[string]bool
	wake    chan struct{}

	// space is Options.SpaceCheck. readOnly is set when the index opened read-only on a
	// full disk: it is searched as it is and catches up at the next start. paused is set
	// while writes wait for room (pause).
	space    func(dir string, need int64) error
	readOnly bool
	paused   atomic.Bool

	synced    chan struct{} // closed when the first Sync has finished
	closeOnce sync.Once
	stop      chan struct{}
	done      chan struct{}
	closed    atomic.Bool
}

// Open opens the index in dir, creating or rebuilding it as needed, and starts catching up
// with src in the background. Search works at once; until the first catch-up is over, a
// Result says it may be incomplete.
func Open(dir string, src Source, o Options) (*Index, error) {
	x := &Index{src: src, log: o.Logger, dir: dir, known: map[string]bool{}, skip: map[string]bool{},
		dirty: map[string]bool{}, wake: make(chan struct{}, 1), synced: make(chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), space: o.SpaceCheck}
	if x.log == nil {
		x.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case x.space == nil && o.InMemory:
		x.space = func(string, int64) error { return nil }
	case x.space == nil:
		x.space = persistence.CheckSpace
	}
	if !o.InMemory {
		// The parent, because the index's own directory may not exist yet.
		if err := x.space(filepath.Dir(dir), 0); err != nil {
			// Badger's first write to a new memtable log on a full disk is a fault, not an
			// error (persistence/space.go): an index that exists is searched read-only as
			// it is; none at all waits for room.
			return x.openReadOnly(err)
		}
	}
	db, err := openDB(dir, o.InMemory, false)
	if err != nil && !o.InMemory && !isLocked(err) {
		// Derived data: an index that does not open is thrown away and built again.
		x.log.Warn("the search index could not be opened; rebuilding it from the conversations", "dir", dir, "error", err)
		if rerr := os.RemoveAll(dir); rerr != nil {
			return nil, fmt.Errorf("open the search index in %s: %w; removing it to rebuild failed too: %w", dir, err, rerr)
		}
		db, err = openDB(dir, false, false)
	}
	if err != nil {
		return nil, fmt.Errorf("open the search index in %s: %w", dir, err)
	}
	x.db = db
	if err := x.checkVersion(); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := x.loadStats(); err != nil {
		_ = db.Close()
		return nil, err
	}
	go x.run()
	return x, nil
}

// openReadOnly opens an index that exists read-only because its disk is full (full says so);
// nothing is indexed until the next start.
func (x *Index) openReadOnly(full error) (*Index, error) {
	if _, err := os.Stat(x.dir); err != nil {
		return nil, fmt.Errorf("open the search index in %s: %w", x.dir, full)
	}
	db, err := openDB(x.dir, false, true)
	if err != nil {
		return nil, fmt.Errorf("open the search index in %s read-only (%w): %w", x.dir, full, err)
	}
	x.db, x.readOnly = db, true
	if err := x.loadStats(); err != nil {
		_ = db.Close()
		return nil, err
	}
	x.log.Warn("the disk is full: the search index is searched as it is and catches up at the next start", "dir", x.dir, "error", full)
	close(x.synced)
	close(x.done)
	return x, nil
}

// The index's Badger sizes (issue 43: the app stays open for weeks; the store's, and why
// Badger's defaults do not suit, are in persistence/badgersizes.go):
//
//   - indexMemTable, 1 MiB: Badger holds the mutable memtable as an arena of 1.3 × this for
//     as long as the index is open, resident as it fills, and the Go heap it is counted in
//     grows by half as much again before a collection (the window runs at GOGC 50): with
//     4 MiB the open index held 5.7 MiB of the heap, now 1.8 (TestOpenIndexHoldsLittle;
//     issue 43). The index writes through write batches, which Badger cuts into
//     transactions itself, so only one entry must fit one (15% of this, 153 KiB); a turn
//     adds a few KiB, so a memtable still takes a hundred turns before its flush.
//   - indexValueThreshold, 128 KiB: under that 153 KiB (Badger refuses a threshold over
//     it); a bigger value (the term list of a chunk of long messages) goes to the value log.
//   - 2 memtables (one written, one flushing).
//   - indexBlockCache, 512 KiB: the decompressed blocks (the tables are Snappy-compressed,
//     as the store's, which needs a block cache) of the posting lists an update or a search
//     reads again: the frequent terms' blocks stay, the rest is read from the page cache and
//     decompressed again. The cache fills as the index grows and stays full, so its size is
//     what it holds, counted again by half at GOGC 50 (issue 43: 16 MiB, then 2;
//     TestIndexReadsHoldLittle).
//   - no index cache: Badger reads an unencrypted table's index and Bloom filter in place
//     from the mapped table; only encrypted tables go through that cache.
//   - 64 MiB value logs: no value comes near, and Badger maps the log it writes.
const (
	indexMemTable       = 1 << 20
	indexValueThreshold = 128 << 10
	indexBlockCache     = 512 << 10
)

func openDB(dir string, inMemory, readOnly bool) (*badger.DB, error) {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithMetricsEnabled(false).
		WithBlockCacheSize(indexBlockCache).
		WithIndexCacheSize(0).
		WithMemTableSize(indexMemTable).
		WithValueThreshold(indexValueThreshold).
		WithNumMemtables(2).
		WithNumCompactors(2).
		WithValueLogFileSize(64 << 20)
	if inMemory {
		return badger.Open(opts.WithDir("").WithValueDir("").WithInMemory(true))
	}
	if readOnly {
		opts = opts.WithReadOnly(true)
	}
	// A crash of a version with bigger memtables leaves logs that only memtables of their
	// size take; a writable index flushes them (Close) and opens again with its own.
	opts.MemTableSize = persistence.LeftoverMemTableSize(dir, indexMemTable)
	db, err := badger.Open(opts)
	if err != nil || readOnly || opts.MemTableSize == indexMemTable {
		return db, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	return badger.Open(opts.WithMemTableSize(indexMemTable))
}

func isLocked(err error) bool { return strings.Contains(err.Error(), "Cannot acquire directory lock") }

// checkVersion empties an index written in another format (or by nothing yet) and stamps the
// current one.
func (x *Index) checkVersion() error {
	var v string
	err := x.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(keyVersion))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		b, err := item.ValueCopy(nil)
		v = string(b)
		return err
	})
	if err != nil {
		return fmt.Errorf("read the search index's version: %w", err)
	}
	if v == strconv.Itoa(formatVersion) {
		return nil
	}
	if v != "" {
		x.log.Info("the search index has another format; rebuilding it", "version", v)
	}
	if err := x.db.DropAll(); err != nil {
		return fmt.Errorf("empty the search index to rebuild it: %w", err)
	}
	return x.db.Update(func(txn *badger.Txn) error {
		return txn.Set([]byte(keyVersion), []byte(strconv.Itoa(formatVersion)))
	})
}

// loadStats reads every watermark: the conversations indexed and the collection statistics.
func (x *Index) loadStats() error {
	var docs, terms int64
	err := x.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefixWatermark)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			id := string(it.Item().Key()[len(prefixWatermark):])
			err := it.Item().Value(func(v []byte) error {
				w, err := decodeWatermark(v)
				if err != nil {
					return err
				}
				docs += int64(w.docs)
				terms += int64(w.terms)
				return nil
			})
			if err != nil {
				return fmt.Errorf("watermark of %s: %w", id, err)
			}
			x.known[id] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the search index's statistics: %w; delete the directory %s and it is rebuilt", err, x.dir)
	}
	x.docs.Store(docs)
	x.terms.Store(terms)
	return nil
}

// Notify tells the index that a conversation changed. It never blocks: it marks the
// conversation and wakes the indexer, which reads what is new from the store.
func (x *Index) Notify(convID string) {
	if x.readOnly {
		return
	}
	x.dirtyMu.Lock()
	x.dirty[convID] = true
	x.dirtyMu.Unlock()
	select {
	case x.wake <- struct{}{}:
	default:
	}
}

// WaitSynced waits until the index has caught up with the store once since it opened.
func (x *Index) WaitSynced(ctx context.Context) error {
	select {
	case <-x.synced:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("wait for the search index to catch up: %w", ctx.Err())
	}
}

// Close stops the indexer and closes the index. Closing twice is harmless.
func (x *Index) Close() error {
	var err error
	x.closeOnce.Do(func() {
		close(x.stop)
		<-x.done
		x.mu.Lock()
		x.closed.Store(true)
		x.mu.Unlock()
		err = x.db.Close()
	})
	return err
}
