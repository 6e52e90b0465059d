package actors

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/tools"
)

// gatedTools holds every think call until the test releases it, so a turn stays busy for as
// long as the test needs.
type gatedTools struct {
	inner   ToolRunner
	started chan struct{}
	release chan struct{}
}

func newGatedTools() *gatedTools {
	return &gatedTools{inner: tools.NewRegistry(), started: make(chan struct{}, 16), release: make(chan struct{})}
}

func (g *gatedTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	if call.Name == domain.ToolThink {
		g.started <- struct{}{}
		select {
		case <-g.release:
		case <-ctx.Done():
		}
	}
	return g.inner.Run(ctx, env, call)
}

// waitQueue waits for a QueueChanged of the conversation that satisfies ok. The queue is
// saved after the transition that holds or sends it is published, so tests wait for it.
func (h *harness) waitQueue(id, what string, ok func(Queue) bool) Queue {
	h.t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			if qc, is := ev.(QueueChanged); is && qc.ConvID == id && ok(qc.Queue) {
				return qc.Queue
			}
		case <-timeout.C:
			q, err := h.rt.Queue(context.Background(), id)
			h.t.Fatalf("timed out waiting for %s; the queue is %+v (%v)", what, q, err)
		}
	}
}

func userTexts(msgs []domain.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Kind == domain.KindUser {
			out = append(out, m.Text)
		}
	}
	return out
}

func TestQueuedMessagesAreSentWhenTheConversationComesToRest_REQ_BED_002(t *testing.T) {
	gate := newGatedTools()
	h := newHarness(t, withTools(gate))
	ctx := context.Background()
	c := h.create(NewConversation{})
	h.send(c.ID, "think: working")
	<-gate.started

	// The core still rejects a message while busy; the queue takes it instead.
	isErr(t, h.rt.Send(ctx, c.ID, "direct", nil), domain.ErrAgentBusy)
	q, err := h.rt.Enqueue(ctx, c.ID, "echo: second", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: third", nil); err != nil {
		t.Fatal(err)
	}
	q, err = h.rt.Enqueue(ctx, c.ID, "echo: dropped", nil)
	if err != nil || len(q.Items) != 3 {
		t.Fatalf("queue = %+v, %v", q, err)
	}
	// Edit, reorder and remove while the agent still works.
	if q, err = h.rt.EditQueued(ctx, c.ID, q.Items[1].ID, "echo: third, edited"); err != nil {
		t.Fatal(err)
	}
	if q, err = h.rt.MoveQueued(ctx, c.ID, q.Items[1].ID, 0); err != nil {
		t.Fatal(err)
	}
	if q, err = h.rt.RemoveQueued(ctx, c.ID, q.Items[2].ID); err != nil {
		t.Fatal(err)
	}
	if got := []string{q.Items[0].Text, q.Items[1].Text}; len(q.Items) != 2 || got[0] != "echo: third, edited" || got[1] != "echo: second" {
		t.Fatalf("queue after edits = %+v", q.Items)
	}
	_, err = h.rt.EditQueued(ctx, c.ID, "gone", "x")
	isErr(t, err, ErrQueueItemNotFound)

	close(gate.release)
	h.waitQueue(c.ID, "the queue to drain", func(q Queue) bool { return len(q.Items) == 0 })
	end := h.waitRest(c.ID)
	got := userTexts(h.history(c.ID))
	want := []string{"think: working", "echo: third, edited", "echo: second"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("user messages = %q, want %q (state %s)", got, want, end.State.Kind())
	}
}

func TestQueueIsHeldAfterStopAndErrorAndSurvivesRestart(t *testing.T) {
	gate := newGatedTools()
	h := newHarness(t, withTools(gate))
	ctx := context.Background()
	c := h.create(NewConversation{})

	// Stop does not clear the queue and does not send it.
	h.send(c.ID, "think: working")
	<-gate.started
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: after stop", nil); err != nil {
		t.Fatal(err)
	}
	if err := h.rt.Cancel(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	q := h.waitQueue(c.ID, "the queue held after Stop", func(q Queue) bool { return q.Held != "" })
	if len(q.Items) != 1 || q.Held != heldAfterStop {
		t.Fatalf("after Stop: %+v", q)
	}

	// The queue is kept in the store: a restart loses nothing and sends nothing.
	h.restart()
	q, err := h.rt.Queue(ctx, c.ID)
	if err != nil || len(q.Items) != 1 {
		t.Fatalf("after restart: %+v %v", q, err)
	}
	// Resume sends it now.
	if q, err = h.rt.ResumeQueue(ctx, c.ID); err != nil || len(q.Items) != 0 {
		t.Fatalf("resume: %+v %v", q, err)
	}
	h.waitRest(c.ID)
	if got := userTexts(h.history(c.ID)); got[len(got)-1] != "echo: after stop" {
		t.Fatalf("user messages = %q", got)
	}

	// A turn that ends in an error holds the queue, with the reason.
	h.srv.Enqueue(fakellm.Failure(http.StatusUnauthorized, "bad key"))
	h.send(c.ID, "echo: fails")
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: waits", nil); err != nil && !errors.Is(err, domain.ErrAgentBusy) {
		t.Fatal(err)
	}
	q = h.waitQueue(c.ID, "the queue held after an error", func(q Queue) bool { return q.Held != "" })
	if len(q.Items) != 1 || q.Held != heldAfterError {
		t.Fatalf("after an error: %+v", q)
	}
	if got := userTexts(h.history(c.ID)); got[len(got)-1] != "echo: fails" {
		t.Fatalf("a queued message was sent after an error: %q", got)
	}
	if q, err = h.rt.ClearQueue(ctx, c.ID); err != nil || len(q.Items) != 0 || q.Held != "" {
		t.Fatalf("clear: %+v %v", q, err)
	}
}

func TestQueueIsNotSentIntoAnExhaustedConversation(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	// The first reply reports usage past 90%: the conversation wraps up and is exhausted.
	h.srv.Enqueue(fakellm.Reply{Text: "big", Usage: &fakellm.Usage{PromptTokens: domain.ContextWindowFor(domain.DemoModel) * 95 / 100}})
	h.send(c.ID, "echo: big")
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: too late", nil); err != nil {
		t.Fatal(err)
	}
	q := h.waitQueue(c.ID, "the queue held", func(q Queue) bool { return q.Held != "" })
	if len(q.Items) != 1 || q.Held != heldExhausted {
		t.Fatalf("queue in an exhausted conversation: %+v", q)
	}
	_, err := h.rt.Enqueue(ctx, c.ID, "echo: more", nil)
	isErr(t, err, domain.ErrContextExhausted)
}
