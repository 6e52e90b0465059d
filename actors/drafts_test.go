package actors

import (
	"context"
	"errors"
	"testing"

	"github.com/phoenix-desktop/phoenix/persistence"
)

// An unsent draft survives a restart, an empty one is removed, and Delete takes it with the
// conversation (issue 41).
func TestDraftSurvivesRestartAndGoesWithTheConversation(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || d != "" {
		t.Fatalf("a new conversation's draft = %q, %v", d, err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, "half a thought\nand a second line"); err != nil {
		t.Fatal(err)
	}
	h.restart()
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || d != "half a thought\nand a second line" {
		t.Fatalf("draft after a restart = %q, %v", d, err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxDraft); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("an emptied draft is still stored: %v", err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, "again"); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxDraft); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("Delete left the draft: %v", err)
	}
}
