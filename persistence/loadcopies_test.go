package persistence

import (
	"runtime"
	"slices"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestLoadCopiesEachValueOnce: a load of a history copies each stored value once, out of the
// transaction, and decodes it (issue 43: the window soak's served chat --continue loaded a
// whole history twice a turn, and a prefetching iterator copied every value a second time).
// What a load allocates beyond decoding the values is held to one copy of them and the
// iterator's own bookkeeping.
func TestLoadCopiesEachValueOnce(t *testing.T) {
	s := openDir(t, t.TempDir(), Options{})
	defer s.Close()
	c, msgs := turnMessages(t, 1_000)
	created, err := s.Create(domain.Conversation{ID: "long", Cwd: c.Cwd, Model: c.Model, State: domain.Idle{}})
	if err != nil {
		t.Fatal(err)
	}
	c.ID, c.State, c.CreatedAt = "long", domain.Idle{}, created.CreatedAt
	for from := 0; from < len(msgs); from += 100 {
		part := msgs[from:min(from+100, len(msgs))]
		step := c
		step.NextSeq = uint64(from + len(part))
		if _, _, err := s.Commit(step, slices.Clone(part)); err != nil {
			t.Fatal(err)
		}
	}
	var values [][]byte
	stored := 0
	if err := s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = msgPrefix("long")
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			values, stored = append(values, v), stored+len(v)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// The least of three runs: Badger's own goroutines allocate now and then meanwhile.
	allocated := func(f func()) uint64 {
		least := ^uint64(0)
		for range 3 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f()
			runtime.ReadMemStats(&after)
			least = min(least, after.TotalAlloc-before.TotalAlloc)
		}
		return least
	}
	decoded := make([]domain.Message, len(values))
	decoding := allocated(func() {
		for i, v := range values {
			if err := decodeMessage(v, &decoded[i]); err != nil {
				t.Fatal(err)
			}
		}
	})
	if _, got, err := s.Load("long"); err != nil || len(got) != len(msgs) {
		t.Fatalf("loaded %d of %d messages: %v", len(got), len(msgs), err)
	}
	loading := allocated(func() {
		if _, _, err := s.Load("long"); err != nil {
			t.Fatal(err)
		}
	})
	beyond := int64(loading) - int64(decoding)
	t.Logf("stored %d KiB; a load allocated %d KiB, decoding %d KiB, beyond it %d KiB", stored>>10, loading>>10, decoding>>10, beyond>>10)
	if limit := 2 * int64(stored); beyond > limit {
		t.Errorf("a load of %d messages (%d KiB stored) allocated %d KiB beyond decoding them; one copy of the values and the iterator's bookkeeping fit in %d KiB",
			len(msgs), stored>>10, beyond>>10, limit>>10)
	}
}
