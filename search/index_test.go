package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
	"go.uber.org/goleak"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// addConv stores a conversation with one message per text, user and assistant in turn.
func addConv(t *testing.T, s *persistence.Store, id, title string, texts ...string) domain.Conversation {
	t.Helper()
	c, err := domain.NewConversation(domain.NewConversationParams{ID: id, Title: title, Cwd: t.TempDir(),
		Model: domain.DemoModel, CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = s.Create(c); err != nil {
		t.Fatal(err)
	}
	return appendMsgs(t, s, c, texts...)
}

func appendMsgs(t *testing.T, s *persistence.Store, c domain.Conversation, texts ...string) domain.Conversation {
	t.Helper()
	var msgs []domain.Message
	for i, text := range texts {
		kind := domain.KindUser
		if (int(c.NextSeq)+i)%2 == 1 {
			kind = domain.KindAssistant
		}
		msgs = append(msgs, domain.Message{Seq: c.NextSeq + uint64(i), Kind: kind, Text: text})
	}
	c.NextSeq += uint64(len(texts))
	c, _, err := s.Commit(c, msgs)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memStore is an in-memory store closed when the test ends.
func memStore(t *testing.T) *persistence.Store {
	t.Helper()
	s, err := persistence.OpenInMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func openIndex(t *testing.T, dir string, s *persistence.Store) *Index {
	t.Helper()
	x, err := Open(dir, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := x.WaitSynced(ctx); err != nil {
		t.Fatal(err)
	}
	return x
}

func mustSearch(t *testing.T, x *Index, q Query) Result {
	t.Helper()
	res, err := x.Search(q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return res
}

// syncNow catches up without relying on the background goroutine's timing.
func syncNow(t *testing.T, x *Index) {
	t.Helper()
	if err := x.Sync(); err != nil {
		t.Fatal(err)
	}
}

func TestSearchRanksAndShowsTheLine(t *testing.T) {
	s := memStore(t)
	addConv(t, s, "a", "Build", "The build failed.\nThe linker could not find libfoo.", "ok")
	addConv(t, s, "b", "Linker", "linker linker linker: undefined reference", "fixed the linker flags")
	addConv(t, s, "c", "Other", "nothing to see here", "LINKER_FLAGS=-lfoo is set")
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)

	res := mustSearch(t, x, Query{Text: "Linker"})
	if res.Matches != 4 || len(res.Hits) != 4 {
		t.Fatalf("want 4 matches, got %+v", res)
	}
	// The message that says "linker" three times in four words ranks first.
	if h := res.Hits[0]; h.ConvID != "b" || h.Seq != 0 || h.Title != "Linker" {
		t.Fatalf("best hit = %+v", h)
	}
	for _, h := range res.Hits {
		if h.ConvID == "a" && h.Line != "The linker could not find libfoo." {
			t.Fatalf("the matching line is not shown: %q", h.Line)
		}
		if h.ConvID == "c" && h.Line != "LINKER_FLAGS=-lfoo is set" {
			t.Fatalf("a word inside an identifier: %q", h.Line)
		}
	}
	// Every word must match.
	res = mustSearch(t, x, Query{Text: "linker libfoo"})
	if len(res.Hits) != 1 || res.Hits[0].ConvID != "a" {
		t.Fatalf("AND query: %+v", res.Hits)
	}
	// A finished word (followed by a space) matches whole words only.
	if res := mustSearch(t, x, Query{Text: "link "}); len(res.Hits) != 0 {
		t.Fatalf("a part of a word matched: %+v", res.Hits)
	}
}

// TestSearchPrefixWhileTyping: the last word, while it is being typed, also finds the words
// it begins, each message once; a finished word, a short one and the words before it match
// whole words only.
func TestSearchPrefixWhileTyping(t *testing.T) {
	s := memStore(t)
	addConv(t, s, "a", "Refactor", "Refactoring the parser: refactor it twice.", "done")
	addConv(t, s, "b", "Other", "the parser refactored", "reference manual")
	addConv(t, s, "c", "Unrelated", "a parse error", "nothing")
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)

	res := mustSearch(t, x, Query{Text: "refac"})
	if res.Matches != 2 || len(res.Hits) != 2 {
		t.Fatalf("refac: want the two messages that hold refactor*, got %+v", res)
	}
	for _, h := range res.Hits {
		if !strings.Contains(strings.ToLower(h.Line), "refactor") {
			t.Errorf("the line of %s does not show the word: %q", h.ConvID, h.Line)
		}
	}
	if res := mustSearch(t, x, Query{Text: "parser refact"}); res.Matches != 2 {
		t.Fatalf("parser refact: %+v", res)
	}
	// Only the last word is a prefix: "pars" before it must be whole.
	if res := mustSearch(t, x, Query{Text: "pars refact"}); res.Matches != 0 {
		t.Fatalf("an earlier word matched as a prefix: %+v", res)
	}
	if res := mustSearch(t, x, Query{Text: "refac "}); res.Matches != 0 {
		t.Fatalf("a finished word matched as a prefix: %+v", res)
	}
	// Two letters are too few to stand for every word they begin.
	if res := mustSearch(t, x, Query{Text: "re"}); res.Matches != 0 {
		t.Fatalf("a two-letter prefix matched: %+v", res)
	}
	if res := mustSearch(t, x, Query{Text: "REF"}); res.Matches != 3 {
		t.Fatalf("REF: want refactoring, refactored and reference, got %+v", res)
	}
}

func TestSearchArchivedOnlyWhenAsked(t *testing.T) {
	s := memStore(t)
	addConv(t, s, "live", "Live", "kubernetes deployment")
	addConv(t, s, "old", "Old", "kubernetes cluster")
	if err := s.SetArchived("old", true); err != nil {
		t.Fatal(err)
	}
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	if res := mustSearch(t, x, Query{Text: "kubernetes"}); len(res.Hits) != 1 || res.Hits[0].ConvID != "live" {
		t.Fatalf("archived conversation found without asking: %+v", res.Hits)
	}
	res := mustSearch(t, x, Query{Text: "kubernetes", IncludeArchived: true})
	if len(res.Hits) != 2 {
		t.Fatalf("archived conversation not found when asked: %+v", res.Hits)
	}
	for _, h := range res.Hits {
		if h.Archived != (h.ConvID == "old") {
			t.Fatalf("archived flag wrong: %+v", h)
		}
	}
}

func TestSearchBadQueries(t *testing.T) {
	s := memStore(t)
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	for _, q := range []string{"", "   ", "a", "!!! ??? -", "x y z"} {
		if _, err := x.Search(Query{Text: q}); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("%q: err = %v, want ErrEmptyQuery", q, err)
		}
	}
	if _, err := x.Search(Query{Text: "one two three four five six seven eight nine ten eleven"}); !errors.Is(err, ErrTooManyTerms) {
		t.Errorf("err = %v, want ErrTooManyTerms", err)
	}
	// Query syntax of other engines is just words here, never an error.
	if _, err := x.Search(Query{Text: `"quoted" AND (foo OR bar*) -baz`}); err != nil {
		t.Errorf("operators: %v", err)
	}
}

func TestSearchFollowsTheStoreAndRebuilds(t *testing.T) {
	dir := t.TempDir()
	s, err := persistence.Open(filepath.Join(dir, "data"), persistence.Options{SyncInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := addConv(t, s, "a", "A", "first message about zebras")
	idxDir := filepath.Join(dir, "idx")
	x := openIndex(t, idxDir, s)
	if got := len(mustSearch(t, x, Query{Text: "zebras"}).Hits); got != 1 {
		t.Fatalf("hits = %d", got)
	}
	// New messages are picked up from the store.
	appendMsgs(t, s, c, "a reply about giraffes")
	x.Notify("a")
	syncNow(t, x)
	if got := len(mustSearch(t, x, Query{Text: "giraffes"}).Hits); got != 1 {
		t.Fatalf("new message not indexed: %d hits", got)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// While the index is closed, a conversation is deleted and another added: the next
	// open catches up with both.
	if err := s.Delete("a"); err != nil {
		t.Fatal(err)
	}
	addConv(t, s, "b", "B", "zebras again")
	x = openIndex(t, idxDir, s)
	res := mustSearch(t, x, Query{Text: "zebras"})
	if len(res.Hits) != 1 || res.Hits[0].ConvID != "b" || res.Indexing {
		t.Fatalf("stale index: %+v", res)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}

	// A deleted index is rebuilt, and so is a damaged one.
	if err := os.RemoveAll(idxDir); err != nil {
		t.Fatal(err)
	}
	x = openIndex(t, idxDir, s)
	if got := len(mustSearch(t, x, Query{Text: "zebras"}).Hits); got != 1 {
		t.Fatalf("after deleting the index: %d hits", got)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(idxDir, "MANIFEST"), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	x = openIndex(t, idxDir, s)
	if got := len(mustSearch(t, x, Query{Text: "zebras"}).Hits); got != 1 {
		t.Fatalf("after damaging the index: %d hits", got)
	}
}

func TestRemoveDropsEveryEntry(t *testing.T) {
	s := memStore(t)
	addConv(t, s, "a", "A", "alpha beta", "gamma delta")
	addConv(t, s, "b", "B", "alpha")
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	if err := x.Remove("a"); err != nil {
		t.Fatal(err)
	}
	n := 0
	if err := x.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := string(it.Item().Key())
			if k != keyVersion {
				n++
				if !strings.Contains(k, "b\x00") && k != prefixWatermark+"b" {
					t.Errorf("key of a removed conversation left: %q", k)
				}
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 3 { // one posting, one forward entry, one watermark
		t.Fatalf("%d keys left, want 3", n)
	}
	if x.docs.Load() != 1 || x.terms.Load() != 1 {
		t.Fatalf("statistics not updated: %d docs, %d terms", x.docs.Load(), x.terms.Load())
	}
}

func TestSubAgentsAreNotIndexed(t *testing.T) {
	s := memStore(t)
	parent := addConv(t, s, "p", "P", "parent words")
	sub, err := domain.NewConversation(domain.NewConversationParams{ID: "kid", Title: "k", Cwd: parent.Cwd,
		Model: domain.DemoModel, ParentID: "p", Task: "t", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if sub, err = s.Create(sub); err != nil {
		t.Fatal(err)
	}
	appendMsgs(t, s, sub, "secret subagent words")
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	x.Notify("kid")
	if err := x.catchUp("kid", false); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, x, Query{Text: "subagent"}); len(res.Hits) != 0 {
		t.Fatalf("sub-agent indexed: %+v", res.Hits)
	}
}

func TestMatchLineWindow(t *testing.T) {
	long := ""
	for i := range 100 {
		long += fmt.Sprintf("w%d ", i)
	}
	long += "needle tail"
	got := matchLine("first\n"+long, []string{"needle"}, false)
	if len([]rune(got)) > maxLineRunes+2 || !strings.Contains(got, "needle") || got[:3] != "…" {
		t.Fatalf("window = %q", got)
	}
}

// Posting lists span blocks of 1,024 messages and grow message by message; a chunk indexed
// again after a crash (the watermark behind the postings) leaves no duplicate.
func TestPostingListsAcrossBlocksAndReplay(t *testing.T) {
	s := memStore(t)
	texts := make([]string, 1100)
	for i := range texts {
		texts[i] = fmt.Sprintf("filler %d", i)
	}
	for _, i := range []int{0, 500, 1023, 1024, 1099} {
		texts[i] = fmt.Sprintf("needle at %d", i)
	}
	c := addConv(t, s, "long", "Long", texts[:600]...)
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	// The rest arrives in small commits, each indexed on its own, as in a live session.
	for lo := 600; lo < len(texts); lo += 37 {
		c = appendMsgs(t, s, c, texts[lo:min(lo+37, len(texts))]...)
		if err := x.catchUp("long", false); err != nil {
			t.Fatal(err)
		}
	}
	seqs := func() []uint64 {
		res := mustSearch(t, x, Query{Text: "needle", Limit: 100})
		var out []uint64
		for _, h := range res.Hits {
			out = append(out, h.Seq)
		}
		slices.Sort(out)
		if res.Matches != 5 {
			t.Fatalf("%d matches, want 5: %v", res.Matches, out)
		}
		return out
	}
	_ = seqs()
	// A crash after the postings of a chunk were written but before its watermark moved.
	w, err := x.watermark("long")
	if err != nil {
		t.Fatal(err)
	}
	w.next = 700
	if err := x.db.Update(func(txn *badger.Txn) error { return txn.Set([]byte(prefixWatermark+"long"), w.encode()) }); err != nil {
		t.Fatal(err)
	}
	if err := x.catchUp("long", false); err != nil {
		t.Fatal(err)
	}
	_ = seqs()
	if err := x.Remove("long"); err != nil {
		t.Fatal(err)
	}
	if res := mustSearch(t, x, Query{Text: "needle"}); res.Matches != 0 {
		t.Fatalf("after remove: %+v", res)
	}
}

// TestSearchEveryHitPagesPastThreePerConversation (issue 41): a conversation with many
// matching messages gives three hits by default, and every one of them with EveryHit, up to
// the limit — the sidebar's "Show more" pages through them.
func TestSearchEveryHitPagesPastThreePerConversation(t *testing.T) {
	s := memStore(t)
	var texts []string
	for i := range 8 {
		texts = append(texts, fmt.Sprintf("number %d is here", i))
	}
	addConv(t, s, "a", "Numbers", texts...)
	x := openIndex(t, filepath.Join(t.TempDir(), "idx"), s)
	if res := mustSearch(t, x, Query{Text: "number"}); res.Matches != 8 || len(res.Hits) != 3 {
		t.Fatalf("default: %d hits of %d, want 3 of 8", len(res.Hits), res.Matches)
	}
	if res := mustSearch(t, x, Query{Text: "number", EveryHit: true, Limit: 5}); res.Matches != 8 || len(res.Hits) != 5 {
		t.Fatalf("every hit, limit 5: %d hits of %d, want 5 of 8", len(res.Hits), res.Matches)
	}
	res := mustSearch(t, x, Query{Text: "number", EveryHit: true, Limit: 50})
	seen := map[uint64]bool{}
	for _, h := range res.Hits {
		seen[h.Seq] = true
	}
	if len(res.Hits) != 8 || len(seen) != 8 {
		t.Fatalf("every hit: %d hits (%d messages), want all 8", len(res.Hits), len(seen))
	}
}
