package ui

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/review"
)

// TestCommentsAndMarksSurviveARestart_Issue34: a comment waiting for the next message and a
// file marked reviewed come back in a new window on the same store (the next start): the
// composer says the comment goes with the next message, the Changes view shows the mark;
// once the file changes in a later turn, its mark is gone, also from the store; sending
// the comment takes it out of the store.
func TestCommentsAndMarksSurviveARestart_Issue34(t *testing.T) {
	h, env, cs, w := changesAfterATurn(t, "f.txt")
	if !w.view.SelectLine("f.txt", 3, false) {
		t.Fatal("no row shows line 3 of f.txt")
	}
	w.view.Comment("say why")
	w.view.SetReviewed("f.txt", true)
	stored := func() actors.ReviewDraft {
		d, err := env.Runtime.ReviewDraft(h.m.ctx, cs.id)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	h.waitFor("the comment and the mark in the store", func() bool {
		d := stored()
		return len(d.Comments) == 1 && d.Reviewed["f.txt"] != ""
	})
	w.win.Close()

	// The next start: a new window on the same store.
	h2 := &harness{t: t, q: newQueue()}
	h2.deps = Deps{Do: h2.q.push}
	h2.start(env.Runtime, env.Runtime.Subscribe())
	h2.m.open(cs.id)
	cs2 := h2.m.current
	h2.waitFor("the comment back for the next message", func() bool { return h2.m.rv.hasComments(cs2) })
	h2.waitRest("the conversation at rest")
	h2.m.rv.open(cs2, actors.ChangesScope{Kind: review.Conversation})
	w2 := h2.m.rv.wins[cs2.id]
	h2.waitFor("the changes and the mark", func() bool { return len(w2.view.Changes().Files) == 1 && w2.view.Reviewed("f.txt") })

	// The file changes after the mark: the mark goes, from the view and the store. The
	// comment goes with this message and leaves the store.
	h2.typeAndSend("patch: f.txt ::: line 25\\n ==> twenty-five by the agent\\n")
	h2.waitRest("rest after the second turn")
	h2.waitFor("the mark dropped", func() bool {
		return len(w2.view.Changes().Files[0].Hunks) == 2 && !w2.view.Reviewed("f.txt") && stored().Empty()
	})
	w2.win.Close()
}
