package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// replay answers the n-th request with the n-th recorded body of a conversation in
// testdata/usage, and keeps each request body it was sent.
type replay struct {
	t     *testing.T
	name  string
	mu    sync.Mutex
	sent  [][]byte
	calls int
}

func (r *replay) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	n := r.calls
	r.calls++
	r.sent = append(r.sent, body)
	r.mu.Unlock()
	data, err := os.ReadFile(filepath.Join("testdata", "usage", r.name+"."+string(rune('0'+n))+".sse"))
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(data)), Request: req}, nil
}

// recordedTurn sends the two requests of a recorded conversation (the question, then the
// weather tool's result) and returns the two responses and the request bodies.
func recordedTurn(t *testing.T, name, baseURL, model string) ([2]Response, *replay) {
	t.Helper()
	rt := &replay{t: t, name: name}
	c, err := newClient(Config{BaseURL: baseURL, APIKey: "sk-test-0123456789abcdef", Model: model, IdleTimeout: 10 * time.Second}, nil, rt)
	if err != nil {
		t.Fatal(err)
	}
	history := []domain.Message{userMsg(0, "What's the weather in Florence,Italy?")}
	req := Request{System: "You are a helpful assistant", History: history,
		Tools: []domain.ToolSpec{{Name: "weather", Description: "Get weather information for a location",
			Parameters: []byte(`{"type":"object","properties":{"location":{"type":"string","description":"the city"}},"required":["location"]}`)}}}
	var out [2]Response
	if out[0], err = c.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("%s: first request: %v", name, err)
	}
	if len(out[0].ToolCalls) == 0 {
		t.Fatalf("%s: the recorded first answer has no tool call", name)
	}
	call := out[0].ToolCalls[0]
	req.History = append(req.History,
		domain.Message{Seq: 1, Kind: domain.KindAssistant, ToolCalls: out[0].ToolCalls, Usage: &out[0].Usage},
		domain.Message{Seq: 2, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: call.ID, Name: call.Name, Outcome: domain.OutcomeSuccess, Content: "40 C"}})
	if out[1], err = c.Stream(context.Background(), req, nil); err != nil {
		t.Fatalf("%s: second request: %v", name, err)
	}
	return out, rt
}

// Issue 27: the cache and cost figures of real providers' usage objects are read, and where a
// provider reports its cost, the price table gives the same figure for the same tokens — the
// check that keeps the table's rows true.
func TestRecordedUsageCacheAndCost(t *testing.T) {
	tests := []struct {
		name, baseURL, model string
		want                 [2]domain.Usage
	}{
		{"openrouter-claude-haiku-4.5", "https://openrouter.ai/api/v1", "anthropic/claude-haiku-4.5", [2]domain.Usage{
			{InputTokens: 577, OutputTokens: 54, CostNanoUSD: 847_000, CostFrom: domain.CostFromProvider},
			{InputTokens: 646, OutputTokens: 56, CostNanoUSD: 926_000, CostFrom: domain.CostFromProvider}}},
		{"xai-grok-4-fast", "https://api.x.ai/v1", "grok-4-fast", [2]domain.Usage{
			{InputTokens: 361, OutputTokens: 261, ReasoningTokens: 235, CachedTokens: 360, CostNanoUSD: 148_700, CostFrom: domain.CostFromProvider},
			{InputTokens: 635, OutputTokens: 85, ReasoningTokens: 43, CachedTokens: 623, CostNanoUSD: 76_050, CostFrom: domain.CostFromProvider}}},
		{"vercel-claude-sonnet-4", "https://ai-gateway.vercel.sh/v1", "anthropic/claude-sonnet-4", [2]domain.Usage{
			{InputTokens: 394, OutputTokens: 68, CostNanoUSD: 2_202_000, CostFrom: domain.CostFromProvider},
			{InputTokens: 477, OutputTokens: 43, CostNanoUSD: 2_076_000, CostFrom: domain.CostFromProvider}}},
		{"openai-gpt-4o", "https://api.openai.com/v1", "gpt-4o", [2]domain.Usage{
			{InputTokens: 61, OutputTokens: 16}, {InputTokens: 86, OutputTokens: 13}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resps, _ := recordedTurn(t, tt.name, tt.baseURL, tt.model)
			for i, resp := range resps {
				want := tt.want[i]
				want.Model = tt.model
				if resp.Usage != want || resp.UsageEstimated {
					t.Fatalf("response %d: usage %+v (estimated %v); want %+v", i, resp.Usage, resp.UsageEstimated, want)
				}
				price, ok := domain.PriceFor(tt.model, nil)
				if !ok {
					t.Fatalf("the price table has no row for %s", tt.model)
				}
				priced := Priced(resp, nil)
				if want.CostFrom == domain.CostFromProvider {
					if table := domain.CostOf(resp.Usage, price); table != want.CostNanoUSD {
						t.Errorf("response %d: the table prices %s's tokens at %d nano-USD; the provider charged %d",
							i, tt.model, table, want.CostNanoUSD)
					}
					if priced != resp.Usage {
						t.Errorf("response %d: Priced replaced the provider's cost: %+v", i, priced)
					}
				} else if priced.CostFrom != domain.CostFromPrices || priced.CostNanoUSD != domain.CostOf(resp.Usage, price) {
					t.Errorf("response %d: Priced = %+v; want the table's price", i, priced)
				}
			}
		})
	}
}

// An estimated usage, or a model without a price, gets no cost: never a guess.
func TestPricedNeverGuesses(t *testing.T) {
	u := domain.Usage{InputTokens: 1000, OutputTokens: 10, Model: "gpt-4o"}
	if got := Priced(Response{Usage: u, UsageEstimated: true}, nil); got.CostFrom != "" {
		t.Fatalf("estimated usage priced: %+v", got)
	}
	u.Model = "llama3.1:8b"
	if got := Priced(Response{Usage: u}, nil); got.CostFrom != "" {
		t.Fatalf("unknown model priced: %+v", got)
	}
	if got := Priced(Response{Usage: u}, map[string]domain.Price{"llama3.1:8b": {}}); got.CostFrom != domain.CostFromPrices || got.CostNanoUSD != 0 {
		t.Fatalf("a model the person priced at zero: %+v", got)
	}
}

// The cache-write figures of OpenRouter and of Anthropic-shaped gateways, DeepSeek's cache
// hits, and OpenRouter's cost when the person's own key paid the provider.
func TestReadUsageExtraShapes(t *testing.T) {
	tests := []struct {
		raw  string
		want usageFigures
	}{
		{`{"usage":{"prompt_tokens":3000,"cost":0.01,"prompt_tokens_details":{"cached_tokens":1000,"cache_write_tokens":1500}}}`,
			usageFigures{cached: 1000, cacheWrite: 1500, costNano: 10_000_000, hasCost: true}},
		{`{"usage":{"prompt_tokens":3000,"cache_creation_input_tokens":2048}}`, usageFigures{cacheWrite: 2048}},
		{`{"usage":{"prompt_tokens":3000,"prompt_cache_hit_tokens":2944,"prompt_cache_miss_tokens":56}}`, usageFigures{cached: 2944}},
		{`{"usage":{"cost":0.0001,"is_byok":true,"cost_details":{"upstream_inference_cost":0.002}}}`,
			usageFigures{costNano: 2_100_000, hasCost: true}},
		{`{"usage":{"cost":0}}`, usageFigures{hasCost: true}},
	}
	for _, tt := range tests {
		got, ok := readUsageExtra([]byte(tt.raw))
		if !ok || got != tt.want {
			t.Errorf("readUsageExtra(%s) = %+v %v; want %+v", tt.raw, got, ok, tt.want)
		}
	}
	if _, ok := readUsageExtra([]byte(`{"choices":[]}`)); ok {
		t.Error("a chunk without usage has figures")
	}
	// Cache counts never exceed the input they are part of.
	u := usageFigures{cached: 900, cacheWrite: 900}.apply(domain.Usage{InputTokens: 1000})
	if u.CachedTokens != 900 || u.CacheWriteTokens != 100 {
		t.Fatalf("apply = %+v; want the counts bounded by the input", u)
	}
}

// wireMessages decodes the messages of a sent request body, each kept as its raw bytes.
func wireMessages(t *testing.T, body []byte) ([]json.RawMessage, map[string]json.RawMessage) {
	t.Helper()
	var top map[string]json.RawMessage
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(top["messages"], &msgs); err != nil {
		t.Fatal(err)
	}
	return msgs, top
}

// unmarked is a message with its breakpoint taken out and a one-part text content written
// as the plain string it stands for: what the provider's cache compares.
func unmarked(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if parts, ok := m["content"].([]any); ok && len(parts) == 1 {
		if p := parts[0].(map[string]any); p["type"] == "text" {
			m["content"] = p["text"]
		}
	}
	out, _ := json.Marshal(m)
	return string(out)
}

// Issue 27: Anthropic and Gemini models through OpenRouter get cache breakpoints on the
// system message (which covers the tools) and on the last message, and nowhere else; the
// requests of a turn stay the same up to the moved breakpoint; every other route's request
// carries no breakpoint and each request repeats the previous one byte for byte.
func TestCacheBreakpointsOnTheWire(t *testing.T) {
	marker := []byte(`"cache_control":{"type":"ephemeral"}`)
	t.Run("anthropic on openrouter", func(t *testing.T) {
		_, rt := recordedTurn(t, "openrouter-claude-haiku-4.5", "https://openrouter.ai/api/v1", "anthropic/claude-haiku-4.5")
		first, top := wireMessages(t, rt.sent[0])
		second, _ := wireMessages(t, rt.sent[1])
		if string(top["usage"]) != `{"include":true}` {
			t.Errorf("usage accounting not asked for: %s", top["usage"])
		}
		for i, body := range rt.sent {
			if n := bytes.Count(body, marker); n != 2 {
				t.Errorf("request %d has %d breakpoints; want 2 (system, last message)", i, n)
			}
		}
		for _, m := range []json.RawMessage{first[0], first[len(first)-1], second[0], second[len(second)-1]} {
			if !bytes.Contains(m, marker) {
				t.Errorf("no breakpoint on %s", m)
			}
		}
		if !bytes.Equal(first[0], second[0]) {
			t.Errorf("the system message changed between requests:\n%s\n%s", first[0], second[0])
		}
		if len(second) != 4 || unmarked(t, first[1]) != unmarked(t, second[1]) {
			t.Errorf("the second request does not repeat the first up to its breakpoint:\n%s\n%s", first[1], second[1])
		}
		if bytes.Contains(second[1], marker) || bytes.Contains(second[2], marker) {
			t.Errorf("a breakpoint left behind: %s %s", second[1], second[2])
		}
	})
	for _, route := range []struct{ name, baseURL, model string }{
		{"openrouter-claude-haiku-4.5", "https://openrouter.ai/api/v1", "openai/gpt-4o"},
		{"xai-grok-4-fast", "https://api.x.ai/v1", "grok-4-fast"},
		{"vercel-claude-sonnet-4", "https://ai-gateway.vercel.sh/v1", "anthropic/claude-sonnet-4"},
		{"openai-gpt-4o", "https://api.openai.com/v1", "gpt-4o"},
	} {
		t.Run(route.model+" on "+route.baseURL, func(t *testing.T) {
			_, rt := recordedTurn(t, route.name, route.baseURL, route.model)
			for i, body := range rt.sent {
				if bytes.Contains(body, []byte("cache_control")) {
					t.Errorf("request %d carries a breakpoint: %s", i, body)
				}
			}
			first, top := wireMessages(t, rt.sent[0])
			second, _ := wireMessages(t, rt.sent[1])
			if _, asked := top["usage"]; asked != strings.Contains(route.baseURL, "openrouter.ai") {
				t.Errorf("usage field %s on %s", top["usage"], route.baseURL)
			}
			for i := range first {
				if !bytes.Equal(first[i], second[i]) {
					t.Errorf("message %d differs between requests:\n%s\n%s", i, first[i], second[i])
				}
			}
		})
	}
}
