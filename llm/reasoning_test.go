package llm

import (
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// toFake sends every request, whatever host its URL names, to the fake server, so that the
// client chooses its behaviour from a real provider's base URL while the test sees the wire.
type toFake struct{ target *url.URL }

func (t toFake) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host = t.target.Scheme, t.target.Host
	r.URL.Path = "/v1/chat/completions"
	r.Host = t.target.Host
	return http.DefaultTransport.RoundTrip(r)
}

// providerClient is a client for the provider at baseURL whose requests reach the fake
// server; an empty model is "thinker".
func providerClient(t *testing.T, s *fakellm.Server, baseURL, model string) *Client {
	t.Helper()
	m := model
	if m == "" {
		m = "thinker"
	}
	target, err := url.Parse(s.URL())
	if err != nil {
		t.Fatal(err)
	}
	c, err := newClient(Config{BaseURL: baseURL, APIKey: "sk-test-0123456789abcdef", Model: m, IdleTimeout: 10 * time.Second},
		nil, toFake{target: target})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sentBack is the reasoning one assistant message of a request carried, in every field.
type sentBack struct {
	content, plain *string
	details        []fakellm.ReasoningEntry
}

func ptr(s string) *string { return &s }

// provider is one provider's thinking, as its recorded traffic shows it: the fields its
// stream uses, and what a mature client sent back on the request after a tool call (the
// recordings are charmbracelet/fantasy's provider tests; the data here is our own).
type provider struct {
	name, baseURL string
	// model is the model id, "thinker" when empty.
	model    string
	thinking fakellm.Thinking
	// completion is the reply's completion_tokens.
	completion int
	// wantText is the readable reasoning; wantOutput and wantReasoning the usage.
	wantText                  string
	wantOutput, wantReasoning int
	// reject makes the follow-up fail, as DeepSeek does, if reasoning_content is sent.
	reject bool
	want   sentBack
}

const florence = "The user wants the weather in Florence. I call the weather tool with the city."

func thinkingProviders() []provider {
	return []provider{
		{name: "kimi on Avian", baseURL: "https://api.avian.io/v1",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 6, Content: true, Details: true, Format: "unknown", Tokens: 20},
			completion: 47, wantText: florence, wantOutput: 47, wantReasoning: 20,
			want: sentBack{content: ptr(florence)}},
		{name: "GLM on Z.ai", baseURL: "https://api.z.ai/api/coding/paas/v4",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 9, Content: true, Tokens: 63},
			completion: 87, wantText: florence, wantOutput: 87, wantReasoning: 63,
			want: sentBack{content: ptr(florence)}},
		{name: "grok-3-mini on xAI", baseURL: "https://api.x.ai/v1",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 12, Content: true, Tokens: 313, TokensBeside: true},
			completion: 27, wantText: florence, wantOutput: 27 + 313, wantReasoning: 313,
			want: sentBack{content: ptr(florence)}},
		{name: "gpt-oss on llama.cpp", baseURL: "http://localhost:8080/v1",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 4, Content: true},
			completion: 42, wantText: florence, wantOutput: 42,
			want: sentBack{content: ptr(florence)}},
		{name: "Claude on OpenRouter (signed)", baseURL: "https://openrouter.ai/api/v1",
			thinking: fakellm.Thinking{Text: florence, Chunks: 5, Plain: true, Details: true, Format: "anthropic-claude-v1",
				Signature: "EqoDCkYICxgCKkBZgA2aLmZQ+/sig==", Tokens: 99},
			completion: 143, wantText: florence, wantOutput: 143, wantReasoning: 99,
			want: sentBack{details: []fakellm.ReasoningEntry{{Type: "reasoning.text", Text: florence,
				Signature: "EqoDCkYICxgCKkBZgA2aLmZQ+/sig==", Format: "anthropic-claude-v1"}}}},
		{name: "Gemini on OpenRouter (encrypted only)", baseURL: "https://openrouter.ai/api/v1",
			thinking: fakellm.Thinking{Format: "google-gemini-v1", Encrypted: "EjQKMgEMOdbHA6W7+LCdrmzm==",
				EncryptedID: "tool_weather_1"},
			completion: 16, wantOutput: 16,
			want: sentBack{details: []fakellm.ReasoningEntry{{Type: "reasoning.encrypted", Data: "EjQKMgEMOdbHA6W7+LCdrmzm==",
				ID: "tool_weather_1", Format: "google-gemini-v1"}}}},
		{name: "gpt-5 on Vercel (summary and encrypted)", baseURL: "https://ai-gateway.vercel.sh/v1",
			thinking: fakellm.Thinking{Text: "**Getting weather info**\n\nI call the tool.", Chunks: 7, Plain: true, Details: true,
				Summary: true, Format: "openai-responses-v1", Encrypted: "gAAAAABpsx4RH_4S==", EncryptedID: "rs_03be", Tokens: 64},
			completion: 112, wantText: "**Getting weather info**\n\nI call the tool.", wantOutput: 112, wantReasoning: 64,
			want: sentBack{details: []fakellm.ReasoningEntry{
				{Type: "reasoning.summary", Summary: "**Getting weather info**\n\nI call the tool.", Format: "openai-responses-v1"},
				{Type: "reasoning.encrypted", Data: "gAAAAABpsx4RH_4S==", ID: "rs_03be", Format: "openai-responses-v1"}}}},
		{name: "DeepSeek (rejects reasoning in input)", baseURL: "https://api.deepseek.com/v1",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 5, Content: true, Tokens: 30},
			completion: 60, wantText: florence, wantOutput: 60, wantReasoning: 30, reject: true},
		{name: "DeepSeek behind an unknown proxy", baseURL: "https://llm.example.com/v1", model: "deepseek-reasoner",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 5, Content: true},
			completion: 60, wantText: florence, wantOutput: 60, reject: true},
		{name: "gpt-oss on Groq (rejects reasoning_content in input)", baseURL: "https://api.groq.com/openai/v1", model: "openai/gpt-oss-120b",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 5, Plain: true, Tokens: 30},
			completion: 60, wantText: florence, wantOutput: 60, wantReasoning: 30, reject: true},
		{name: "qwen3 on Cerebras (rejects reasoning_content in input)", baseURL: "https://api.cerebras.ai/v1", model: "qwen-3-32b",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 5, Plain: true},
			completion: 60, wantText: florence, wantOutput: 60, reject: true},
		{name: "a remote host the table does not know", baseURL: "https://llm.example.com/v1", model: "glm-4.6",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 5, Content: true},
			completion: 60, wantText: florence, wantOutput: 60, reject: true},
		{name: "qwen3 on vLLM in the LAN", baseURL: "http://192.168.1.20:8000/v1", model: "Qwen/Qwen3-8B",
			thinking:   fakellm.Thinking{Text: florence, Chunks: 4, Content: true},
			completion: 42, wantText: florence, wantOutput: 42,
			want: sentBack{content: ptr(florence)}},
		{name: "o4-mini on OpenAI (reasoning counted, never streamed)", baseURL: "https://api.openai.com/v1",
			thinking:   fakellm.Thinking{Tokens: 64},
			completion: 112, wantOutput: 112, wantReasoning: 64},
	}
}

// Each provider's reasoning form is read into its own delta kind and kept apart from the
// text; its tokens count in the usage; and the request after the tool call carries exactly
// what that provider expects back, and nothing for a provider that rejects it.
func TestReasoningPerProvider(t *testing.T) {
	for _, p := range thinkingProviders() {
		t.Run(p.name, func(t *testing.T) {
			s := startServer(t)
			c := providerClient(t, s, p.baseURL, p.model)
			th := p.thinking
			s.Enqueue(fakellm.Reply{Thinking: &th, Text: "Let me check.", Chunks: 2,
				ToolCalls: []fakellm.ToolCall{fakellm.Call("call_1", "weather", `{"location":"Florence"}`)}, Fragments: 2,
				Usage: &fakellm.Usage{PromptTokens: 100, CompletionTokens: p.completion}})
			history := []domain.Message{userMsg(1, "What's the weather in Florence?")}
			var reasoning, text strings.Builder
			var kinds []DeltaKind
			resp, err := c.Stream(t.Context(), Request{History: history}, func(d Delta) {
				if len(kinds) == 0 || kinds[len(kinds)-1] != d.Kind {
					kinds = append(kinds, d.Kind)
				}
				if d.Kind == DeltaReasoning {
					reasoning.WriteString(d.Text)
				} else {
					text.WriteString(d.Text)
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if reasoning.String() != p.wantText || text.String() != "Let me check." || resp.Text != "Let me check." {
				t.Fatalf("streamed reasoning %q and text %q (response text %q), want %q and the answer apart",
					reasoning.String(), text.String(), resp.Text, p.wantText)
			}
			if p.wantText != "" && !slices.Equal(kinds, []DeltaKind{DeltaReasoning, DeltaText}) {
				t.Fatalf("delta kinds in order %v, want the reasoning, then the text", kinds)
			}
			gotText := ""
			if resp.Reasoning != nil {
				gotText = resp.Reasoning.Text
			}
			if gotText != p.wantText {
				t.Fatalf("response reasoning %+v, want text %q", resp.Reasoning, p.wantText)
			}
			if resp.Usage.OutputTokens != p.wantOutput || resp.Usage.ReasoningTokens != p.wantReasoning || resp.Usage.InputTokens != 100 {
				t.Fatalf("usage %+v, want output %d with %d reasoning", resp.Usage, p.wantOutput, p.wantReasoning)
			}

			history = append(history,
				domain.Message{Seq: 2, Kind: domain.KindAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning},
				domain.Message{Seq: 3, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{
					CallID: "call_1", Name: "weather", Outcome: domain.OutcomeSuccess, Content: "40 C"}})
			s.Enqueue(fakellm.Reply{Text: "It is 40 °C in Florence.", RejectReasoning: p.reject})
			resp, err = c.Stream(t.Context(), Request{History: history}, nil)
			if err != nil {
				t.Fatalf("follow-up: %v", err)
			}
			if resp.Reasoning != nil {
				t.Fatalf("a reply without reasoning has reasoning %+v", resp.Reasoning)
			}
			got := s.LastChat().Messages[1]
			if got.Role != "assistant" {
				t.Fatalf("message 1 is %s, want the assistant's", got.Role)
			}
			checkSentBack(t, got, p.want)
		})
	}
}

func checkSentBack(t *testing.T, got fakellm.Message, want sentBack) {
	t.Helper()
	str := func(p *string) string {
		if p == nil {
			return "(absent)"
		}
		return *p
	}
	if str(got.ReasoningContent) != str(want.content) || str(got.Reasoning) != str(want.plain) {
		t.Fatalf("sent back reasoning_content %q and reasoning %q, want %q and %q",
			str(got.ReasoningContent), str(got.Reasoning), str(want.content), str(want.plain))
	}
	if !slices.Equal(got.ReasoningDetails, want.details) {
		t.Fatalf("sent back reasoning_details %+v, want %+v", got.ReasoningDetails, want.details)
	}
}

// The fake DeepSeek does reject reasoning_content, so the DeepSeek case above would fail if
// the client sent it: sending it to a provider that wants it back shows the refusal.
func TestRejectingProviderRefusesReasoningContent(t *testing.T) {
	s := startServer(t)
	c := providerClient(t, s, "https://api.x.ai/v1", "")
	s.Enqueue(fakellm.Reply{Text: "ok", RejectReasoning: true})
	history := []domain.Message{userMsg(1, "hi"),
		{Seq: 2, Kind: domain.KindAssistant, Text: "hello", Reasoning: &domain.Reasoning{Text: "greet back"}},
		userMsg(3, "again")}
	_, _, err := collect(t.Context(), c, Request{History: history})
	if e := asError(t, err); e.Kind != domain.ErrorInvalidRequest || !strings.Contains(e.Message, "reasoning_content") {
		t.Fatalf("got %v, want the provider's 400 about reasoning_content", err)
	}
}

// The table and the providers above cannot drift apart: every rule's hosts (and their
// subdomains) resolve to it, and every rule is exercised by a provider of the test.
func TestReasoningRulesHaveEvidence(t *testing.T) {
	tested := map[string]bool{}
	for _, p := range thinkingProviders() {
		u, _ := url.Parse(p.baseURL)
		tested[u.Hostname()] = true
	}
	for _, r := range reasoningRules {
		if r.why == "" {
			t.Errorf("rule for %v has no evidence", r.hosts)
		}
		covered := false
		for _, h := range r.hosts {
			for _, base := range []string{"https://" + h + "/v1", "https://eu." + h + "/api/v1"} {
				if got := reasoningReturnFor(base, "deepseek/deepseek-r1"); got != r.send {
					t.Errorf("%s sends back %s, want %s", base, got, r.send)
				}
			}
			covered = covered || tested[h]
		}
		if !covered {
			t.Errorf("no provider of TestReasoningPerProvider uses a host of the rule %v", r.hosts)
		}
	}
	local := []string{"http://localhost:8080/v1", "http://127.0.0.1:11434/v1", "http://[::1]:8000/v1",
		"http://192.168.1.20:8000/v1", "http://10.0.0.7/v1", "http://gpu-box:11434/v1", "http://studio.local:1234/v1"}
	remote := []string{"not a url\x7f", "https://notopenrouter.ai/v1", "https://llm.example.com/v1", "http://8.8.8.8/v1", ""}
	for _, base := range local {
		if got := reasoningReturnFor(base, "gpt-oss-20b"); got != localReturn {
			t.Errorf("%q (local) sends back %s, want %s", base, got, localReturn)
		}
	}
	for _, base := range remote {
		if got := reasoningReturnFor(base, "gpt-oss-20b"); got != remoteReturn {
			t.Errorf("%q (remote, not in the table) sends back %s, want %s", base, got, remoteReturn)
		}
	}
	for _, base := range append(local, remote...) {
		// Behind an unknown host, a model whose provider rejects reasoning gets none.
		if got := reasoningReturnFor(base, "DeepSeek-Reasoner"); got != returnNothing {
			t.Errorf("%q sends back %s to a DeepSeek model, want nothing", base, got)
		}
	}
}

// Reasoning pieces in reasoning_details are merged by type and index: text and summaries
// joined, a signature or blob that arrives later added to its entry, empty values never
// overwriting real ones; readable text is taken once even when two fields carry it.
func TestReasoningAssemblerMerges(t *testing.T) {
	var a reasoningAssembler
	entry := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	plain := "Think"
	got := a.add("", &plain, []map[string]any{entry("type", "reasoning.text", "text", "Think", "signature", "", "index", 0.0)})
	got += a.add("", nil, []map[string]any{entry("type", "reasoning.text", "text", "ing.", "index", 0.0)})
	got += a.add("", nil, []map[string]any{entry("type", "reasoning.text", "text", "", "signature", "sig", "index", 0.0)})
	got += a.add("", nil, []map[string]any{entry("type", "reasoning.text", "text", " Second block.", "index", 1.0)})
	if got != "Thinking. Second block." {
		t.Fatalf("readable text %q", got)
	}
	r := a.result()
	var entries []map[string]any
	if err := json.Unmarshal(r.Details, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0]["text"] != "Thinking." || entries[0]["signature"] != "sig" || entries[1]["text"] != " Second block." {
		t.Fatalf("merged entries %v", entries)
	}
	if r.Text != "Thinking. Second block." {
		t.Fatalf("reasoning text %q", r.Text)
	}
	var none reasoningAssembler
	none.add("", nil, nil)
	if none.result() != nil {
		t.Fatal("an answer without reasoning has reasoning")
	}
}

// A provider that sends no usage gets an estimate that counts the reasoning as output.
func TestEstimatedUsageCountsReasoning(t *testing.T) {
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	long := strings.Repeat("thinking hard ", 100)
	s.Enqueue(fakellm.Reply{Thinking: &fakellm.Thinking{Text: long, Chunks: 10, Content: true}, Text: "ok", NoUsage: true})
	_, resp, err := collect(t.Context(), c, Request{History: []domain.Message{userMsg(1, "hi")}})
	if err != nil {
		t.Fatal(err)
	}
	want := domain.EstimateTokens(long, 0)
	if !resp.UsageEstimated || resp.Usage.ReasoningTokens != want || resp.Usage.OutputTokens < want {
		t.Fatalf("estimated usage %+v, want %d reasoning tokens inside the output", resp.Usage, want)
	}
}

// The continuation request (tool-less, with the prompt as a last user message) carries the
// history's reasoning like any other request, and a reasoning-only reply to it is refused as
// empty rather than taken for a summary.
func TestContinuationRequestWithReasoning_REQ_BED_020(t *testing.T) {
	s := startServer(t)
	c := providerClient(t, s, "https://openrouter.ai/api/v1", "")
	details := json.RawMessage(`[{"format":"anthropic-claude-v1","index":0,"signature":"sig","text":"Plan.","type":"reasoning.text"}]`)
	history := []domain.Message{userMsg(1, "fix it"),
		{Seq: 2, Kind: domain.KindAssistant, Text: "Fixed.", Reasoning: &domain.Reasoning{Text: "Plan.", Details: details}},
		{Seq: 3, Kind: domain.KindAssistant, Text: "Also this.", Reasoning: &domain.Reasoning{Text: "Only text."}}}
	s.Enqueue(fakellm.Reply{Thinking: &fakellm.Thinking{Text: "What to keep?", Plain: true}, Text: "Summary: fixed."})
	_, resp, err := collect(t.Context(), c, Request{History: history, ExtraUserText: domain.ContinuationPrompt(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Summary: fixed." || resp.Reasoning == nil || resp.Reasoning.Text != "What to keep?" {
		t.Fatalf("response %+v", resp)
	}
	msgs := s.LastChat().Messages
	if len(msgs) != 4 || msgs[3].Role != "user" || msgs[3].Content.String() != domain.ContinuationPrompt(nil) {
		t.Fatalf("request messages %+v", msgs)
	}
	checkSentBack(t, msgs[1], sentBack{details: []fakellm.ReasoningEntry{{Type: "reasoning.text", Text: "Plan.", Signature: "sig", Format: "anthropic-claude-v1"}}})
	checkSentBack(t, msgs[2], sentBack{plain: ptr("Only text.")})

	s.Enqueue(fakellm.Reply{Thinking: &fakellm.Thinking{Text: "Hmm.", Content: true}})
	_, _, err = collect(t.Context(), c, Request{History: history, ExtraUserText: domain.ContinuationPrompt(nil)})
	if e := asError(t, err); e.Kind != domain.ErrorIncompleteResponse {
		t.Fatalf("a reply of reasoning only: %v, want an incomplete response", err)
	}
}

// TestInlineThinkSplitsAtEveryBoundary: a <think> block that opens the content becomes
// reasoning however the stream cuts it (in two or three pieces, tags included), and content
// without such a block is left alone.
func TestInlineThinkSplitsAtEveryBoundary(t *testing.T) {
	cases := []struct{ in, reasoning, text string }{
		{"<think>Check the file.\nThen answer.</think>\n\nIt is 42.", "Check the file.\nThen answer.", "It is 42."},
		{"\n<think>x</think>answer", "x", "answer"},
		{"<think></think>only the answer", "", "only the answer"},
		{"<think>cut short by the output limit", "cut short by the output limit", ""},
		{"The tag <think> is HTML-like.", "", "The tag <think> is HTML-like."},
		{"<thin air>", "", "<thin air>"},
		{"<", "", "<"},
		{"  plain answer", "", "  plain answer"},
		{"<think>a < b and </thin> is not the end</think>done", "a < b and </thin> is not the end", "done"},
	}
	for _, c := range cases {
		run := func(pieces []string) {
			t.Helper()
			var th inlineThink
			var reasoning, text strings.Builder
			for _, p := range pieces {
				r, x := th.split(p)
				reasoning.WriteString(r)
				text.WriteString(x)
			}
			r, x := th.flush()
			reasoning.WriteString(r)
			text.WriteString(x)
			if reasoning.String() != c.reasoning || text.String() != c.text {
				t.Fatalf("pieces %q: reasoning %q, text %q; want %q and %q", pieces, reasoning.String(), text.String(), c.reasoning, c.text)
			}
		}
		run([]string{c.in})
		for i := 0; i <= len(c.in); i++ {
			run([]string{c.in[:i], c.in[i:]})
			for j := i; j <= len(c.in); j++ {
				run([]string{c.in[:i], c.in[i:j], c.in[j:]})
			}
		}
	}
}

// TestInlineThinkThroughTheStream: a server that leaves the reasoning in the content (as
// llama.cpp without a reasoning parser does) streams it as reasoning, stores it as the
// answer's reasoning, and the answer's text without it.
func TestInlineThinkThroughTheStream(t *testing.T) {
	s := startServer(t)
	c := providerClient(t, s, "http://127.0.0.1:8080/v1", "qwen3")
	s.Enqueue(fakellm.Reply{Text: "<think>\nThe user greets me.\n</think>\n\nHello!", Chunks: 9})
	var reasoning, text strings.Builder
	resp, err := c.Stream(t.Context(), Request{History: []domain.Message{userMsg(1, "hi")}}, func(d Delta) {
		if d.Kind == DeltaReasoning {
			reasoning.WriteString(d.Text)
		} else {
			text.WriteString(d.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "Hello!" || text.String() != "Hello!" {
		t.Fatalf("answer %q, streamed %q; want %q", resp.Text, text.String(), "Hello!")
	}
	if resp.Reasoning == nil || resp.Reasoning.Text != "\nThe user greets me.\n" || reasoning.String() != resp.Reasoning.Text {
		t.Fatalf("reasoning %+v, streamed %q", resp.Reasoning, reasoning.String())
	}
}
