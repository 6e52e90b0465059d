package persistence

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A commit reads the record the last commit wrote from the memo, not by decoding it, and
// what it reads is what decoding gives: the sequence it checks, the times and the flags it
// keeps. A record another writer changed in between (SetArchived) is read as it now is,
// both ways; so is a commit from a stale copy, which is still refused.
func TestCommitReadsItsOwnRecordFromTheMemo_REQ_BED_007(t *testing.T) {
	s := openMem(t)
	c := newConv(t, s, "a")
	c = step(t, s, c, domain.UserMessage{Text: "list the files"})
	before := s.convs.hits.Load()
	c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "Looking.", ToolCalls: []domain.ToolCall{bash("t1")}})
	if s.convs.hits.Load() != before+1 {
		t.Fatal("the commit after a commit decoded the record it had written")
	}
	loaded, _, err := s.Load("a")
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, loaded, c) || !loaded.CreatedAt.Equal(c.CreatedAt) || loaded.CreatedAt.Location() != c.CreatedAt.Location() {
		t.Fatalf("loaded %+v, committed %+v", loaded, c)
	}

	// Archived by the UI while the actor holds c: the next commit keeps it, and so does the
	// one after it (from the memo), until the UI unarchives.
	if err := s.SetArchived("a", true); err != nil {
		t.Fatal(err)
	}
	stale := c
	c = step(t, s, c, domain.ToolComplete{Exec: execOf(t, c), Result: okResult("a.go")})
	if !c.Archived {
		t.Fatal("a commit after SetArchived unarchived the conversation")
	}
	if err := s.SetArchived("a", false); err != nil {
		t.Fatal(err)
	}
	c = step(t, s, c, domain.LLMResponse{Exec: execOf(t, c), Text: "Done."})
	if c.Archived {
		t.Fatal("a commit after SetArchived(false) archived the conversation again")
	}

	// The stale copy's transition starts at a sequence the store has passed.
	next, effects, err := domain.Transition(stale, domain.ToolComplete{Exec: execOf(t, stale), Result: okResult("b.go")})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Commit(next, persisted(effects))
	mustErrIs(t, err, ErrSequence)
}

// The memo holds a few conversations, the most recent; a conversation committed after many
// others is decoded again, and still committed as it should be.
func TestConvMemoKeepsTheLatest(t *testing.T) {
	s := openMem(t)
	ids := []string{"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9"}
	convs := map[string]domain.Conversation{}
	for _, id := range ids {
		convs[id] = step(t, s, newConv(t, s, id), domain.UserMessage{Text: "hi"})
	}
	if n := len(s.convs.entries); n != convMemoSize {
		t.Fatalf("the memo holds %d records, want %d", n, convMemoSize)
	}
	before := s.convs.hits.Load()
	c := step(t, s, convs["c0"], domain.LLMResponse{Exec: execOf(t, convs["c0"]), Text: "ok"})
	if s.convs.hits.Load() != before {
		t.Fatal("the memo answered for a record it had dropped")
	}
	if c.NextSeq != 2 {
		t.Fatalf("NextSeq %d, want 2", c.NextSeq)
	}
	step(t, s, convs["c9"], domain.LLMResponse{Exec: execOf(t, convs["c9"]), Text: "ok"})
	if s.convs.hits.Load() != before+1 {
		t.Fatal("the latest conversation's record was decoded again")
	}
}
