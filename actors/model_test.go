package actors

import (
	"context"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

func TestChangeModelMidConversation(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: first")
	if got := h.srv.LastChat().Model; got != domain.DemoModel {
		t.Fatalf("first request asked %s", got)
	}

	ch, err := h.rt.ChangeModel(ctx, c.ID, "gpt-4o")
	if err != nil {
		t.Fatal(err)
	}
	if ch.Conv.Model != "gpt-4o" || ch.Conv.Window() != domain.ContextWindowFor("gpt-4o") || ch.AtContinuation {
		t.Fatalf("after the switch: %+v", ch)
	}
	// The switch published its own resting state.
	h.freshTurn(c.ID, "echo: second")
	last := h.srv.LastChat()
	if last.Model != "gpt-4o" {
		t.Fatalf("the next request asked %s, want the new model", last.Model)
	}
	var told bool
	for _, m := range last.Messages {
		told = told || strings.Contains(m.Content.String(), llm.SystemNoticePrefix+domain.ModelChangedText(domain.DemoModel, "gpt-4o"))
	}
	if !told {
		t.Fatal("the switch is not a system notice in the history the model reads")
	}
	// Persisted: a restart keeps the model.
	h.restart()
	if got, _ := h.store.Get(c.ID); got.Model != "gpt-4o" {
		t.Fatalf("after restart the model is %s", got.Model)
	}
}

func TestChangeModelToASmallWindowSaysToWrapUp_REQ_BED_019(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{})
	// 31,000 tokens: 31% of the demo window, 94% of qwen2.5-coder's 32k.
	h.srv.Enqueue(fakellm.Reply{Text: "ok", Usage: &fakellm.Usage{PromptTokens: 31_000}})
	h.turn(c.ID, "echo: big")
	ch, err := h.rt.ChangeModel(ctx, c.ID, "qwen2.5-coder")
	if err != nil {
		t.Fatal(err)
	}
	if !ch.AtContinuation || !ch.TextOnly || ch.Conv.Window() != 32_768 {
		t.Fatalf("switch to a small window: %+v", ch)
	}
	var notice string
	for notice == "" {
		if n, ok := (<-h.sub.Events()).(Notice); ok && n.ConvID == c.ID {
			notice = n.Text
		}
	}
	mustContain(t, notice, "wrap it up")
	// The core rejects a switch while busy (REQ-BED-002).
	gateless := h.create(NewConversation{})
	h.srv.Enqueue(fakellm.Reply{Text: "slow", Fault: fakellm.FaultStall, FaultAfter: 1})
	h.send(gateless.ID, "echo: x")
	_, err = h.rt.ChangeModel(ctx, gateless.ID, "gpt-4o")
	isErr(t, err, domain.ErrAgentBusy)
	if err := h.rt.Cancel(ctx, gateless.ID); err != nil {
		t.Fatal(err)
	}
}
