package actors

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// Issue 27: a reply the provider reported no cost for is priced with the person's prices
// (over the table's), stored on the reply and added to the conversation's total, which a
// restart keeps; the fake server's prefix cache shows as cached tokens.
func TestRepliesArePricedAndSummed(t *testing.T) {
	own := domain.Price{Input: 1000, CachedInput: 100, Output: 2000}
	h := newHarness(t, func(c *Config) { c.Prices = map[string]domain.Price{domain.DemoModel: own} })
	c := h.create(NewConversation{})
	h.srv.Enqueue(fakellm.Reply{Text: "ok", Usage: &fakellm.Usage{PromptTokens: 1000, CompletionTokens: 10, CachedTokens: 600}})
	rest := h.turn(c.ID, "echo: hi")
	reply := lastOf(h.history(c.ID), domain.KindAssistant)
	u := reply.Usage
	// 400 × 1000 + 600 × 100 + 10 × 2000 dollars per million tokens = $0.48.
	if u == nil || u.CachedTokens != 600 || u.Model != domain.DemoModel || u.CostFrom != domain.CostFromPrices || u.CostNanoUSD != 480_000_000 {
		t.Fatalf("reply usage = %+v; want 600 cached, priced at $0.48", u)
	}
	if rest.Spent != (domain.Spend{}).Add(*u) {
		t.Fatalf("spent = %+v; want the reply's usage", rest.Spent)
	}
	h.restart()
	if got, _ := h.store.Get(c.ID); got.Spent != rest.Spent {
		t.Fatalf("after restart spent = %+v; want %+v", got.Spent, rest.Spent)
	}
	if list, _ := h.store.List(false); len(list) != 1 || list[0].Spent != rest.Spent {
		t.Fatalf("the list's summary does not carry the spend: %+v", list)
	}
}

// Issue 27: Settings' total for today sums the answers committed since a moment, over every
// conversation (two here, one of them archived); answers before it do not count.
func TestSpentSinceSumsTheDaysAnswers(t *testing.T) {
	own := domain.Price{Input: 1000, Output: 2000}
	h := newHarness(t, func(c *Config) { c.Prices = map[string]domain.Price{domain.DemoModel: own} })
	a := h.create(NewConversation{})
	h.turn(a.ID, "echo: before")
	since := lastOf(h.history(a.ID), domain.KindAssistant).At.Add(time.Nanosecond)
	h.turn(a.ID, "echo: after")
	b := h.create(NewConversation{})
	h.turn(b.ID, "echo: elsewhere")
	if err := h.rt.SetArchived(context.Background(), b.ID, true); err != nil {
		t.Fatal(err)
	}
	want := (domain.Spend{}).Add(*lastOf(h.history(a.ID), domain.KindAssistant).Usage).Add(*lastOf(h.history(b.ID), domain.KindAssistant).Usage)
	got, err := h.rt.SpentSince(context.Background(), since)
	if err != nil || got != want {
		t.Fatalf("SpentSince = %+v, %v; want the two answers after the moment: %+v", got, err, want)
	}
	if all, _ := h.rt.SpentSince(context.Background(), time.Time{}); all.Responses != 3 {
		t.Fatalf("since the beginning: %d answers, want 3", all.Responses)
	}
}

// loadFails is a store on which one conversation cannot be read.
type loadFails struct {
	Store
	id atomic.Pointer[string]
}

func (s *loadFails) Load(id string) (domain.Conversation, []domain.Message, error) {
	if bad := s.id.Load(); bad != nil && *bad == id {
		return domain.Conversation{}, nil, fmt.Errorf("record of %s: %w", id, persistence.ErrCorrupt)
	}
	return s.Store.Load(id)
}

// A conversation that cannot be read does not hide the day's total of the others: the total
// comes with an error that counts what was left out, which Settings shows beside it.
func TestSpentSinceCountsAroundAnUnreadableConversation(t *testing.T) {
	var store *loadFails
	h := newHarness(t, func(c *Config) {
		store = &loadFails{Store: c.Store}
		c.Store = store
	})
	a := h.create(NewConversation{})
	h.turn(a.ID, "echo: kept")
	b := h.create(NewConversation{})
	h.turn(b.ID, "echo: unreadable")
	store.id.Store(&b.ID)
	got, err := h.rt.SpentSince(context.Background(), time.Time{})
	var partial *IncompleteSpendError
	if !errors.As(err, &partial) || partial.Unreadable != 1 || !errors.Is(err, persistence.ErrCorrupt) {
		t.Fatalf("SpentSince error = %v; want one conversation left out, as corrupt", err)
	}
	if want := (domain.Spend{}).Add(*lastOf(h.history(a.ID), domain.KindAssistant).Usage); got != want {
		t.Fatalf("SpentSince = %+v; want the readable conversation's %+v", got, want)
	}
}

// Issue 33: a fork's copied history is its source's. The day's total counts each reply once,
// in the conversation that made it: it equals the sum of the conversations' own totals, for a
// fork made now and for one stored before a fork recorded how much it copied.
func TestSpentCountsAForksCopiedRepliesOnce(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	src := h.create(NewConversation{})
	h.turn(src.ID, "echo: one")
	h.turn(src.ID, "echo: two")
	last := lastOf(h.history(src.ID), domain.KindAssistant)
	fork, err := h.rt.Fork(ctx, src.ID, last.Seq)
	if err != nil {
		t.Fatal(err)
	}
	h.turn(fork.ID, "echo: three, in the fork")
	a, _ := h.store.Get(src.ID)
	b, _ := h.store.Get(fork.ID)
	want := a.Spent.Plus(b.Spent)
	if want.Responses != 3 {
		t.Fatalf("test premise: the conversations' own totals count %d replies, want 3", want.Responses)
	}
	midnight := StartOfDay(time.Now())
	for _, since := range []time.Time{{}, midnight} {
		if got, err := h.rt.SpentSince(ctx, since); err != nil || got != want {
			t.Fatalf("SpentSince(%v) = %+v, %v; want each reply once: %+v", since, got, err, want)
		}
	}

	// A fork stored before Copied existed: its copies are the messages of its first commit.
	legacy := b
	legacy.Copied = 0
	if _, _, err := h.store.Commit(legacy, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := Spent(ctx, h.store, time.Time{}); err != nil || got != want {
		t.Fatalf("with a fork stored before Copied: Spent = %+v, %v; want %+v", got, err, want)
	}
}

// Issue 33: the continuation summary is a reply of the model: the day's total counts it as the
// conversation's own total does.
func TestSpentCountsTheContinuationSummary_REQ_BED_023(t *testing.T) {
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: before the wrap-up")
	if err := h.rt.WrapUp(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	end := h.waitRest(c.ID)
	if end.State.Kind() != domain.StateContextExhausted || end.Spent.Responses != 2 {
		t.Fatalf("test premise: %s with %d replies; want exhausted after two", end.State.Kind(), end.Spent.Responses)
	}
	if got, err := h.rt.SpentSince(context.Background(), time.Time{}); err != nil || got != end.Spent {
		t.Fatalf("SpentSince = %+v, %v; want the conversation's own %+v", got, err, end.Spent)
	}
}
