package llm

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// Issue 13: the finish reason is acted on. A reply that ends early comes back with its
// StopReason; the output limit goes out as max_tokens, or as max_completion_tokens for the
// models the table marks, so the limit a reply can be cut at is the one the person is shown.
func TestStopReasonAndOutputLimit_REQ_BED_003(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	hist := []domain.Message{userMsg(1, "write a lot")}

	cut := fakellm.Text("the first half of", 2)
	cut.FinishReason = "length"
	s.Enqueue(cut)
	_, resp, err := collect(t.Context(), c, Request{Model: "claude-sonnet-4-5", History: hist, MaxOutputTokens: 8192})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != domain.StopLength || resp.Text != "the first half of" {
		t.Fatalf("response %+v; want the text with StopLength", resp)
	}
	if req := s.LastChat(); req.MaxTokens != 8192 || req.MaxCompletionTokens != 0 {
		t.Fatalf("sent max_tokens %d, max_completion_tokens %d; want max_tokens 8192", req.MaxTokens, req.MaxCompletionTokens)
	}

	// A cut tool call is passed on with its incomplete arguments: the core decides.
	calls := fakellm.Calls(fakellm.Call("c1", domain.ToolBash, `{"command":"ec`))
	calls.FinishReason = "length"
	s.Enqueue(calls)
	_, resp, err = collect(t.Context(), c, Request{Model: "gpt-4o", History: hist, MaxOutputTokens: domain.MaxOutputFor("gpt-4o")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != domain.StopLength || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"command":"ec` {
		t.Fatalf("response %+v; want the cut call as sent, with StopLength", resp)
	}
	if req := s.LastChat(); req.MaxCompletionTokens != 16_384 || req.MaxTokens != 0 {
		t.Fatalf("gpt-4o: sent max_tokens %d, max_completion_tokens %d; want max_completion_tokens 16384", req.MaxTokens, req.MaxCompletionTokens)
	}

	s.Enqueue(fakellm.Text("fine", 1))
	if _, resp, err = collect(t.Context(), c, Request{History: hist}); err != nil || resp.StopReason != "" {
		t.Fatalf("a normal reply: %+v, %v; want no stop reason", resp, err)
	}
	if req := s.LastChat(); req.OutputLimit() != 0 {
		t.Fatalf("no limit asked, %d sent", req.OutputLimit())
	}
}

// An empty answer cut at the limit (a reasoning model that thought until the limit) is an
// output-limit error that is not retried, rather than an incomplete response retried in vain.
func TestEmptyAnswerAtTheLimitIsNotRetried(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	empty := fakellm.Reply{FinishReason: "length"}
	s.Enqueue(empty)
	_, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "think hard")}, MaxOutputTokens: 100})
	e := asError(t, err)
	if e.Kind != domain.ErrorOutputLimit || e.Kind.Retryable() {
		t.Fatalf("error %+v; want a non-retryable output_limit", e)
	}
}

func TestStopReasonOf(t *testing.T) {
	for finish, want := range map[string]domain.StopReason{
		"stop": "", "tool_calls": "", "end_turn": "", "tool_use": "", "function_call": "",
		"length": domain.StopLength, "max_tokens": domain.StopLength, "MAX_TOKENS": domain.StopLength,
		"content_filter": domain.StopContentFilter, "SAFETY": domain.StopContentFilter,
		"MALFORMED_FUNCTION_CALL": "malformed_function_call",
	} {
		if got := StopReasonOf(finish); got != want {
			t.Errorf("StopReasonOf(%q) = %q; want %q", finish, got, want)
		}
	}
}
