package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

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
