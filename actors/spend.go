package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// IncompleteSpendError says a total leaves conversations out because they could not be
// read: the total returned beside it is what the readable ones spent.
type IncompleteSpendError struct {
	Unreadable int
	First      error // why the first of them could not be read
}

func (e *IncompleteSpendError) Error() string {
	if e.Unreadable == 1 {
		return fmt.Sprintf("1 conversation could not be read and is not counted (%v)", e.First)
	}
	return fmt.Sprintf("%d conversations could not be read and are not counted (%v)", e.Unreadable, e.First)
}

func (e *IncompleteSpendError) Unwrap() error { return e.First }

// SpentSince is Spent on the runtime's store: Settings' total for today (issue 27).
func (r *Runtime) SpentSince(ctx context.Context, since time.Time) (domain.Spend, error) {
	return Spent(ctx, r.cfg.Store, since)
}

// StartOfDay is the local midnight that begins the day of t: where "today" starts for
// Settings' total and `spent --today`.
func StartOfDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// SpendStore is what adding up the spending reads of a store.
type SpendStore interface {
	List(includeArchived bool) ([]persistence.Summary, error)
	Load(id string) (domain.Conversation, []domain.Message, error)
	Children(parentID string) ([]domain.Conversation, error)
}

// Spent sums what the model's answers committed since `since` took and cost, over every
// conversation — archived ones and sub-agents included — each answer once, in the
// conversation that made it: a fork's copied history is its source's (issue 33). It is
// the one sum behind Settings' "Spent today" and `phoenix-desktop spent`; the zero time
// sums everything. Only the conversations updated since then are read (a sub-agent's
// answers also update its parent), so a day's total costs a pass over that day's
// conversations, not the whole store. A conversation that cannot be read does not hide the
// others: the total of the rest comes with an *IncompleteSpendError that counts what was
// left out.
func Spent(ctx context.Context, store SpendStore, since time.Time) (domain.Spend, error) {
	var (
		total   domain.Spend
		skipped IncompleteSpendError
	)
	leaveOut := func(err error) {
		if skipped.Unreadable == 0 {
			skipped.First = err
		}
		skipped.Unreadable++
	}
	list, err := store.List(true)
	if err != nil {
		if !errors.Is(err, persistence.ErrCorrupt) {
			return total, err
		}
		leaveOut(err) // the store lists every record that decodes and says which did not
	}
	add := func(id string) {
		conv, msgs, err := store.Load(id)
		if err != nil {
			leaveOut(fmt.Errorf("read the spending of %s: %w", id, err))
			return
		}
		copied := copiedMessages(conv, msgs)
		for _, m := range msgs {
			if m.Usage != nil && m.Seq >= copied && !m.At.Before(since) {
				total = total.Add(*m.Usage)
			}
		}
	}
	for _, s := range list {
		if s.UpdatedAt.Before(since) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
		add(s.ID)
		children, err := store.Children(s.ID)
		if err != nil {
			leaveOut(fmt.Errorf("list the sub-agents of %s: %w", s.ID, err))
		}
		for _, c := range children {
			if !c.UpdatedAt.Before(since) {
				add(c.ID)
			}
		}
	}
	if skipped.Unreadable > 0 {
		return total, &skipped
	}
	return total, nil
}

// copiedMessages is how many of a conversation's first messages it was given by the source it
// was forked from (domain.Conversation.Copied). A fork made before that was recorded stored
// them in one commit ahead of any message of its own (storeNew), and the store stamps every
// message of a commit with the commit's time: they are the leading messages that carry the
// first one's time.
func copiedMessages(c domain.Conversation, history []domain.Message) uint64 {
	if c.ForkedFrom == "" || c.Copied > 0 || len(history) == 0 {
		return c.Copied
	}
	n := uint64(0)
	for _, m := range history {
		if !m.At.Equal(history[0].At) {
			break
		}
		n = m.Seq + 1
	}
	return n
}
