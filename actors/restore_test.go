package actors

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestRestoreHoldsTheConversation holds an Undo half way — granted by the actor, git not yet
// run — and shows that a message is refused meanwhile (it was accepted, and its turn ran
// beside the restore writing the tree, when the restore only checked "at rest" once), that a
// queued message waits, and that both go once the restore has ended.
func TestRestoreHoldsTheConversation(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a1\n")
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, "patch: a.txt <<< a2\\n")
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil || len(cps) != 1 {
		t.Fatalf("checkpoints: %v, %v", cps, err)
	}
	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreUndo, cps[0].ID)
	if err != nil {
		t.Fatal(err)
	}

	reached, release := make(chan struct{}), make(chan struct{})
	h.rt.restoreHook = func() {
		close(reached)
		<-release
	}
	done := make(chan error, 1)
	go func() {
		_, err := h.rt.ApplyRestore(ctx, c.ID, plan, false)
		done <- err
	}()
	<-reached

	if err := h.rt.Send(ctx, c.ID, "a message during the restore", nil); !errors.Is(err, ErrRestoring) {
		t.Fatalf("Send during a restore: %v, want ErrRestoring", err)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); !errors.Is(err, ErrRestoring) {
		t.Fatalf("a second restore during the first: %v, want ErrRestoring", err)
	}
	q, err := h.rt.Enqueue(ctx, c.ID, "queued during the restore", nil)
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("queue during a restore: %+v, %v; want it held in the queue", q, err)
	}
	if conv, err := h.rt.cfg.Store.Get(c.ID); err != nil || domain.Busy(conv.State) {
		t.Fatalf("the conversation started a turn during the restore: %v, %v", conv.State, err)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatalf("restore: %v", err)
	}
	if got := readFile(t, filepath.Join(h.cwd, "a.txt")); got != "a1\n" {
		t.Fatalf("a.txt = %q after Undo", got)
	}
	// The queued message went when the restore ended; after its turn, Send is accepted.
	// The state comes with the event and the history from the store a moment later, so the
	// turn counts as over once its reply is stored after the queued message, at rest.
	h.waitFor(c.ID, "the queued message's turn", func(c domain.Conversation) bool {
		hist := h.history(c.ID)
		return len(hist) > 0 && hist[len(hist)-1].Kind == domain.KindAssistant &&
			lastOf(hist, domain.KindUser).Text == "queued during the restore" && !domain.Busy(c.State)
	})
	h.rt.restoreHook = nil
	h.turn(c.ID, "after the restore")
}
