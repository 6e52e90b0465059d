package actors

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/review"
)

// TestReviewDraftSurvivesReopen_Issue34: the comments waiting for the next message and the
// files marked reviewed come back after the store is closed and opened again; an emptied
// draft leaves no record; Delete takes it with the conversation; the composer's draft, a
// record of its own, is untouched by it.
func TestReviewDraftSurvivesReopen_Issue34(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	if d, err := h.rt.ReviewDraft(ctx, c.ID); err != nil || !d.Empty() {
		t.Fatalf("a new conversation's review draft = %+v, %v", d, err)
	}
	want := ReviewDraft{
		Comments: []review.Comment{
			{Path: "a.go", Start: 3, End: 5, Lines: []string{"x := 1", "y := 2", "}"}, Text: "name these"},
			{Path: "b.go", Start: 7, End: 7, Old: true, Lines: []string{"return nil"}, Text: "why removed?"},
		},
		Reviewed: map[string]string{"a.go": "0123456789abcdef"},
	}
	if err := h.rt.SaveReviewDraft(ctx, c.ID, want); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{Text: "typed"}); err != nil {
		t.Fatal(err)
	}
	h.restart()
	got, err := h.rt.ReviewDraft(ctx, c.ID)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("after a reopen: %+v, %v; want %+v", got, err, want)
	}
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || d.Text != "typed" {
		t.Fatalf("the composer's draft beside it: %+v, %v", d, err)
	}
	if err := h.rt.SaveReviewDraft(ctx, c.ID, ReviewDraft{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxReview); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("an emptied review draft is still stored: %v", err)
	}
	if err := h.rt.SaveReviewDraft(ctx, c.ID, want); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxReview); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("Delete left the review draft: %v", err)
	}
}
