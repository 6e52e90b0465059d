package actors

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// sameMessages compares histories without their sequence numbers and commit times.
func sameMessages(a, b []domain.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		x.Seq, y.Seq, x.At, y.At = 0, 0, time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// Issue 27: "Fork from here" makes a conversation of its own from a source with images and a
// sub-agent round: the history up to the message (the round's results with it), Restricted,
// its own in search and delete; the source is untouched and deleting it keeps the fork's
// images.
func TestForkWithImagesAndSubAgents(t *testing.T) {
	var idx *recordingIndex
	h := newHarness(t, func(c *Config) {
		idx = &recordingIndex{Index: openIndex(t, c), notified: map[string]int{}}
		c.Search = idx
	})
	ctx := context.Background()
	src := h.create(NewConversation{Unrestricted: true})
	if err := h.rt.Send(ctx, src.ID, "the flamingo picture", []Attachment{{Name: "shot.png", Data: pngBytes(t, 40, 30)}}); err != nil {
		t.Fatal(err)
	}
	h.waitRest(src.ID)
	h.turn(src.ID, "agents: echo: from the sub-agent")
	h.turn(src.ID, "echo: after the agents")
	before := h.history(src.ID)
	srcConv, _ := h.store.Get(src.ID)
	var spawn domain.Message
	for _, m := range before {
		if m.Kind == domain.KindAssistant && len(m.ToolCalls) > 0 && m.ToolCalls[0].Name == domain.ToolSpawnAgents {
			spawn = m
		}
	}
	if spawn.Kind == "" {
		t.Fatal("test premise: the source has no spawn_agents reply")
	}

	fork, err := h.rt.Fork(ctx, src.ID, spawn.Seq)
	if err != nil {
		t.Fatal(err)
	}
	got := h.history(fork.ID)
	if int(spawn.Seq)+2 != len(got) || !sameMessages(got, before[:len(got)]) {
		t.Fatalf("fork history: %d messages; want the %d up to the spawn_agents reply and its result", len(got), spawn.Seq+2)
	}
	if got[0].Images[0].SHA256 != before[0].Images[0].SHA256 {
		t.Fatal("the fork's image is not the source's")
	}
	if fork.ForkedFrom != src.ID || fork.Cwd != src.Cwd || fork.Model != src.Model {
		t.Fatalf("fork = %+v", fork)
	}
	if h.cfg.Sandbox.Available && fork.Mode != domain.ModeRestricted {
		t.Fatalf("fork mode %s; write access must not be inherited", fork.Mode)
	}
	if now, _ := h.store.Get(src.ID); !sameMessages(h.history(src.ID), before) || now.NextSeq != srcConv.NextSeq || now.Mode != srcConv.Mode {
		t.Fatal("the source changed")
	}

	// The fork goes on by itself.
	h.turn(fork.ID, "echo: the fork goes on")
	if n := len(h.history(fork.ID)); n != len(got)+2 {
		t.Fatalf("fork after a turn: %d messages", n)
	}
	if len(h.history(src.ID)) != len(before) {
		t.Fatal("the fork's turn reached the source")
	}

	// Search finds it as its own conversation; deleting the source leaves it whole.
	if err := idx.Sync(); err != nil {
		t.Fatal(err)
	}
	convsWith := func(word string) map[string]bool {
		res, err := h.rt.Search(ctx, SearchQuery{Text: word})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, hit := range res.Hits {
			out[hit.ConvID] = true
		}
		return out
	}
	if got := convsWith("flamingo"); !got[src.ID] || !got[fork.ID] {
		t.Fatalf("search hits in %v; want the source and the fork", got)
	}
	if err := h.rt.Delete(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	h.waitDeleted(src.ID)
	if _, err := h.store.Blob(got[0].Images[0].SHA256); err != nil {
		t.Fatalf("deleting the source took the fork's image: %v", err)
	}
	if err := idx.Sync(); err != nil {
		t.Fatal(err)
	}
	if got := convsWith("flamingo"); got[src.ID] || !got[fork.ID] {
		t.Fatalf("search hits after deleting the source in %v; want the fork only", got)
	}
	if _, err := h.rt.Fork(ctx, fork.ID, 999); err == nil {
		t.Fatal("a fork from a message that does not exist was accepted")
	}
}
