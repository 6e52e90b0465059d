package persistence

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAuxRecordsGoWithTheirConversation(t *testing.T) {
	dir := t.TempDir()
	s := openDir(t, dir, Options{})
	defer s.Close()
	newConv(t, s, "a")
	newConv(t, s, "b")
	mustErrIs(t, s.PutAux("missing", "queue", []byte("x")), ErrNotFound)
	mustErrIs(t, s.PutAux("a", "", []byte("x")), ErrInvalid)
	for _, name := range []string{"queue", "ckpt/0002", "ckpt/0001"} {
		if err := s.PutAux("a", name, []byte(name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutAux("b", "queue", []byte("b's")); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Aux("a", "queue"); err != nil || string(v) != "queue" {
		t.Fatalf("Aux = %q, %v", v, err)
	}
	_, err := s.Aux("a", "nothing")
	mustErrIs(t, err, ErrNotFound)
	items, err := s.AuxList("a", "ckpt/")
	if err != nil || len(items) != 2 || items[0].Name != "ckpt/0001" || string(items[1].Value) != "ckpt/0002" {
		t.Fatalf("AuxList = %+v, %v", items, err)
	}
	files := s.FilesDir("a")
	if files != filepath.Join(dir, "files", "a") {
		t.Fatalf("FilesDir = %s", files)
	}
	if err := os.MkdirAll(filepath.Join(files, "shadow"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAux("a", "ckpt/0001"); err != nil {
		t.Fatal(err)
	}
	if items, _ := s.AuxList("a", "ckpt/"); len(items) != 1 {
		t.Fatalf("after DeleteAux: %+v", items)
	}

	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	if keys, _ := s.keysWithPrefix(auxPrefix("a"), 10); len(keys) != 0 {
		t.Fatalf("aux records left after Delete: %v", keys)
	}
	if _, err := os.Stat(files); !os.IsNotExist(err) {
		t.Fatalf("files dir left after Delete: %v", err)
	}
	if v, err := s.Aux("b", "queue"); err != nil || string(v) != "b's" {
		t.Fatalf("another conversation's record was touched: %q, %v", v, err)
	}
	// A reused id starts without the old records.
	newConv(t, s, "a")
	if items, _ := s.AuxList("a", ""); len(items) != 0 {
		t.Fatalf("reused id sees old records: %+v", items)
	}
}

func TestFilesDirInMemoryIsOff(t *testing.T) {
	if d := openMem(t).FilesDir("a"); d != "" {
		t.Fatalf("in-memory store has a files dir %s", d)
	}
}

// A queued message may hold what the person typed and is flushed; a checkpoint record holds
// none of their words and is not (it costs a bash round more than the rest of its work).
func TestOnlyRecordsWithThePersonsWordsAreFlushed(t *testing.T) {
	s := openDir(t, t.TempDir(), Options{})
	defer s.Close()
	newConv(t, s, "a")
	c := struct{ ID string }{"a"}
	before := s.auxFlushes.Load()
	if err := s.PutAuxUnflushed(c.ID, "ckpt/1", []byte("tree")); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Aux(c.ID, "ckpt/1"); err != nil || string(got) != "tree" {
		t.Fatalf("unflushed record reads %q, %v", got, err)
	}
	if n := s.auxFlushes.Load() - before; n != 0 {
		t.Fatalf("a checkpoint record was flushed %d times", n)
	}
	if err := s.PutAux(c.ID, "queue", []byte("typed")); err != nil {
		t.Fatal(err)
	}
	if n := s.auxFlushes.Load() - before; n != 1 {
		t.Fatalf("a queued message was flushed %d times, want 1", n)
	}
}
