package actors

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/review"
)

// Review drafts (issue 34): the comments on lines waiting to go with a conversation's next
// message, and the files marked reviewed in its Changes view, are kept in the store as
// they change (aux record "review", flushed like the composer's draft), so a restart loses
// none of them. The window is the only writer; the conversation's actor never reads it.
// Delete removes it with the other aux records. A record of its own, added beside the
// others: no older record changes.

const auxReview = "review"

// ReviewDraft is what a conversation's Changes view keeps for the person.
type ReviewDraft struct {
	// Comments go with the next message, in the order they were written.
	Comments []review.Comment `json:"comments,omitempty"`
	// Reviewed maps a file's path to the fingerprint of the diff it was marked reviewed on
	// (ui/review.DiffPrint): a mark holds while the file's diff is that one.
	Reviewed map[string]string `json:"reviewed,omitempty"`
}

// Empty reports whether there is nothing to keep.
func (d ReviewDraft) Empty() bool { return len(d.Comments) == 0 && len(d.Reviewed) == 0 }

// ReviewDraft returns a conversation's kept comments and marks; an empty draft when there
// are none.
func (r *Runtime) ReviewDraft(ctx context.Context, id string) (ReviewDraft, error) {
	if err := ctx.Err(); err != nil {
		return ReviewDraft{}, err
	}
	b, err := r.cfg.Store.Aux(id, auxReview)
	if errors.Is(err, persistence.ErrNotFound) {
		return ReviewDraft{}, nil
	}
	if err != nil {
		return ReviewDraft{}, fmt.Errorf("read the comments and marks of the changes of %s: %w", id, err)
	}
	var d ReviewDraft
	if err := json.Unmarshal(b, &d); err != nil {
		return ReviewDraft{}, fmt.Errorf("the comments and marks of the changes of %s do not decode: %w", id, err)
	}
	return d, nil
}

// SaveReviewDraft keeps a conversation's comments and marks; an empty draft removes the
// record (the comments were sent and nothing is marked).
func (r *Runtime) SaveReviewDraft(ctx context.Context, id string, d ReviewDraft) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d.Empty() {
		if err := r.cfg.Store.DeleteAux(id, auxReview); err != nil {
			return fmt.Errorf("remove the comments and marks of the changes of %s: %w", id, err)
		}
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("encode the comments and marks of the changes of %s: %w", id, err)
	}
	if err := r.cfg.Store.PutAux(id, auxReview, b); err != nil {
		return fmt.Errorf("keep the comments and marks of the changes of %s: %w", id, err)
	}
	return nil
}
