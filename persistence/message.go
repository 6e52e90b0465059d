package persistence

import (
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Message reads one message of a conversation, for a search hit: reading the whole history to
// show one line would cost a 10,000-message load per hit.
func (s *Store) Message(id string, seq uint64) (domain.Message, error) {
	if err := checkID(id); err != nil {
		return domain.Message{}, fmt.Errorf("read message: %w", err)
	}
	if err := s.acquire(); err != nil {
		return domain.Message{}, fmt.Errorf("read message %d of %s: %w", seq, id, err)
	}
	defer s.release()
	var m domain.Message
	err := s.db.View(func(txn *badger.Txn) error {
		c, err := getConv(txn, id)
		if err != nil {
			return err
		}
		if seq >= c.NextSeq {
			return fmt.Errorf("message %d of conversation %s: %w", seq, id, ErrNotFound)
		}
		key := msgKey(id, seq)
		item, err := txn.Get(key)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return corrupt(id, string(key), fmt.Errorf("message %d is missing", seq))
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		if err := item.Value(func(v []byte) error { return decodeMessage(v, &m) }); err != nil {
			return classifyValueErr(id, string(key), err)
		}
		if m.Seq != seq {
			return corrupt(id, string(key), fmt.Errorf("message stored under sequence %d says it is %d", seq, m.Seq))
		}
		return nil
	})
	if err != nil {
		return domain.Message{}, fmt.Errorf("read message: %w", err)
	}
	return m, nil
}
