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
	return fmt.Sprintf("%d conversation(s) could not be read and are not counted (%v)", e.Unreadable, e.First)
}

func (e *IncompleteSpendError) Unwrap() error { return e.First }

// SpentSince sums what the model's answers committed since `since` took and cost, over every
// conversation — archived ones and sub-agents included: Settings' total for today (issue 27).
// Only the conversations updated since then are read (a sub-agent's answers also update its
// parent), so a day's total costs a pass over that day's conversations, not the whole store.
// A conversation that cannot be read does not hide the others: the total of the rest comes
// with an *IncompleteSpendError that counts what was left out.
func (r *Runtime) SpentSince(ctx context.Context, since time.Time) (domain.Spend, error) {
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
	list, err := r.cfg.Store.List(true)
	if err != nil {
		if !errors.Is(err, persistence.ErrCorrupt) {
			return total, err
		}
		leaveOut(err) // the store lists every record that decodes and says which did not
	}
	add := func(id string) {
		_, msgs, err := r.cfg.Store.Load(id)
		if err != nil {
			leaveOut(fmt.Errorf("read the spending of %s: %w", id, err))
			return
		}
		for _, m := range msgs {
			if m.Usage != nil && !m.At.Before(since) {
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
		children, err := r.cfg.Store.Children(s.ID)
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
