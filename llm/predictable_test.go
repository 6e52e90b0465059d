package llm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// TestPredictableModelOffline is the "done when": the demo server and the client, with
// no key and no network, go through a bash tool call and a text reply.
func TestPredictableModelOffline(t *testing.T) {
	t.Parallel()
	s, err := fakellm.StartDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cfg := ResolveConfig(Config{BaseURL: s.URL(), Model: domain.DemoModel}, func(string) string { return "" }, Config{})
	if cfg.APIKey != "" {
		t.Fatal("test premise: no key")
	}
	c, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := domain.ToolsFor(false)
	history := []domain.Message{userMsg(1, "List the files.\nbash: ls -1\necho: All listed.")}

	var deltas strings.Builder
	resp, err := c.Stream(t.Context(), Request{System: "You are a coding agent.", History: history, Tools: tools},
		func(d Delta) { deltas.WriteString(d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != domain.ToolBash {
		t.Fatalf("want one bash call, got %+v", resp)
	}
	var args struct{ Command string }
	if err := json.Unmarshal([]byte(resp.ToolCalls[0].Arguments), &args); err != nil || args.Command != "ls -1" {
		t.Fatalf("bash arguments %q (%v)", resp.ToolCalls[0].Arguments, err)
	}
	if resp.Usage.Total() == 0 || resp.UsageEstimated {
		t.Fatalf("the demo model must report usage: %+v", resp)
	}

	call := resp.ToolCalls[0]
	history = append(history,
		domain.Message{Seq: 2, Kind: domain.KindAssistant, ToolCalls: resp.ToolCalls, Usage: &resp.Usage},
		domain.Message{Seq: 3, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{
			CallID: call.ID, Name: call.Name, Outcome: domain.OutcomeSuccess, Content: "file1.txt\nfile2.txt\n"}})
	deltas.Reset()
	resp, err = c.Stream(t.Context(), Request{System: "You are a coding agent.", History: history, Tools: tools},
		func(d Delta) { deltas.WriteString(d.Text) })
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "All listed." || deltas.String() != resp.Text || len(resp.ToolCalls) != 0 {
		t.Fatalf("second step: got %+v (deltas %q)", resp, deltas.String())
	}

	// With every step done, a tool result is answered "Done." with its first line.
	history[0].Text = "bash: ls -1"
	resp, err = c.Stream(t.Context(), Request{History: history[:3], Tools: tools}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Done. bash: file1.txt" {
		t.Fatalf("got %q", resp.Text)
	}

	for _, r := range s.Requests() {
		if r.Header.Get("Authorization") != "" {
			t.Fatalf("an Authorization header was sent without a key: %q", r.Header.Get("Authorization"))
		}
	}
}

// TestPredictableRetryAfterFail drives "fail: 429" through the client: the first attempt is
// a rate limit with Retry-After 1, the identical retry succeeds.
func TestPredictableRetryAfterFail(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, func(cfg *Config) { cfg.APIKey = ""; cfg.Model = domain.DemoModel })
	req := Request{History: []domain.Message{userMsg(1, "fail: 429\necho: second time lucky")}, Tools: domain.ToolsFor(false)}
	_, err := c.Stream(t.Context(), req, nil)
	e := asError(t, err)
	if e.Kind != domain.ErrorRateLimit || e.RetryAfter.Seconds() != 1 {
		t.Fatalf("first attempt: %s after %v: %v", e.Kind, e.RetryAfter, e)
	}
	resp, err := c.Stream(t.Context(), req, nil)
	if err != nil || resp.Text != "second time lucky" {
		t.Fatalf("retry: %q, %v", resp.Text, err)
	}
}
