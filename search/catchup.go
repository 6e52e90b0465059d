package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

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
