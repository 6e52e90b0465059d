package actors

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// selfMCP configures the test binary as the small MCP server of mcptest.
func selfMCP(t *testing.T) harnessOption {
	t.Helper()
	cmd, env, err := mcptest.SelfServer("serve")
	if err != nil {
		t.Fatal(err)
	}
	return withMCP(map[string]mcp.ServerConfig{"go": {Command: cmd, Env: env}})
}

// nextEvent waits for the first event of type E of the conversation.
func nextEvent[E Event](t *testing.T, h *harness, convID string) E {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			if e, ok := ev.(E); ok && ev.Conversation() == convID {
				return e
			}
		case <-timeout.C:
			var zero E
			t.Fatalf("no %T within 30 s", zero)
		}
	}
}

// Issue 26: a server's request for input (the 2026-07-28 round trip of the test server's ask
// tool) becomes an MCPInputRequested with the form's fields; a bad entry is refused and the
// request keeps waiting; the answer reaches the server and its result the model; a late
// answer is refused.
func TestMCPInputRequestRoundTrip(t *testing.T) {
	h := newHarness(t, selfMCP(t))
	c := h.create(NewConversation{Unrestricted: true})
	h.send(c.ID, `mcp: go ask {}`)
	req := nextEvent[MCPInputRequested](t, h, c.ID)
	if req.Server != "go" || req.Message != "Your name?" || len(req.Fields) != 1 || req.Fields[0].Name != "name" || !req.Fields[0].Required {
		t.Fatalf("request %+v", req)
	}
	if p := h.rt.PendingMCPRequests(c.ID); len(p) != 1 || p[0].(MCPInputRequested).ID != req.ID {
		t.Fatalf("pending %+v", p)
	}
	if err := h.rt.AnswerMCPInput(c.ID, req.ID, MCPAccept, map[string]string{"name": " "}); err == nil || !strings.Contains(err.Error(), "name is required") {
		t.Fatalf("an empty required field: %v", err)
	}
	if err := h.rt.AnswerMCPInput(c.ID, req.ID, MCPAccept, map[string]string{"name": "Ada"}); err != nil {
		t.Fatal(err)
	}
	if closed := nextEvent[MCPRequestClosed](t, h, c.ID); closed.ID != req.ID || closed.Answer != "submitted" {
		t.Fatalf("closed %+v", closed)
	}
	h.waitRest(c.ID)
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeSuccess || res[0].Content != "accept Ada" {
		t.Fatalf("results %+v", res)
	}
	if err := h.rt.AnswerMCPInput(c.ID, req.ID, MCPDecline, nil); !errors.Is(err, ErrNoMCPRequest) {
		t.Fatalf("a late answer: %v", err)
	}
}

// Stop while a request for input waits: the request closes as stopped, the call is recorded
// as cancelled, and the conversation rests.
func TestMCPInputRequestEndsWithStop_REQ_BED_005(t *testing.T) {
	h := newHarness(t, selfMCP(t))
	c := h.create(NewConversation{Unrestricted: true})
	h.send(c.ID, `mcp: go ask {}`)
	req := nextEvent[MCPInputRequested](t, h, c.ID)
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	// Stop ends the turn and the request at once: the conversation may come to rest before
	// or after the request's close is published, so both are awaited in either order.
	var closed *MCPRequestClosed
	rest := false
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for closed == nil || !rest {
		select {
		case ev := <-h.sub.Events():
			switch e := ev.(type) {
			case MCPRequestClosed:
				if e.ConvID == c.ID {
					closed = &e
				}
			case StateChanged:
				if e.Conv.ID == c.ID && !domain.Busy(e.Conv.State) {
					rest = true
				}
			}
		case <-timeout.C:
			t.Fatalf("within 30 s after Stop: request closed %v, conversation at rest %v", closed != nil, rest)
		}
	}
	if closed.ID != req.ID || closed.Answer != "stopped" {
		t.Fatalf("closed %+v", closed)
	}
	if res := results(h.history(c.ID)); len(res) != 1 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("results %+v", res)
	}
	if p := h.rt.PendingMCPRequests(c.ID); len(p) != 0 {
		t.Fatalf("still pending: %+v", p)
	}
}

// Issue 26: in Restricted mode a tool marked destructive waits for the person: Deny reaches
// the model as a clear refusal (the tool did not run), Allow once runs it.
func TestMCPDestructiveToolConfirmation_REQ_BED_014(t *testing.T) {
	if st := sandbox.Probe(); !st.Available {
		mcptest.Missing(t, "Landlock is unavailable: "+st.Reason)
	}
	h := newHarness(t, selfMCP(t))
	c := h.create(NewConversation{})
	for i, d := range []MCPToolDecision{MCPToolDeny, MCPToolAllowOnce} {
		h.send(c.ID, `mcp: go erase {}`)
		ask := nextEvent[MCPToolConfirmation](t, h, c.ID)
		if ask.Server != "go" || ask.Tool != "erase" || ask.Arguments != `{}` {
			t.Fatalf("confirmation %+v", ask)
		}
		if err := h.rt.AnswerMCPInput(c.ID, ask.ID, MCPAccept, nil); err == nil {
			t.Fatal("a confirmation took an answer for input")
		}
		if err := h.rt.DecideMCPTool(c.ID, ask.ID, d); err != nil {
			t.Fatal(err)
		}
		if closed := nextEvent[MCPRequestClosed](t, h, c.ID); closed.Answer != d.String() {
			t.Fatalf("closed %+v", closed)
		}
		h.waitRest(c.ID)
		res := results(h.history(c.ID))
		switch last := res[len(res)-1]; {
		case i == 0 && (last.Outcome != domain.OutcomeError || !strings.Contains(last.Content, "did not allow")):
			t.Fatalf("denied: %+v", last)
		case i == 1 && last.Content != "erased":
			t.Fatalf("allowed once: %+v", last)
		}
	}
}

// The conversation's prompts reach the composer through the runtime.
func TestMCPPromptsThroughRuntime(t *testing.T) {
	h := newHarness(t, selfMCP(t))
	c := h.create(NewConversation{Unrestricted: true})
	h.turn(c.ID, `mcp: go echo {"text":"ready"}`) // the server is ready once a call ran
	ctx := context.Background()
	prompts, err := h.rt.Prompts(ctx, c.ID)
	if err != nil || len(prompts) != 1 || prompts[0].Server != "go" || prompts[0].Name != "greet" {
		t.Fatalf("prompts %+v, %v", prompts, err)
	}
	text, err := h.rt.GetPrompt(ctx, c.ID, "go", "greet", map[string]string{"who": "Ada"})
	if err != nil || text != "Say hello to Ada" {
		t.Fatalf("prompt %q, %v", text, err)
	}
	if _, err := h.rt.GetPrompt(ctx, "no-such-conversation", "go", "greet", nil); err == nil {
		t.Fatal("a conversation without servers gave a prompt")
	}
}
