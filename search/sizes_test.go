package search

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dgraph-io/badger/v4"
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
	copyDir(t, dir, crashed)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, crashed, memStore(t))
	if _, err := x.Search(Query{Text: "anything"}); err != nil {
		t.Fatalf("search the reopened index: %v", err)
	}
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		src, err := os.Open(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		dst, err := os.Create(filepath.Join(to, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(dst, src); err != nil {
			t.Fatal(err)
		}
		_ = src.Close()
		if err := dst.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
