package persistence

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// List returns the summaries of the conversations the person started (REQ-BED-009: never
// sub-agents), newest UpdatedAt first, without reading any message. A summary that does not
// decode is left out and reported: the error then wraps one *CorruptError per bad record
// (errors.Is(err, ErrCorrupt)) and the slice still holds every good one, so the caller can
// show the list and a warning.
func (s *Store) List(includeArchived bool) ([]Summary, error) {
	if err := s.acquire(); err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	defer s.release()
	var (
		out []Summary
		bad []error
	)
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = []byte(prefixSummary)
		opts.PrefetchSize = 256
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			key := string(item.Key())
			id := strings.TrimPrefix(key, prefixSummary)
			var sum Summary
			if err := item.Value(func(v []byte) error { return decodeInto(v, &sum) }); err != nil {
				if err := classifyValueErr(id, key, err); errors.Is(err, ErrCorrupt) {
					bad = append(bad, err)
					continue
				} else {
					return err
				}
			}
			if sum.ID != id {
				bad = append(bad, corrupt(id, key, fmt.Errorf("summary says it is conversation %q", sum.ID)))
				continue
			}
			if sum.Archived && !includeArchived {
				continue
			}
			out = append(out, sum)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	slices.SortFunc(out, func(a, b Summary) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(bad) > 0 {
		return out, fmt.Errorf("list conversations: %d could not be read: %w", len(bad), errors.Join(bad...))
	}
	return out, nil
}

// Children returns the sub-agents a conversation spawned, oldest first. Like List, it returns
// the ones that decode together with an error wrapping a *CorruptError for each that does not.
func (s *Store) Children(parentID string) ([]domain.Conversation, error) {
	if err := s.acquire(); err != nil {
		return nil, fmt.Errorf("sub-agents of %s: %w", parentID, err)
	}
	defer s.release()
	var (
		out []domain.Conversation
		bad []error
	)
	err := s.db.View(func(txn *badger.Txn) error {
		if _, err := getConv(txn, parentID); err != nil {
			return err
		}
		ids, err := childIDs(txn, parentID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			c, err := getConv(txn, id)
			switch {
			case errors.Is(err, ErrCorrupt):
				bad = append(bad, err)
			case err != nil:
				return err
			default:
				out = append(out, c)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sub-agents of %s: %w", parentID, err)
	}
	slices.SortFunc(out, func(a, b domain.Conversation) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(bad) > 0 {
		return out, fmt.Errorf("sub-agents of %s: %d could not be read: %w", parentID, len(bad), errors.Join(bad...))
	}
	return out, nil
}

func childIDs(txn *badger.Txn, parentID string) ([]string, error) {
	prefix := kidPrefix(parentID)
	opts := badger.DefaultIteratorOptions
	opts.Prefix = prefix
	opts.PrefetchValues = false
	it := txn.NewIterator(opts)
	defer it.Close()
	var ids []string
	for it.Rewind(); it.Valid(); it.Next() {
		ids = append(ids, string(it.Item().Key()[len(prefix):]))
	}
	return ids, nil
}

// SetArchived hides a conversation from List (unless archived ones are asked for) or shows it
// again. It does not touch UpdatedAt, so unarchiving puts it back where it was.
func (s *Store) SetArchived(id string, archived bool) error {
	if err := s.acquireWrite(); err != nil {
		return fmt.Errorf("set archived=%t: %w", archived, err)
	}
	defer s.release()
	err := s.update(func(txn *badger.Txn) error {
		c, err := getConv(txn, id)
		if err != nil {
			return err
		}
		if c.Archived == archived {
			return nil
		}
		c.Archived = archived
		return putConv(txn, c)
	})
	if err != nil {
		return fmt.Errorf("set archived=%t: %w", archived, err)
	}
	return nil
}
