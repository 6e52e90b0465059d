package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

func TestStreamTextDeltasInOrder(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Enqueue(fakellm.Text("Hello there, streaming world!", 5))
	c := newTestClient(t, s, nil, nil)
	deltas, resp, err := collect(t.Context(), c, Request{System: "be brief", History: []domain.Message{userMsg(1, "hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) != 5 {
		t.Fatalf("got %d deltas %q, want 5", len(deltas), deltas)
	}
	if strings.Join(deltas, "") != "Hello there, streaming world!" || resp.Text != "Hello there, streaming world!" {
		t.Fatalf("deltas %q, text %q", deltas, resp.Text)
	}
	if resp.FinishReason != "stop" || len(resp.ToolCalls) != 0 {
		t.Fatalf("unexpected response %+v", resp)
	}
	req := s.LastChat()
	if !req.Stream || req.StreamOptions == nil || !req.StreamOptions.IncludeUsage {
		t.Fatal("the request did not ask for a stream with usage")
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content.String() != "be brief" ||
		req.Messages[1].Role != "user" || req.Messages[1].Content.String() != "hi" {
		t.Fatalf("unexpected messages %+v", req.Messages)
	}
	if len(req.Tools) != 0 {
		t.Fatal("a tool-less request offered tools")
	}
}

func TestStreamTwoToolCalls(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	r := fakellm.Calls(
		fakellm.Call("call_a", domain.ToolBash, `{"command":"ls -la"}`),
		fakellm.Call("call_b", domain.ToolThink, `{"thoughts":"then read the README"}`),
	)
	r.Text = "Let me look."
	r.Fragments = 4
	s.Enqueue(r)
	c := newTestClient(t, s, nil, nil)
	_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "look")}, Tools: domain.ToolsFor(false)})
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.ToolCall{
		{ID: "call_a", Name: domain.ToolBash, Arguments: `{"command":"ls -la"}`},
		{ID: "call_b", Name: domain.ToolThink, Arguments: `{"thoughts":"then read the README"}`},
	}
	if len(resp.ToolCalls) != 2 || resp.ToolCalls[0] != want[0] || resp.ToolCalls[1] != want[1] {
		t.Fatalf("got %+v, want %+v", resp.ToolCalls, want)
	}
	if resp.Text != "Let me look." || resp.FinishReason != "tool_calls" {
		t.Fatalf("unexpected response %+v", resp)
	}
	// The tools were offered with their schemas.
	req := s.LastChat()
	if len(req.Tools) != len(domain.ToolsFor(false)) || req.Tools[0].Function.Name != domain.ToolBash ||
		!json.Valid(req.Tools[0].Function.Parameters) {
		t.Fatalf("tools not offered correctly: %+v", req.ToolNames())
	}
}

func TestToolCallIDsAreGeneratedUniqueAndDeterministic(t *testing.T) {
	t.Parallel()
	history := []domain.Message{
		userMsg(1, "go"),
		{Seq: 2, Kind: domain.KindAssistant, ToolCalls: []domain.ToolCall{{ID: "call_1", Name: "think", Arguments: "{}"}}},
		{Seq: 3, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "call_1", Name: "think", Outcome: domain.OutcomeSuccess, Content: "ok"}},
	}
	tests := []struct {
		name  string
		calls []fakellm.ToolCall
		want  []string
	}{
		{"ids omitted", []fakellm.ToolCall{fakellm.Call("", "bash", `{}`), fakellm.Call("", "think", `{}`)}, []string{"call_2", "call_3"}},
		{"id repeated", []fakellm.ToolCall{fakellm.Call("x", "bash", `{}`), fakellm.Call("x", "think", `{}`)}, []string{"x", "call_2"}},
		{"history id reused by generation is skipped", []fakellm.ToolCall{fakellm.Call("call_2", "bash", `{}`), fakellm.Call("", "think", `{}`)}, []string{"call_2", "call_3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t)
			c := newTestClient(t, s, nil, nil)
			for range 2 { // the same answer twice gets the same ids
				s.Enqueue(fakellm.Calls(tc.calls...))
				_, resp, err := collect(t.Context(), c, Request{History: history, Tools: domain.ToolsFor(false)})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, call := range resp.ToolCalls {
					got = append(got, call.ID)
				}
				if strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Fatalf("ids %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestMalformedToolArgumentsPassThrough(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Enqueue(fakellm.Calls(fakellm.Call("call_x", domain.ToolBash, `{"command": "ls`)))
	c := newTestClient(t, s, nil, nil)
	_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}, Tools: domain.ToolsFor(false)})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Arguments != `{"command": "ls` {
		t.Fatalf("malformed arguments were not passed through: %+v", resp.ToolCalls)
	}
	if domain.ValidJSONObject(resp.ToolCalls[0].Arguments) {
		t.Fatal("test premise: the arguments should be malformed")
	}
}

func TestUsage_REQ_BED_012(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		reply     fakellm.Reply
		want      domain.Usage
		estimated bool
	}{
		{"reported", fakellm.Reply{Text: "ok", Usage: &fakellm.Usage{PromptTokens: 1200, CompletionTokens: 34}}, domain.Usage{InputTokens: 1200, OutputTokens: 34, Model: "gpt-4o"}, false},
		{"not reported is estimated", fakellm.Reply{Text: "ok", NoUsage: true}, domain.Usage{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t)
			s.Enqueue(tc.reply)
			c := newTestClient(t, s, nil, nil)
			_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, strings.Repeat("word ", 400))}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.UsageEstimated != tc.estimated {
				t.Fatalf("estimated %v, want %v", resp.UsageEstimated, tc.estimated)
			}
			if !tc.estimated && resp.Usage != tc.want {
				t.Fatalf("usage %+v, want %+v", resp.Usage, tc.want)
			}
			if tc.estimated && (resp.Usage.InputTokens < 450 || resp.Usage.InputTokens > 600 || resp.Usage.OutputTokens < 1) {
				t.Fatalf("estimate %+v is not about 2000 chars / 4", resp.Usage)
			}
		})
	}
}

func TestIncompleteResponses_REQ_BED_006(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"missing finish reason", fakellm.Reply{Text: "half an answ", NoFinishReason: true}},
		{"empty reply", fakellm.Reply{}},
		{"tool call without a name", fakellm.Calls(fakellm.Call("c1", "", `{}`))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t)
			s.Enqueue(tc.reply)
			c := newTestClient(t, s, nil, nil)
			_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
			e := asError(t, err)
			if e.Kind != domain.ErrorIncompleteResponse || !e.Retryable() {
				t.Fatalf("got %s (retryable %v): %v", e.Kind, e.Retryable(), e)
			}
			if resp.Text != "" || resp.ToolCalls != nil {
				t.Fatalf("a partial response came back with the error: %+v", resp)
			}
		})
	}
}

// TestErrorClassification_REQ_BED_006 drives every error class through real HTTP.
func TestErrorClassification_REQ_BED_006(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	insufficient := fakellm.Failure(http.StatusTooManyRequests, "You exceeded your current quota")
	insufficient.ErrorCode = "insufficient_quota"
	withDate := fakellm.RateLimited(now.Add(42 * time.Second).Format(http.TimeFormat))
	overloaded := fakellm.Failure(503, "overloaded")
	overloaded.RetryAfter = "3"
	tests := []struct {
		name       string
		reply      fakellm.Reply
		kind       domain.ErrorKind
		retryable  bool
		status     int
		retryAfter time.Duration
	}{
		{"429 seconds", fakellm.RateLimited("7"), domain.ErrorRateLimit, true, 429, 7 * time.Second},
		{"429 http date", withDate, domain.ErrorRateLimit, true, 429, 42 * time.Second},
		{"429 no header", fakellm.Failure(429, "slow down"), domain.ErrorRateLimit, true, 429, 0},
		{"429 quota", insufficient, domain.ErrorInvalidRequest, false, 429, 0},
		{"500", fakellm.Failure(500, "boom"), domain.ErrorServer, true, 500, 0},
		{"503 with retry-after", overloaded, domain.ErrorServer, true, 503, 3 * time.Second},
		{"529 anthropic overloaded", fakellm.Failure(529, "Overloaded"), domain.ErrorServer, true, 529, 0},
		{"401", fakellm.Failure(401, "Incorrect API key provided"), domain.ErrorAuth, false, 401, 0},
		{"403", fakellm.Failure(403, "forbidden"), domain.ErrorAuth, false, 403, 0},
		{"400", fakellm.Failure(400, "bad field"), domain.ErrorInvalidRequest, false, 400, 0},
		{"404 model", fakellm.Failure(404, "The model `nope` does not exist"), domain.ErrorInvalidRequest, false, 404, 0},
		{"413", fakellm.Failure(413, "request too large"), domain.ErrorInvalidRequest, false, 413, 0},
		{"422", fakellm.Failure(422, "unprocessable"), domain.ErrorInvalidRequest, false, 422, 0},
		{"context length 400", fakellm.ContextLength(), domain.ErrorContextLength, false, 400, 0},
		{"anthropic prompt too long", fakellm.Failure(400, "prompt is too long: 210000 tokens > 200000 maximum"), domain.ErrorContextLength, false, 400, 0},
		{"408", fakellm.Failure(408, "timeout"), domain.ErrorTimeout, true, 408, 0},
		{"cut mid-stream", fakellm.Reply{Text: "abcdef", Chunks: 6, Fault: fakellm.FaultCut, FaultAfter: 3}, domain.ErrorNetwork, true, 0, 0},
		{"error event mid-stream", fakellm.Reply{Text: "abc", Chunks: 3, Fault: fakellm.FaultErrorEvent, FaultAfter: 2, ErrorMessage: "overloaded", ErrorType: "server_error"}, domain.ErrorServer, true, 0, 0},
		{"error event rate limit", fakellm.Reply{Fault: fakellm.FaultErrorEvent, FaultAfter: 1, ErrorMessage: "slow down", ErrorCode: "rate_limit_exceeded"}, domain.ErrorRateLimit, true, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t)
			s.Enqueue(tc.reply)
			c := newTestClient(t, s, nil, nil)
			c.now = func() time.Time { return now }
			_, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
			e := asError(t, err)
			if e.Kind != tc.kind || e.Retryable() != tc.retryable || e.Status != tc.status || e.RetryAfter != tc.retryAfter {
				t.Fatalf("got kind %s retryable %v status %d retry-after %v (%v); want %s %v %d %v",
					e.Kind, e.Retryable(), e.Status, e.RetryAfter, e, tc.kind, tc.retryable, tc.status, tc.retryAfter)
			}
			advice := tc.kind.Describe()
			if tc.name == "429 quota" {
				advice = quotaAdvice
			}
			if !strings.HasPrefix(e.Message, advice) {
				t.Fatalf("message does not start with what to do: %q", e.Message)
			}
		})
	}
}

func TestConnectionRefusedIsNetwork(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := New(Config{BaseURL: "http://" + addr + "/v1", Model: "gpt-4o"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
	if e := asError(t, err); e.Kind != domain.ErrorNetwork || !e.Retryable() {
		t.Fatalf("got %s: %v", e.Kind, e)
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	const key = "sk-secret-abcdefghijklmnop"
	s.Enqueue(fakellm.Failure(401, "Incorrect API key provided: "+key+"."))
	c := newTestClient(t, s, nil, func(cfg *Config) { cfg.APIKey = key })
	_, _, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
	if e := asError(t, err); e.Kind != domain.ErrorAuth || strings.Contains(e.Error(), key) {
		t.Fatalf("got %s, message %q", e.Kind, e.Error())
	}
	if got := s.Requests()[0].Header.Get("Authorization"); got != "Bearer "+key {
		t.Fatalf("key not sent as a bearer token: %q", got)
	}
}

// TestCancelMidStream_REQ_BED_005: cancelling aborts the HTTP request at once, returns the
// context's error and no partial answer, and the server sees the client go away.
func TestCancelMidStream_REQ_BED_005(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Enqueue(fakellm.Reply{Text: strings.Repeat("token ", 200), Chunks: 200, ChunkDelay: 5 * time.Millisecond})
	c := newTestClient(t, s, nil, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var cancelledAt time.Time
	deltas := 0
	resp, err := c.Stream(ctx, Request{History: []domain.Message{userMsg(1, "go")}}, func(Delta) {
		deltas++
		if deltas == 3 {
			cancelledAt = time.Now()
			cancel()
		}
	})
	elapsed := time.Since(cancelledAt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if resp.Text != "" {
		t.Fatalf("partial text returned: %q", resp.Text)
	}
	// The target is 50 ms; the bound is ten times that because the machine is shared
	// (BenchmarkCancelLatency reports the real figure).
	if elapsed > 500*time.Millisecond {
		t.Fatalf("Stream returned %v after cancel", elapsed)
	}
	select {
	case <-s.Disconnected():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the client disconnect")
	}
}

func TestCancelBeforeHeaders(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	s.Enqueue(fakellm.Reply{Text: "late", FirstByteDelay: time.Minute})
	c := newTestClient(t, s, nil, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, _, err := collect(ctx, c, Request{History: []domain.Message{userMsg(1, "go")}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline error", err)
	}
	select {
	case <-s.Disconnected():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the client disconnect")
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply fakellm.Reply
	}{
		{"stall after two chunks", fakellm.Reply{Text: "abcdef", Chunks: 3, Fault: fakellm.FaultStall, FaultAfter: 2}},
		{"slow first byte", fakellm.Reply{Text: "late", FirstByteDelay: time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t)
			s.Enqueue(tc.reply)
			c := newTestClient(t, s, nil, func(cfg *Config) { cfg.IdleTimeout = 150 * time.Millisecond })
			start := time.Now()
			_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
			e := asError(t, err)
			if e.Kind != domain.ErrorTimeout || !e.Retryable() {
				t.Fatalf("got %s: %v", e.Kind, e)
			}
			if resp.Text != "" {
				t.Fatalf("partial text returned: %q", resp.Text)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("idle timeout took %v", d)
			}
			select {
			case <-s.Disconnected():
			case <-time.After(5 * time.Second):
				t.Fatal("the server never saw the client disconnect")
			}
		})
	}
}

func TestSlowButSteadyStreamIsNotIdle(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	// Fifteen chunks 30 ms apart take 420 ms in all, over the 300 ms idle timeout, but no
	// single gap comes near it (a tenth, leaving room for a loaded machine).
	s.Enqueue(fakellm.Reply{Text: "0123456789abcde", Chunks: 15, ChunkDelay: 30 * time.Millisecond})
	c := newTestClient(t, s, nil, func(cfg *Config) { cfg.IdleTimeout = 300 * time.Millisecond })
	_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
	if err != nil || resp.Text != "0123456789abcde" {
		t.Fatalf("got %q, %v", resp.Text, err)
	}
}

func TestKeepAliveCommentsAreNotIdle(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	// Fifteen comments 30 ms apart delay the first chunk by 450 ms, past the 300 ms idle
	// timeout, but the connection is never silent for more than a tenth of it.
	s.Enqueue(fakellm.Reply{Text: "thought hard", Heartbeats: 15, ChunkDelay: 30 * time.Millisecond})
	c := newTestClient(t, s, nil, func(cfg *Config) { cfg.IdleTimeout = 300 * time.Millisecond })
	_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "go")}})
	if err != nil || resp.Text != "thought hard" {
		t.Fatalf("got %q, %v", resp.Text, err)
	}
}

func TestListModels(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	models, err := c.ListModels(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 1 || models[0] != domain.DemoModel {
		t.Fatalf("got %v", models)
	}
}

func TestWireConstantsMatchFakeServer(t *testing.T) {
	if SystemNoticePrefix != fakellm.SystemNoticePrefix || ToolImagesPrefix != fakellm.ToolImagesPrefix {
		t.Fatal("llm and fakellm disagree on the synthetic message prefixes")
	}
}

// TestConnectionReused: the body is read to its end after [DONE], so the next request reuses
// the connection instead of paying a new handshake (a TLS one, with a real provider).
func TestConnectionReused(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	reused := 0
	trace := &httptrace.ClientTrace{GotConn: func(ci httptrace.GotConnInfo) {
		if ci.Reused {
			reused++
		}
	}}
	for range 5 {
		s.Enqueue(fakellm.Text("hello", 2))
		ctx := httptrace.WithClientTrace(t.Context(), trace)
		if _, err := c.Stream(ctx, Request{History: []domain.Message{userMsg(1, "x")}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The first request dials; every later one must find the connection in the pool. (Without
	// the drain, reuse depends on whether the last bytes of the body happened to be buffered
	// already: about half the requests dial again.)
	if reused != 4 {
		t.Fatalf("%d of the 4 later requests reused the connection", reused)
	}
}
