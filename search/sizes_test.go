package search

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"

	"github.com/phoenix-desktop/phoenix/persistence/crashtest"
)

// TestOpenAfterCrashWithBiggerMemtables: a crash of a version whose index had 16 MiB
// memtables leaves a memtable log that today's memtables (indexMemTable) cannot take; Badger
// would panic replaying it. The index opens it with memtables of its size and then its own.
func TestOpenAfterCrashWithBiggerMemtables(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).WithMemTableSize(16 << 20).WithValueLogFileSize(64 << 20))
	if err != nil {
		t.Fatal(err)
	}
	const records = 2 * indexMemTable / 1024
	for i := range records {
		if err := db.Update(func(txn *badger.Txn) error {
			return txn.Set(fmt.Appendf(nil, "z/%d", i), bytes.Repeat([]byte{'r'}, 900))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Sync(); err != nil {
		t.Fatal(err)
	}
	crashed := filepath.Join(t.TempDir(), "index")
	crashtest.CopyDir(t, dir, crashed)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, crashed, memStore(t))
	if _, err := x.Search(Query{Text: "anything"}); err != nil {
		t.Fatalf("search the reopened index: %v", err)
	}
}
