package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Auxiliary records are what the runtime keeps about a conversation besides its record and
// its messages: the project instructions it read, the messages queued while it works, the
// checkpoints of its working directory, the person's unsent draft. They are plain bytes to the store (the runtime owns
// their encoding), live under aux/<id>/<name>, and go with their conversation: Delete
// removes them, and the files directory (FilesDir), in the same single delete path.
//
// Names may contain '/' to group records (ckpt/00000000000000000001); a name is never empty.

// AuxItem is one auxiliary record.
type AuxItem struct {
	Name  string
	Value []byte
}

func auxPrefix(id string) []byte    { return []byte(prefixAux + id + "/") }
func auxKey(id, name string) []byte { return []byte(prefixAux + id + "/" + name) }
func checkAuxName(name string) error {
	if name == "" || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%w: auxiliary record name %q is empty or contains NUL", ErrInvalid, name)
	}
	return nil
}

// PutAux stores (or replaces) one auxiliary record of an existing conversation. It is
// flushed to the disk before it returns when it may hold what the person typed (a queued
// message), like a commit with a user message.
func (s *Store) PutAux(id, name string, value []byte) error {
	return s.putAux(id, name, value, s.syncUser)
}

// PutAuxUnflushed is PutAux for a record that holds none of the person's words (a checkpoint
// of the working tree): it is as durable as a commit of the agent's own work — it survives
// the app's crash, and a power cut only with Options.SyncWrites — and spares the flush, which
// would cost a bash round more than the rest of its bookkeeping.
func (s *Store) PutAuxUnflushed(id, name string, value []byte) error {
	return s.putAux(id, name, value, false)
}

func (s *Store) putAux(id, name string, value []byte, flush bool) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	if err := checkAuxName(name); err != nil {
		return err
	}
	if len(value) > s.maxValue {
		return fmt.Errorf("save %s of conversation %s: %w: %d bytes, the limit is %d", name, id, ErrTooLarge, len(value), s.maxValue)
	}
	if err := s.acquireWrite(); err != nil {
		return fmt.Errorf("save %s of conversation %s: %w", name, id, err)
	}
	defer s.release()
	err := s.updateSized(int64(len(value)), func(txn *badger.Txn) error {
		ok, err := exists(txn, convKey(id))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("conversation %s: %w", id, ErrNotFound)
		}
		return txn.Set(auxKey(id, name), value)
	})
	if err != nil {
		return fmt.Errorf("save %s of conversation %s: %w", name, id, err)
	}
	if flush {
		s.auxFlushes.Add(1)
		if err := s.db.Sync(); err != nil {
			return fmt.Errorf("save %s of conversation %s: flush to disk: %w", name, id, err)
		}
	}
	return nil
}

// Aux reads one auxiliary record; ErrNotFound when there is none.
func (s *Store) Aux(id, name string) ([]byte, error) {
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if err := s.acquire(); err != nil {
		return nil, fmt.Errorf("read %s of conversation %s: %w", name, id, err)
	}
	defer s.release()
	var out []byte
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(auxKey(id, name))
		if err != nil {
			return err
		}
		out, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, fmt.Errorf("%s of conversation %s: %w", name, id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s of conversation %s: %w", name, id, err)
	}
	return out, nil
}

// AuxList returns the auxiliary records whose names start with prefix, in name order.
func (s *Store) AuxList(id, prefix string) ([]AuxItem, error) {
	if err := checkID(id); err != nil {
		return nil, fmt.Errorf("list %s: %w", prefix, err)
	}
	if err := s.acquire(); err != nil {
		return nil, fmt.Errorf("list %s of conversation %s: %w", prefix, id, err)
	}
	defer s.release()
	var out []AuxItem
	base := auxPrefix(id)
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = append(append([]byte(nil), base...), prefix...)
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, AuxItem{Name: string(it.Item().Key()[len(base):]), Value: v})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s of conversation %s: %w", prefix, id, err)
	}
	return out, nil
}

// DeleteAux removes one auxiliary record; removing one that does not exist is not an error.
func (s *Store) DeleteAux(id, name string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("remove %s: %w", name, err)
	}
	if err := s.acquireWrite(); err != nil {
		return fmt.Errorf("remove %s of conversation %s: %w", name, id, err)
	}
	defer s.release()
	if err := s.update(func(txn *badger.Txn) error { return txn.Delete(auxKey(id, name)) }); err != nil {
		return fmt.Errorf("remove %s of conversation %s: %w", name, id, err)
	}
	return nil
}

// filesDirName holds one directory per conversation for data that is files rather than
// records (the shadow repository of its checkpoints).
const filesDirName = "files"

// FilesDir is the directory where the runtime may keep files that belong to a conversation
// (created on demand by the caller). Delete removes it with the conversation. An in-memory
// store has none: it returns "" and the features that need files are off.
func (s *Store) FilesDir(id string) string {
	if s.dir == "" || checkID(id) != nil {
		return ""
	}
	return filepath.Join(s.dir, filesDirName, id)
}

// removeFiles removes a conversation's files directory, if it has one.
func (s *Store) removeFiles(id string) error {
	dir := s.FilesDir(id)
	if dir == "" {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}
