package persistence

import (
	"bytes"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A commit checks the new record against the stored one (its sequence, working directory,
// parent, times, archived flag), which it read by decoding the whole record, state and all:
// 0.1 ms of every headless tool round (issue 39), for a record this process wrote itself one
// commit earlier. So a commit remembers, for the record bytes it wrote, the fields the next
// commit checks, as decoding those bytes gives them; the next commit compares the stored
// bytes with them and decodes only when they differ (another writer — SetArchived, a
// restore — or a record this process did not write). The memo is keyed by the exact bytes,
// so it can never answer for a record it was not made from.

// convMemoSize bounds the remembered records: the conversations committing now (a window
// runs a few at once); the oldest is dropped first.
const convMemoSize = 8

// storedHead is what commit reads of the stored record.
type storedHead struct {
	nextSeq              uint64
	cwd, parentID        string
	createdAt, updatedAt time.Time
	archived             bool
}

func headOf(c domain.Conversation) storedHead {
	return storedHead{nextSeq: c.NextSeq, cwd: c.Cwd, parentID: c.ParentID,
		createdAt: c.CreatedAt, updatedAt: c.UpdatedAt, archived: c.Archived}
}

type convMemoEntry struct {
	id   string
	raw  []byte
	head storedHead
}

// convMemo is the records the last commits wrote; safe for concurrent use.
type convMemo struct {
	mu      sync.Mutex
	entries []convMemoEntry // oldest first
	// hits counts the commits that read the stored record from the memo (for tests).
	hits atomic.Int64
}

// storedHeadOf reads the stored record of id in txn: from the memo when its bytes are the
// ones remembered, else by decoding it (getConv, with its checks and errors).
func (m *convMemo) storedHeadOf(txn *badger.Txn, id string) (storedHead, error) {
	item, err := txn.Get(convKey(id))
	if err != nil {
		_, err = getConv(txn, id) // its words for a missing record or a failed read
		return storedHead{}, err
	}
	var (
		head storedHead
		hit  bool
	)
	if err := item.Value(func(v []byte) error { head, hit = m.lookup(id, v); return nil }); err == nil && hit {
		m.hits.Add(1)
		return head, nil
	}
	c, err := decodeConv(item, id)
	if err != nil {
		return storedHead{}, err
	}
	return headOf(c), nil
}

func (m *convMemo) lookup(id string, raw []byte) (storedHead, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.entries {
		if e.id == id && bytes.Equal(e.raw, raw) {
			return e.head, true
		}
	}
	return storedHead{}, false
}

// remember keeps raw, the record just written for c, with c's fields as decoding raw gives
// them back. A field whose decoding could differ from c's (text that is not UTF-8 comes
// back with replacement characters) is not remembered: that record is decoded.
func (m *convMemo) remember(c domain.Conversation, raw []byte) {
	if !utf8.ValidString(c.ID) || !utf8.ValidString(c.Cwd) || !utf8.ValidString(c.ParentID) {
		return
	}
	head := headOf(c)
	var ok bool
	// A time decodes with the location its text names (UTC for "Z"), not the one it had.
	if head.createdAt, ok = roundTrip(c.CreatedAt); !ok {
		return
	}
	if head.updatedAt, ok = roundTrip(c.UpdatedAt); !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, e := range m.entries {
		if e.id == c.ID {
			m.entries = append(m.entries[:i], m.entries[i+1:]...)
			break
		}
	}
	if len(m.entries) == convMemoSize {
		m.entries = m.entries[1:]
	}
	m.entries = append(m.entries, convMemoEntry{id: c.ID, raw: raw, head: head})
}

func roundTrip(t time.Time) (time.Time, bool) {
	b, err := json.Marshal(t)
	if err != nil {
		return time.Time{}, false
	}
	var back time.Time
	return back, json.Unmarshal(b, &back) == nil
}
