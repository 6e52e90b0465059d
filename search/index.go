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
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

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

func openDB(dir string, inMemory, readOnly bool) (*badger.DB, error) {
	opts := badger.DefaultOptions(dir).
		WithLogger(nil).
		WithMetricsEnabled(false).
		WithBlockCacheSize(16 << 20).
		WithMemTableSize(16 << 20).
		WithNumMemtables(2).
		WithNumCompactors(2).
		WithValueLogFileSize(64 << 20)
	if inMemory {
		opts = opts.WithDir("").WithValueDir("").WithInMemory(true)
	}
	if readOnly {
		opts = opts.WithReadOnly(true)
	}
	return badger.Open(opts)
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

// watermark is how far a conversation is indexed.
type watermark struct {
	next, docs, terms uint64
}

func (w watermark) encode() []byte {
	b := binary.AppendUvarint(nil, w.next)
	b = binary.AppendUvarint(b, w.docs)
	return binary.AppendUvarint(b, w.terms)
}

func decodeWatermark(b []byte) (watermark, error) {
	var w watermark
	for _, p := range []*uint64{&w.next, &w.docs, &w.terms} {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return watermark{}, errors.New("bad watermark")
		}
		*p, b = v, b[n:]
	}
	return w, nil
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

func (x *Index) run() {
	defer close(x.done)
	if err := x.Sync(); err != nil {
		x.log.Error("the search index could not catch up with the conversations; search may miss some", "error", err)
	}
	close(x.synced)
	for {
		select {
		case <-x.stop:
			return
		case <-x.wake:
		}
		x.dirtyMu.Lock()
		ids := make([]string, 0, len(x.dirty))
		for id := range x.dirty {
			ids = append(ids, id)
		}
		clear(x.dirty)
		x.dirtyMu.Unlock()
		for _, id := range ids {
			if err := x.catchUp(id, false); err != nil {
				x.pause(id, err)
			}
		}
	}
}

// pause handles a conversation that could not be indexed. On a full disk the index pauses:
// the conversation stays marked and the indexer wakes every diskRetryEvery until there is
// room, then catches up. Any other failure is tried again on the conversation's next change
// and at the next start.
func (x *Index) pause(id string, err error) {
	if !errors.Is(err, persistence.ErrDiskFull) || x.readOnly {
		x.log.Warn("could not index a conversation; it is tried again on its next change and at the next start",
			"conversation", id, "error", err)
		return
	}
	x.dirtyMu.Lock()
	x.dirty[id] = true
	x.dirtyMu.Unlock()
	if !x.paused.Swap(true) {
		x.log.Warn("the disk is full: the search index waits for room, then catches up", "error", err)
	}
	time.AfterFunc(diskRetryEvery, func() {
		select {
		case x.wake <- struct{}{}:
		default:
		}
	})
}

// writable refuses a write of about need bytes while the disk is short.
func (x *Index) writable(need int64) error {
	if x.readOnly {
		return fmt.Errorf("the search index is read-only until the next start: %w", persistence.ErrDiskFull)
	}
	if err := x.space(x.dir, need); err != nil {
		return err
	}
	if x.paused.Swap(false) {
		x.log.Info("the disk has room again: the search index catches up")
	}
	return nil
}

// Sync brings the whole index up to date with the store: conversations no longer stored are
// dropped, and every conversation's new messages are indexed.
func (x *Index) Sync() error {
	sums, err := x.src.List(true)
	if err != nil && !errors.Is(err, persistence.ErrCorrupt) {
		return fmt.Errorf("list the conversations to index: %w", err)
	}
	listed := map[string]bool{}
	for _, s := range sums {
		listed[s.ID] = true
	}
	x.mu.Lock()
	var gone []string
	for id := range x.known {
		if !listed[id] {
			gone = append(gone, id)
		}
	}
	x.mu.Unlock()
	for _, id := range gone {
		// A record that did not decode is listed by nobody but still stored: keep its entries.
		if _, err := x.src.Get(id); !errors.Is(err, persistence.ErrNotFound) {
			continue
		}
		if err := x.Remove(id); err != nil {
			return err
		}
	}
	for _, s := range sums {
		select {
		case <-x.stop:
			return nil
		default:
		}
		if err := x.catchUp(s.ID, true); err != nil {
			x.pause(s.ID, err)
		}
	}
	return nil
}

// catchUp indexes the messages of a conversation that the index has not seen. listed says the
// conversation is known to be one the person started.
func (x *Index) catchUp(id string, listed bool) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() || x.skip[id] {
		return nil
	}
	if listed {
		x.known[id] = true
	}
	if !x.known[id] {
		c, err := x.src.Get(id)
		if errors.Is(err, persistence.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if !c.UserInitiated() {
			x.skip[id] = true
			return nil
		}
		x.known[id] = true
	}
	w, err := x.watermark(id)
	if err != nil {
		return err
	}
	msgs, err := x.src.MessagesSince(id, w.next)
	if errors.Is(err, persistence.ErrNotFound) {
		return x.removeLocked(id)
	}
	if err != nil {
		return err
	}
	for len(msgs) > 0 {
		n := min(indexChunk, len(msgs))
		if w, err = x.indexChunk(id, w, msgs[:n]); err != nil {
			return err
		}
		msgs = msgs[n:]
	}
	return nil
}

func (x *Index) watermark(id string) (watermark, error) {
	var w watermark
	err := x.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(prefixWatermark + id))
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return item.Value(func(v []byte) error {
			w, err = decodeWatermark(v)
			return err
		})
	})
	if err != nil {
		return watermark{}, fmt.Errorf("read how far conversation %s is indexed: %w", id, err)
	}
	return w, nil
}

// blockSize is how many consecutive messages of a conversation share one posting list per
// term: a term's postings in a conversation are one value per block, so a query reads one
// key per conversation (and thousand messages) that holds the term instead of one per
// message, and a new message rewrites at most a thousand postings of a term.
const blockSize = 1024

// posting is one message that holds a term: its sequence, how often the term occurs in it and
// its length in terms (BM25 needs both).
type posting struct {
	seq, tf, dl uint64
}

func encodePostings(b []byte, block uint64, ps []posting) []byte {
	for _, p := range ps {
		b = binary.AppendUvarint(b, p.seq-block*blockSize)
		b = binary.AppendUvarint(b, p.tf)
		b = binary.AppendUvarint(b, p.dl)
	}
	return b
}

func decodePostings(v []byte, block uint64, out []posting) ([]posting, error) {
	for len(v) > 0 {
		var p posting
		for _, f := range []*uint64{&p.seq, &p.tf, &p.dl} {
			x, n := binary.Uvarint(v)
			if n <= 0 {
				return out, errors.New("bad posting list")
			}
			*f, v = x, v[n:]
		}
		p.seq += block * blockSize
		out = append(out, p)
	}
	return out, nil
}

// indexChunk writes the postings of consecutive messages, then moves the watermark past them.
// A crash in between indexes the same messages again: a posting list that began before the
// chunk keeps only its postings from before it, and the statistics move with the watermark
// only.
func (x *Index) indexChunk(id string, w watermark, msgs []domain.Message) (watermark, error) {
	first := msgs[0].Seq
	lists := map[string]map[uint64][]posting{}
	var chunkTerms []string
	var docs, terms uint64
	for _, m := range msgs {
		toks := tokens(docText(m))
		if len(toks) == 0 {
			continue
		}
		tf := map[string]uint64{}
		for _, t := range toks {
			tf[t]++
		}
		block := m.Seq / blockSize
		for t, n := range tf {
			blocks := lists[t]
			if blocks == nil {
				blocks = map[uint64][]posting{}
				lists[t] = blocks
				chunkTerms = append(chunkTerms, t)
			}
			blocks[block] = append(blocks[block], posting{m.Seq, n, uint64(len(toks))})
		}
		docs++
		terms += uint64(len(toks))
	}
	// Only the block the chunk starts in can hold postings from before it.
	merged := map[string][]byte{}
	if first%blockSize != 0 {
		block := first / blockSize
		err := x.db.View(func(txn *badger.Txn) error {
			for t, blocks := range lists {
				if _, ok := blocks[block]; !ok {
					continue
				}
				item, err := txn.Get(postingKey(t, id, block))
				if errors.Is(err, badger.ErrKeyNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				err = item.Value(func(v []byte) error {
					old, err := decodePostings(v, block, nil)
					if err != nil {
						return err
					}
					keep := old[:0]
					for _, p := range old {
						if p.seq < first {
							keep = append(keep, p)
						}
					}
					merged[t] = encodePostings(nil, block, keep)
					return nil
				})
				if err != nil {
					return fmt.Errorf("posting list of %q: %w", t, err)
				}
			}
			return nil
		})
		if err != nil {
			return w, fmt.Errorf("read the index of conversation %s: %w", id, err)
		}
	}
	need := int64(0)
	for _, m := range msgs {
		need += int64(len(m.Text))
	}
	if err := x.writable(2 * need); err != nil {
		return w, fmt.Errorf("index conversation %s: %w", id, err)
	}
	wb := x.db.NewWriteBatch()
	defer wb.Cancel()
	for t, blocks := range lists {
		for block, ps := range blocks {
			var val []byte
			if block == first/blockSize {
				val = merged[t]
			}
			if err := wb.Set(postingKey(t, id, block), encodePostings(val, block, ps)); err != nil {
				return w, err
			}
		}
	}
	if len(chunkTerms) > 0 {
		if err := wb.Set(forwardKey(id, first), []byte(strings.Join(chunkTerms, "\x00"))); err != nil {
			return w, err
		}
	}
	if err := wb.Flush(); err != nil {
		return w, fmt.Errorf("write the index of conversation %s: %w", id, err)
	}
	next := watermark{next: msgs[len(msgs)-1].Seq + 1, docs: w.docs + docs, terms: w.terms + terms}
	err := x.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(prefixWatermark+id), next.encode()) })
	if err != nil {
		return w, fmt.Errorf("record how far conversation %s is indexed: %w", id, err)
	}
	x.docs.Add(int64(docs))
	x.terms.Add(int64(terms))
	return next, nil
}

// Remove drops a conversation from the index (it was deleted).
func (x *Index) Remove(id string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed.Load() {
		return ErrClosed
	}
	return x.removeLocked(id)
}

func (x *Index) removeLocked(id string) error {
	w, err := x.watermark(id)
	if err != nil {
		return err
	}
	// The forward entries name every term; a crash may have left postings beyond the
	// watermark, so every block up to the last forward entry's is removed.
	termSet := map[string]bool{}
	var fwd [][]byte
	lastSeq := w.next
	err = x.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = forwardPrefix(id)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().KeyCopy(nil)
			fwd = append(fwd, key)
			lastSeq = max(lastSeq, binary.BigEndian.Uint64(key[len(key)-8:])+uint64(indexChunk))
			if err := it.Item().Value(func(v []byte) error {
				for t := range strings.SplitSeq(string(v), "\x00") {
					termSet[t] = true
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = x.writable(0)
	}
	wb := x.db.NewWriteBatch()
	defer wb.Cancel()
	for t := range termSet {
		if err != nil {
			break
		}
		for block := uint64(0); block*blockSize < lastSeq; block++ {
			if err = wb.Delete(postingKey(t, id, block)); err != nil {
				break
			}
		}
	}
	for _, k := range fwd {
		if err != nil {
			break
		}
		err = wb.Delete(k)
	}
	if err == nil {
		err = wb.Flush()
	}
	if err == nil {
		err = x.db.Update(func(txn *badger.Txn) error { return txn.Delete([]byte(prefixWatermark + id)) })
	}
	if err != nil {
		return fmt.Errorf("remove conversation %s from the search index: %w", id, err)
	}
	x.docs.Add(-int64(w.docs))
	x.terms.Add(-int64(w.terms))
	delete(x.known, id)
	return nil
}

func postingPrefix(term string) []byte { return []byte(prefixPosting + term + "\x00") }

func postingKey(term, conv string, block uint64) []byte {
	k := append(postingPrefix(term), conv...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, block)
}

func forwardPrefix(conv string) []byte { return []byte(prefixForward + conv + "\x00") }

func forwardKey(conv string, firstSeq uint64) []byte {
	return binary.BigEndian.AppendUint64(forwardPrefix(conv), firstSeq)
}

// docText is what of a message is searchable: what was said, the tools' inputs and outputs.
func docText(m domain.Message) string {
	var b strings.Builder
	b.WriteString(m.Text)
	for _, c := range m.ToolCalls {
		b.WriteString("\n")
		b.WriteString(c.Arguments)
	}
	if m.ToolResult != nil {
		b.WriteString("\n")
		b.WriteString(m.ToolResult.Content)
	}
	s := b.String()
	if len(s) > maxIndexedBytes {
		s = s[:maxIndexedBytes]
	}
	return s
}

// Query is one search.
type Query struct {
	Text string
	// IncludeArchived searches archived conversations too.
	IncludeArchived bool
	// Limit bounds the hits returned; zero means 50.
	Limit int
}

// Hit is one message that holds every word of the query.
type Hit struct {
	ConvID   string             `json:"conversation"`
	Title    string             `json:"title"`
	Archived bool               `json:"archived,omitempty"`
	Seq      uint64             `json:"seq"`
	Kind     domain.MessageKind `json:"kind"`
	// Line is the line of the message where a word of the query is, shortened around it.
	Line  string    `json:"line"`
	Score float64   `json:"score"`
	At    time.Time `json:"at,omitzero"`
}

// Result is what a search found, best first.
type Result struct {
	Hits []Hit `json:"hits"`
	// Matches counts every matching message, of which Hits are the best (at most three per
	// conversation).
	Matches int `json:"matches"`
	// Indexing says the index is still catching up with the store, so some may be missing.
	Indexing bool `json:"indexing,omitempty"`
}

type docRef struct {
	conv string
	seq  uint64
}

type candidate struct {
	score   float64
	matched int
}

// Search finds the messages that hold every word of the query (whole words, any case), ranked
// by BM25, at most three per conversation. The last word, while it is being typed (the query
// does not end in a space or punctuation) and has at least minPrefixRunes letters, also
// finds the words it begins: "refac" finds "refactor" and "refactoring".
func (x *Index) Search(q Query) (Result, error) {
	if x.closed.Load() {
		return Result{}, ErrClosed
	}
	terms := queryTerms(q.Text)
	switch {
	case len(terms) == 0:
		return Result{}, ErrEmptyQuery
	case len(terms) > maxQueryTerms:
		return Result{}, ErrTooManyTerms
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	sums, err := x.src.List(q.IncludeArchived)
	if err != nil && !errors.Is(err, persistence.ErrCorrupt) {
		return Result{}, fmt.Errorf("search: list the conversations: %w", err)
	}
	allowed := make(map[string]persistence.Summary, len(sums))
	for _, s := range sums {
		allowed[s.ID] = s
	}
	n := float64(max(x.docs.Load(), 1))
	avg := float64(x.terms.Load()) / n
	if avg <= 0 {
		avg = 1
	}
	prefixLast := typingLastWord(q.Text, terms)
	cands := map[docRef]*candidate{}
	err = x.db.View(func(txn *badger.Txn) error {
		var ps []posting
		for i, t := range terms {
			// A whole term is its own key prefix; the word being typed takes every term
			// that starts with it, each message once (its counts summed).
			prefix := postingPrefix(t)
			if prefixLast && i == len(terms)-1 {
				prefix = postingPrefix(t)[:len(prefix)-1]
			}
			opts := badger.DefaultIteratorOptions
			opts.Prefix = prefix
			opts.PrefetchSize = 256
			it := txn.NewIterator(opts)
			seen := map[docRef]bool{}
			found := map[docRef]posting{}
			for it.Rewind(); it.Valid(); it.Next() {
				key := it.Item().Key()
				end := bytes.IndexByte(key[len(prefixPosting):], 0)
				if end < 0 {
					continue
				}
				conv, block, ok := splitPosting(key, len(prefixPosting)+end+1)
				if !ok {
					continue
				}
				err := it.Item().Value(func(v []byte) error {
					var err error
					ps, err = decodePostings(v, block, ps[:0])
					return err
				})
				if err != nil {
					it.Close()
					return fmt.Errorf("read the postings of %q: %w", t, err)
				}
				_, allowedConv := allowed[conv]
				for _, p := range ps {
					d := docRef{conv, p.seq}
					seen[d] = true
					if !allowedConv {
						continue
					}
					if c := cands[d]; i != 0 && (c == nil || c.matched != i) {
						continue
					}
					if prev, ok := found[d]; ok {
						p.tf += prev.tf
					}
					found[d] = p
				}
			}
			it.Close()
			df := len(seen)
			idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
			for d, p := range found {
				c := cands[d]
				if c == nil {
					c = &candidate{}
					cands[d] = c
				}
				tf, dl := float64(p.tf), float64(p.dl)
				c.score += idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/avg))
				c.matched++
			}
		}
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("search: %w; delete the search-index directory in the data directory and it is rebuilt", err)
	}
	type scored struct {
		docRef
		score float64
	}
	var all []scored
	for d, c := range cands {
		if c.matched == len(terms) {
			all = append(all, scored{d, c.score})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		if c := allowed[b.conv].UpdatedAt.Compare(allowed[a.conv].UpdatedAt); c != 0 {
			return c
		}
		if c := strings.Compare(a.conv, b.conv); c != 0 {
			return c
		}
		return int(int64(b.seq) - int64(a.seq))
	})
	res := Result{Matches: len(all), Indexing: !x.isSynced()}
	perConv := map[string]int{}
	for _, s := range all {
		if len(res.Hits) >= limit {
			break
		}
		if perConv[s.conv] >= maxHitsPerConv {
			continue
		}
		m, err := x.src.Message(s.conv, s.seq)
		if err != nil {
			// Deleted since the index was read, or unreadable: the store reports the
			// latter where the conversation is opened.
			continue
		}
		perConv[s.conv]++
		sum := allowed[s.conv]
		res.Hits = append(res.Hits, Hit{ConvID: s.conv, Title: sum.Title, Archived: sum.Archived, Seq: s.seq,
			Kind: m.Kind, Line: matchLine(docText(m), terms, prefixLast), Score: s.score, At: m.At})
	}
	return res, nil
}

func (x *Index) isSynced() bool {
	select {
	case <-x.synced:
		return true
	default:
		return false
	}
}

// splitPosting reads the conversation and block from a posting key after its term prefix.
func splitPosting(key []byte, prefixLen int) (string, uint64, bool) {
	rest := key[prefixLen:]
	if len(rest) < 10 || rest[len(rest)-9] != 0 {
		return "", 0, false
	}
	return string(rest[:len(rest)-9]), binary.BigEndian.Uint64(rest[len(rest)-8:]), true
}

// matchLine returns the first line of text that holds a query term, shortened around the
// term when it is long. With prefixLast the last term may begin a longer word.
func matchLine(text string, terms []string, prefixLast bool) string {
	first := ""
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		runes := []rune(line)
		lower := make([]rune, len(runes))
		for i, r := range runes {
			lower[i] = unicode.ToLower(r)
		}
		for i, t := range terms {
			if at := wordIndex(lower, []rune(t), prefixLast && i == len(terms)-1); at >= 0 {
				return window(runes, at)
			}
		}
	}
	return window([]rune(first), 0)
}

// wordIndex finds term in line as a whole word, or with prefix as the start of one.
func wordIndex(line, term []rune, prefix bool) int {
	for i := 0; i+len(term) <= len(line); i++ {
		if !slices.Equal(line[i:i+len(term)], term) {
			continue
		}
		if (i == 0 || !isWordRune(line[i-1])) && (prefix || i+len(term) == len(line) || !isWordRune(line[i+len(term)])) {
			return i
		}
	}
	return -1
}

func window(runes []rune, at int) string {
	if len(runes) <= maxLineRunes {
		return string(runes)
	}
	start := max(0, at-lineContextRunes)
	end := min(len(runes), start+maxLineRunes)
	out := string(runes[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	return out
}
