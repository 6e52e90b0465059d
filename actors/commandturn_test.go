package actors

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// commandTurn sends a command's message and waits for the conversation to rest, returning
// the notices published on the way.
func (h *harness) commandTurn(id, text string, opt TurnOptions) (domain.Conversation, []Notice) {
	h.t.Helper()
	if err := h.rt.SendCommand(context.Background(), id, text, nil, opt); err != nil {
		h.t.Fatalf("send /%s: %v", opt.Command, err)
	}
	var notices []Notice
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			switch e := ev.(type) {
			case Notice:
				if e.ConvID == id {
					notices = append(notices, e)
				}
			case StateChanged:
				if e.Conv.ID == id && !domain.Busy(e.Conv.State) {
					return e.Conv, notices
				}
			}
		case <-timeout.C:
			h.t.Fatalf("timed out waiting for /%s to finish", opt.Command)
		}
	}
}

// requestModels are the models the fake provider was asked for, in order.
func (h *harness) requestModels() []string {
	var out []string
	for _, r := range h.srv.Requests() {
		if r.Chat != nil {
			out = append(out, r.Chat.Model)
		}
	}
	return out
}

// A command's model answers the turn it starts, tool rounds included, under the provider's
// own id for it; then the conversation's model is back, nothing in the history says the
// person switched models, and the conversation is titled by the invocation (issue 38).
func TestCommandModelIsForItsTurnOnly(t *testing.T) {
	h := newHarness(t)
	// A gateway that names Anthropic's models its own way, as OpenRouter does.
	h.srv.SetModels(domain.DemoModel, "anthropic/claude-sonnet-4", "openai/gpt-4.1")
	c := h.create(NewConversation{})
	opt := TurnOptions{Command: "api-scaffold", Model: "claude-sonnet-4-0", Title: "/api-scaffold users service"}
	conv, notices := h.commandTurn(c.ID, "# API Scaffold Generator\nthink: plan the routes", opt)
	if conv.State.Kind() != domain.StateIdle || conv.Model != domain.DemoModel || conv.TurnModel != "" {
		t.Fatalf("after the command: state %s, model %q, turn model %q; want Idle on %s", conv.State.Kind(), conv.Model, conv.TurnModel, domain.DemoModel)
	}
	if got := h.requestModels(); len(got) != 2 || got[0] != "anthropic/claude-sonnet-4" || got[1] != "anthropic/claude-sonnet-4" {
		t.Fatalf("the command's turn asked for %v; want both requests (the tool round's too) on anthropic/claude-sonnet-4", got)
	}
	if len(notices) != 1 || notices[0].Level != NoticeInfo ||
		notices[0].Text != "/api-scaffold runs on claude-sonnet-4-0 (which this provider calls anthropic/claude-sonnet-4), as it asks; the conversation stays on Demo (offline)." {
		t.Errorf("notices %+v", notices)
	}
	if conv.Title != "/api-scaffold users service" {
		t.Errorf("title %q; want the invocation", conv.Title)
	}
	for _, m := range h.history(c.ID) {
		if m.Kind == domain.KindSystem {
			t.Errorf("the history tells the agent %q", m.Text)
		}
	}
	h.turn(c.ID, "echo: next")
	if got := h.requestModels(); got[len(got)-1] != domain.DemoModel {
		t.Fatalf("the turn after the command asked for %s; want the conversation's %s", got[len(got)-1], domain.DemoModel)
	}
}

// A model the provider does not offer, under that name or a certainly equal one, is left
// out with a notice that says so, and the turn runs on the conversation's model: never a
// request for a model that is not there.
func TestCommandModelNotOfferedIsSkippedWithANotice(t *testing.T) {
	h := newHarness(t)
	c := h.create(NewConversation{})
	for _, want := range []string{"claude-sonnet-4-0", "sonnet"} {
		conv, notices := h.commandTurn(c.ID, "echo: done", TurnOptions{Command: "api-scaffold", Model: want})
		if conv.State.Kind() != domain.StateIdle || conv.Model != domain.DemoModel {
			t.Fatalf("%s: state %s model %s", want, conv.State.Kind(), conv.Model)
		}
		if got := h.requestModels(); got[len(got)-1] != domain.DemoModel {
			t.Fatalf("%s: the turn asked for %s; want %s", want, got[len(got)-1], domain.DemoModel)
		}
		if len(notices) != 1 || notices[0].Level != NoticeWarning || !strings.Contains(notices[0].Text,
			"/api-scaffold asks for the model "+want+", but this provider offers no model by that name, nor one certainly the same under another name, so its turn runs on the conversation's model, Demo (offline).") {
			t.Errorf("%s: notices %+v", want, notices)
		}
	}
	// The conversation's own model asked by its name: nothing to say.
	_, notices := h.commandTurn(c.ID, "echo: done", TurnOptions{Command: "fast", Model: domain.DemoModel})
	if len(notices) != 0 {
		t.Errorf("the conversation's own model gave notices %+v", notices)
	}
}

// A command typed while the agent works waits in the queue with the model its turn runs on,
// and runs on it when its turn comes; the turn after is the conversation's again.
func TestQueuedCommandRunsOnItsModel(t *testing.T) {
	gate := newGatedTools()
	h := newHarness(t, withTools(gate))
	h.srv.SetModels(domain.DemoModel, "anthropic/claude-sonnet-4")
	ctx := context.Background()
	c := h.create(NewConversation{})
	h.send(c.ID, "think: working")
	<-gate.started
	q, err := h.rt.EnqueueCommand(ctx, c.ID, "echo: scaffolded", nil, TurnOptions{Command: "api-scaffold", Model: "claude-sonnet-4-0"})
	if err != nil || len(q.Items) != 1 || q.Items[0].Model != "anthropic/claude-sonnet-4" {
		t.Fatalf("queue %+v, %v; want the command waiting with the provider's id for its model", q, err)
	}
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: after", nil); err != nil {
		t.Fatal(err)
	}
	close(gate.release)
	h.waitQueue(c.ID, "the queue to drain", func(q Queue) bool { return len(q.Items) == 0 })
	end := h.waitFor(c.ID, "the last queued turn", func(c domain.Conversation) bool { return !domain.Busy(c.State) && c.NextSeq >= 8 })
	if end.Model != domain.DemoModel {
		t.Fatalf("the conversation is on %s; want %s", end.Model, domain.DemoModel)
	}
	got := h.requestModels()
	want := []string{domain.DemoModel, domain.DemoModel, "anthropic/claude-sonnet-4", domain.DemoModel}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("the requests asked for %v; want %v", got, want)
	}
}

// A command's model whose window cannot hold the conversation so far is left out with a
// notice: the turn would fail, or leave the conversation past its threshold.
func TestCommandModelTooSmallForTheConversationIsSkipped(t *testing.T) {
	h := newHarness(t)
	h.srv.SetModels("gpt-4.1", "anthropic/claude-sonnet-4")
	c := h.create(NewConversation{Model: "gpt-4.1"})
	// 190,000 tokens: a tenth of gpt-4.1's window, more than 90% of Claude's 200,000.
	if conv := h.turn(c.ID, "usage: 190000\necho: long"); conv.Usage.Total() != 190_000 {
		t.Fatalf("usage %d", conv.Usage.Total())
	}
	_, notices := h.commandTurn(c.ID, "echo: done", TurnOptions{Command: "api-scaffold", Model: "claude-sonnet-4-0"})
	if got := h.requestModels(); got[len(got)-1] != "gpt-4.1" {
		t.Fatalf("the turn asked for %s; want gpt-4.1", got[len(got)-1])
	}
	if len(notices) != 1 || notices[0].Text != "/api-scaffold asks for the model claude-sonnet-4-0, but its context window (200000 tokens) cannot hold this conversation, so its turn runs on the conversation's model, gpt-4.1." {
		t.Errorf("notices %+v", notices)
	}
}
