package persistence

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Delete removes a conversation, its messages, its auxiliary records and files (aux.go) and
// its sub-agents, and the images no other conversation references. Stop the conversation's actor first.
//
// A long conversation has more messages than one Badger transaction may hold, so Delete works
// in two steps: one transaction removes the records that make the conversations visible and
// leaves a del/<id> marker for each; then the messages and image references go in batches and
// the marker last. A crash in between is finished by the next Open, and a conversation that is
// half deleted is never visible, so nothing can show or commit to it. A conversation whose
// record does not decode can still be deleted.
func (s *Store) Delete(id string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	if err := s.acquireWrite(); err != nil {
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	defer s.release()
	var ids []string
	err := s.update(func(txn *badger.Txn) error {
		ids = nil
		ok, err := exists(txn, convKey(id))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("conversation %s: %w", id, ErrNotFound)
		}
		if err := unlinkFromParent(txn, id); err != nil {
			return err
		}
		// Sub-agents cannot spawn sub-agents (REQ-BED-009), but walking the tree costs
		// nothing and keeps Delete correct if that ever changes.
		queue := []string{id}
		for len(queue) > 0 {
			cur := queue[0]
			queue = queue[1:]
			ids = append(ids, cur)
			kids, err := childIDs(txn, cur)
			if err != nil {
				return err
			}
			for _, k := range kids {
				if err := txn.Delete(kidKey(cur, k)); err != nil {
					return err
				}
			}
			queue = append(queue, kids...)
			for _, key := range [][]byte{convKey(cur), summaryKey(cur)} {
				if err := txn.Delete(key); err != nil {
					return err
				}
			}
			if err := txn.Set(deletingKey(cur), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete conversation %s: %w", id, err)
	}
	for _, x := range ids {
		if err := s.purge(x); err != nil {
			return fmt.Errorf("delete conversation %s: %w; it is no longer listed, and the rest is removed on the next start", id, err)
		}
	}
	return nil
}

// unlinkFromParent removes the kid/<parent>/<id> entry of a sub-agent. The parent is read from
// the record when it decodes, and found among the kid/ keys when it does not.
func unlinkFromParent(txn *badger.Txn, id string) error {
	c, err := getConv(txn, id)
	if err == nil {
		if c.ParentID == "" {
			return nil
		}
		return txn.Delete(kidKey(c.ParentID, id))
	}
	if !errors.Is(err, ErrCorrupt) {
		return err
	}
	opts := badger.DefaultIteratorOptions
	opts.Prefix = []byte(prefixKid)
	opts.PrefetchValues = false
	it := txn.NewIterator(opts)
	var stale [][]byte
	for it.Rewind(); it.Valid(); it.Next() {
		if k := it.Item().KeyCopy(nil); strings.HasSuffix(string(k), "/"+id) {
			stale = append(stale, k)
		}
	}
	it.Close()
	for _, k := range stale {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// finishDeletes completes every deletion a crash interrupted.
func (s *Store) finishDeletes() error {
	var ids []string
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefixDeleting)
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			ids = append(ids, strings.TrimPrefix(string(it.Item().Key()), prefixDeleting))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("find interrupted deletions in %s: %w", s.dir, err)
	}
	for _, id := range ids {
		if err := s.purge(id); err != nil {
			return fmt.Errorf("finish deleting conversation %s in %s: %w", id, s.dir, err)
		}
	}
	return nil
}

// purgeBatch bounds the deletes of one transaction well below Badger's limit.
const purgeBatch = 1000

// purge removes what is left of a conversation whose del/<id> marker is set.
func (s *Store) purge(id string) error {
	if err := s.deletePrefix(msgPrefix(id)); err != nil {
		return fmt.Errorf("delete messages: %w", err)
	}
	// The queue, instructions and checkpoint records (aux.go), then the checkpoints' files.
	if err := s.deletePrefix(auxPrefix(id)); err != nil {
		return fmt.Errorf("delete queued messages, instructions and checkpoints: %w", err)
	}
	if err := s.removeFiles(id); err != nil {
		return fmt.Errorf("delete checkpoints: %w", err)
	}
	prefix := convBlobPrefix(id)
	for {
		shas, err := s.keysWithPrefix(prefix, purgeBatch)
		if err != nil {
			return err
		}
		if len(shas) == 0 {
			break
		}
		s.blobMu.Lock()
		err = s.update(func(txn *badger.Txn) error {
			for _, k := range shas {
				if err := releaseBlob(txn, id, strings.TrimPrefix(k, string(prefix))); err != nil {
					return err
				}
			}
			return nil
		})
		s.blobMu.Unlock()
		if err != nil {
			return fmt.Errorf("release images: %w", err)
		}
	}
	return s.update(func(txn *badger.Txn) error { return txn.Delete(deletingKey(id)) })
}

func (s *Store) deletePrefix(prefix []byte) error {
	for {
		keys, err := s.keysWithPrefix(prefix, purgeBatch)
		if err != nil {
			return err
		}
		if len(keys) == 0 {
			return nil
		}
		err = s.update(func(txn *badger.Txn) error {
			for _, k := range keys {
				if err := txn.Delete([]byte(k)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

func (s *Store) keysWithPrefix(prefix []byte, limit int) ([]string, error) {
	var keys []string
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = prefix
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid() && len(keys) < limit; it.Next() {
			keys = append(keys, string(it.Item().Key()))
		}
		return nil
	})
	return keys, err
}
