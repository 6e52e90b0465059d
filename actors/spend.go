package actors

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
)

// SpentSince sums what the model's answers committed since `since` took and cost, over every
// conversation — archived ones and sub-agents included: Settings' total for today (issue 27).
// Only the conversations updated since then are read (a sub-agent's answers also update its
// parent), so a day's total costs a pass over that day's conversations, not the whole store.
func (r *Runtime) SpentSince(ctx context.Context, since time.Time) (domain.Spend, error) {
	var total domain.Spend
	list, err := r.cfg.Store.List(true)
	if err != nil && !errors.Is(err, persistence.ErrCorrupt) {
		return total, err
	}
	add := func(id string) error {
		_, msgs, err := r.cfg.Store.Load(id)
		if err != nil {
			return fmt.Errorf("read the spending of %s: %w", id, err)
		}
		for _, m := range msgs {
			if m.Usage != nil && !m.At.Before(since) {
				total = total.Add(*m.Usage)
			}
		}
		return nil
	}
	for _, s := range list {
		if s.UpdatedAt.Before(since) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return total, err
		}
		if err := add(s.ID); err != nil {
			return total, err
		}
		children, _ := r.cfg.Store.Children(s.ID)
		for _, c := range children {
			if !c.UpdatedAt.Before(since) {
				if err := add(c.ID); err != nil {
					return total, err
				}
			}
		}
	}
	return total, nil
}
