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
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || !d.Empty() {
		t.Fatalf("a new conversation's draft = %+v, %v", d, err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{Text: "half a thought\nand a second line"}); err != nil {
		t.Fatal(err)
	}
	h.restart()
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || d.Text != "half a thought\nand a second line" {
		t.Fatalf("draft after a restart = %+v, %v", d, err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxDraft); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("an emptied draft is still stored: %v", err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{Text: "again", Images: []Attachment{{Name: "a.png", Data: []byte("png bytes")}}}); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.Aux(c.ID, auxDraft); !errors.Is(err, persistence.ErrNotFound) {
		t.Fatalf("Delete left the draft: %v", err)
	}
	if imgs, err := h.store.AuxList(c.ID, auxDraftImage); err != nil || len(imgs) != 0 {
		t.Fatalf("Delete left %d images of the draft (%v)", len(imgs), err)
	}
}

// A draft's attached images come back after a restart with their names, in order; an image
// taken out of the draft is removed from the store; an emptied draft leaves no image behind;
// a record written before images were kept still reads (issue 41: "drafts (text and
// attachments)").
func TestDraftKeepsItsImagesAcrossRestarts(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	a := Attachment{Name: "screenshot.png", Data: []byte("first image")}
	b := Attachment{Name: "diagram.png", Data: []byte("second image")}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{Text: "see these", Images: []Attachment{a, b}}); err != nil {
		t.Fatal(err)
	}
	h.restart()
	d, err := h.rt.Draft(ctx, c.ID)
	if err != nil || d.Text != "see these" || len(d.Images) != 2 ||
		d.Images[0].Name != a.Name || string(d.Images[0].Data) != string(a.Data) || d.Images[1].Name != b.Name {
		t.Fatalf("draft after a restart = %+v, %v", d, err)
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{Text: "see this", Images: []Attachment{b}}); err != nil {
		t.Fatal(err)
	}
	if imgs, _ := h.store.AuxList(c.ID, auxDraftImage); len(imgs) != 1 {
		t.Fatalf("%d image records after one was taken out, want 1", len(imgs))
	}
	if err := h.rt.SaveDraft(ctx, c.ID, Draft{}); err != nil {
		t.Fatal(err)
	}
	if imgs, _ := h.store.AuxList(c.ID, auxDraftImage); len(imgs) != 0 {
		t.Fatalf("%d image records after the draft was emptied", len(imgs))
	}
	// A record of the earlier format: text only.
	if err := h.store.PutAux(c.ID, auxDraft, []byte(`{"text":"older"}`)); err != nil {
		t.Fatal(err)
	}
	if d, err := h.rt.Draft(ctx, c.ID); err != nil || d.Text != "older" || len(d.Images) != 0 {
		t.Fatalf("an older record reads as %+v, %v", d, err)
	}
}
