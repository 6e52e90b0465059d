package ui

import (
	"context"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/review"
)

// TestChangesViewFollowsTheConversation_Issue34: an open Changes view (this conversation)
// is read again by itself when a later turn ends and when a revert is made elsewhere (the
// command API, as `phoenix-desktop revert` does), with nobody pressing Refresh; the line the
// person selected stays selected, the comment being written stays in its box, and the mark
// on a file whose diff did not change stays.
func TestChangesViewFollowsTheConversation_Issue34(t *testing.T) {
	h, _, cs, w := changesAfterATurn(t, "f.txt", "g.txt")
	if !w.view.SelectLine("f.txt", 3, false) {
		t.Fatal("no row shows line 3 of f.txt")
	}
	w.view.SetReviewed("f.txt", true)
	w.view.FocusComment(w.win.Canvas())
	entry := w.win.Canvas().Focused()
	if entry == nil {
		t.Fatal("the comment box has no focus")
	}
	entry.TypedRune('x')

	h.typeAndSend("patch: g.txt ::: line 7\\n ==> seven by the agent\\n")
	h.waitRest("rest after the second turn")
	h.waitFor("the view read again after the turn", func() bool { return len(w.view.Changes().Files) == 2 })
	if sel, ok := w.view.Selection(); !ok || sel.Path != "f.txt" || sel.Start != 3 {
		t.Errorf("the selection after the turn: %+v (%v), want f.txt line 3", sel, ok)
	}
	if !w.view.Reviewed("f.txt") {
		t.Error("the mark on f.txt, whose diff did not change, was dropped")
	}

	ch := w.view.Changes()
	if _, err := h.m.rv.b.Revert(context.Background(), cs.id, actors.RevertRequest{Scope: actors.ChangesScope{Kind: review.Conversation}, Path: "g.txt", Expect: ch.To}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("the view read again after the revert", func() bool { return len(w.view.Changes().Files) == 1 })
	if sel, ok := w.view.Selection(); !ok || sel.Path != "f.txt" || sel.Start != 3 {
		t.Errorf("the selection after the revert: %+v (%v), want f.txt line 3", sel, ok)
	}
	if got := w.view.CommentText(); got != "x" {
		t.Errorf("the comment being written is %q, want x", got)
	}
	w.win.Close()
}
