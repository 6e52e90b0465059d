package persistence

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// migrations upgrade the data one schema version at a time: migrations[i] turns version i+1
// into version i+2. A migration may use as many transactions as it needs; it must be safe to
// run again after a crash part-way, because the version is bumped only when it returns.
// Version 1 is the first, so there are none yet.
var migrations []func(db *badger.DB) error

// currentSchema is the version this build writes.
func currentSchema() int { return 1 + len(migrations) }

// migrate stamps a new database with the current schema, upgrades an older one, and refuses
// one written by a newer build rather than guessing at its format.
func (s *Store) migrate() error {
	v, found, err := s.readSchema()
	if err != nil {
		return err
	}
	if !found {
		empty, err := s.isEmpty()
		if err != nil {
			return err
		}
		if !empty {
			return fmt.Errorf("%w: the database in %s holds data but no schema version; it was not written by Phoenix Desktop, "+
				"or its metadata is damaged: nothing was changed; pass --data-dir to use another directory", ErrSchema, s.dir)
		}
		if s.readOnly.Load() {
			// Stamped when the store turns writable; there is nothing to read meanwhile.
			return nil
		}
		return s.writeSchema(currentSchema())
	}
	if v > currentSchema() {
		return fmt.Errorf("%w: the database in %s has schema version %d, newer than this build's %d: "+
			"update Phoenix Desktop, or pass --data-dir to use another directory", ErrSchema, s.dir, v, currentSchema())
	}
	if v < currentSchema() && s.readOnly.Load() {
		free, _ := s.freeSpace(s.dir)
		return fmt.Errorf("the database in %s must be migrated to schema %d first: %w", s.dir, currentSchema(),
			&DiskFullError{Dir: s.dir, Free: free, Need: s.reserve})
	}
	for ; v < currentSchema(); v++ {
		if err := migrations[v-1](s.db); err != nil {
			return fmt.Errorf("migrate the database in %s from schema %d to %d: %w; "+
				"the data is still at version %d: keep a copy of the directory and report the error", s.dir, v, v+1, err, v)
		}
		if err := s.writeSchema(v + 1); err != nil {
			return err
		}
		s.log.Info("migrated the store", "dir", s.dir, "schema", v+1)
	}
	return nil
}

func (s *Store) readSchema() (int, bool, error) {
	var v int
	err := s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(keySchema))
		if err != nil {
			return err
		}
		return item.Value(func(b []byte) error {
			n, err := strconv.Atoi(string(b))
			if err != nil || n < 1 {
				return corrupt("", keySchema, fmt.Errorf("schema version %q is not a positive number", b))
			}
			v = n
			return nil
		})
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("read the schema version in %s: %w", s.dir, err)
	}
	return v, true, nil
}

func (s *Store) writeSchema(v int) error {
	err := s.db.Update(func(txn *badger.Txn) error {
		return txn.Set([]byte(keySchema), []byte(strconv.Itoa(v)))
	})
	if err != nil {
		return fmt.Errorf("write schema version %d in %s: %w", v, s.dir, err)
	}
	return nil
}

func (s *Store) isEmpty() (bool, error) {
	empty := true
	err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.PrefetchValues = false
		it := txn.NewIterator(opts)
		defer it.Close()
		it.Rewind()
		empty = !it.Valid()
		return nil
	})
	return empty, err
}
