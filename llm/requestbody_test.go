package llm

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	openai "github.com/sashabaranov/go-openai"
)

// awkward are strings json.Marshal treats specially: HTML characters, the JavaScript line
// separators, control characters, invalid UTF-8, quotes and backslashes, and the markers
// themselves.
var awkward = []string{"", "plain", "<b>&amp;</b>", "a\u2028b\u2029c", "\x00\x01\x1f\t\n", "bad \xff\xfe utf-8",
	`"quoted" \back\slash`, "ünïcödé 😀", messagesMarker, toolsMarker, `[{"role":"\u0000phoenix-messages"}]`}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(awkward[r.IntN(len(awkward))])
	}
	return b.String()
}

// randomRequest builds a chat request of the shapes the client sends: every kind of
// message, tools from the catalogue and made up, and the optional fields.
func randomRequest(r *rand.Rand) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: randomText(r) + "gpt-4o", Stream: true}
	if r.IntN(2) == 0 {
		req.StreamOptions = &openai.StreamOptions{IncludeUsage: true}
	}
	if r.IntN(3) == 0 {
		//lint:ignore SA1019 the client sends max_tokens to the compatible servers (client.go)
		req.MaxTokens = r.IntN(9000)
	}
	if r.IntN(3) == 0 {
		req.MaxCompletionTokens = r.IntN(9000)
	}
	if r.IntN(3) == 0 {
		req.ReasoningEffort = "high"
	}
	switch r.IntN(4) {
	case 0: // nil: null
	case 1:
		req.Messages = []openai.ChatCompletionMessage{}
	default:
		for range 1 + r.IntN(12) {
			m := openai.ChatCompletionMessage{Role: []string{"system", "user", "assistant", "tool"}[r.IntN(4)]}
			switch r.IntN(5) {
			case 0:
				m.Content = randomText(r)
			case 1:
				m.MultiContent = []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: randomText(r)}}
				if r.IntN(2) == 0 {
					m.MultiContent = append(m.MultiContent, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeImageURL,
						ImageURL: &openai.ChatMessageImageURL{URL: "data:image/png;base64,iVBOR" + randomText(r), Detail: openai.ImageURLDetailAuto}})
				}
			case 2:
				idx := r.IntN(3)
				m.ToolCalls = []openai.ToolCall{{ID: "call_" + randomText(r), Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"` + randomText(r) + `"}`}}}
				if r.IntN(2) == 0 {
					m.ToolCalls[0].Index = &idx
				}
				m.ReasoningContent = randomText(r)
			case 3:
				m.ToolCallID, m.Content, m.Name = "call_1", randomText(r), randomText(r)
			case 4:
				m.Refusal = randomText(r)
				m.FunctionCall = &openai.FunctionCall{Name: randomText(r), Arguments: randomText(r)}
			}
			req.Messages = append(req.Messages, m)
		}
	}
	switch r.IntN(4) {
	case 0: // none
	case 1:
		req.Tools = []openai.Tool{}
	case 2:
		for _, t := range domain.ToolsFor(r.IntN(2) == 0) {
			req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
				Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
		}
	case 3:
		req.Tools = []openai.Tool{
			{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: randomText(r), Description: randomText(r),
				Strict: r.IntN(2) == 0, Parameters: json.RawMessage(`{"type":"object", "properties":{"a":{"type":"string","description":"<&>"}}}`)}},
			{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{Name: "schema as a map",
				Parameters: map[string]any{"type": "object", "x": randomText(r)}}},
		}
		if r.IntN(2) == 0 {
			req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeWebSearch, Parameters: map[string]any{"search_context_size": "low"}})
		}
	}
	return req
}

// TestRequestBodyIsGoOpenAIs: the body the client sends is json.Marshal's encoding of the
// request, which is what go-openai sends, byte for byte, for requests of every shape, and
// again for the same tools when their encoding is kept.
func TestRequestBodyIsGoOpenAIs(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 2))
	var bodies requestBodies
	for i := range 3000 {
		req := randomRequest(r)
		want, wantErr := json.Marshal(req)
		got, err := bodies.encode(req)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("request %d: error %v; json.Marshal's: %v", i, err, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("request %d differs from json.Marshal's:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestRequestBodyRefusesWhatGoOpenAIRefuses: a message with both kinds of content is an
// error, as go-openai's encoding makes it.
func TestRequestBodyRefusesWhatGoOpenAIRefuses(t *testing.T) {
	req := openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "a",
		MultiContent: []openai.ChatMessagePart{{Type: openai.ChatMessagePartTypeText, Text: "b"}}}}}
	var bodies requestBodies
	if _, err := bodies.encode(req); err == nil {
		t.Fatal("a message with both text and parts was encoded; go-openai refuses it")
	}
}

// BenchmarkRequestBody encodes a request of the catalogue's tools and a conversation of 20
// bash rounds, with json.Marshal as go-openai does and as the client does.
func BenchmarkRequestBody(b *testing.B) {
	req := openai.ChatCompletionRequest{Model: "gpt-4o", Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}}
	for _, t := range domain.ToolsFor(false) {
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "system", Content: strings.Repeat("You are a coding agent. ", 150)},
		openai.ChatCompletionMessage{Role: "user", Content: "run true twenty times"})
	for range 20 {
		req.Messages = append(req.Messages,
			openai.ChatCompletionMessage{Role: "assistant", ToolCalls: []openai.ToolCall{{ID: "call_1", Type: "function",
				Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"true"}`}}}},
			openai.ChatCompletionMessage{Role: "tool", ToolCallID: "call_1", Content: "exit status 0"})
	}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("requestBodies", func(b *testing.B) {
		var bodies requestBodies
		for b.Loop() {
			if _, err := bodies.encode(req); err != nil {
				b.Fatal(err)
			}
		}
	})
}
