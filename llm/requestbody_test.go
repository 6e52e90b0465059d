package llm

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
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

// TestMessageKeyCoversEveryField: messageFields reads every field of go-openai's message
// types; a field added by a newer go-openai must be added to it, or two messages that
// differ only there would share an encoding.
func TestMessageKeyCoversEveryField(t *testing.T) {
	written := map[reflect.Type][]string{
		reflect.TypeFor[openai.ChatCompletionMessage](): {"Role", "Content", "Refusal", "MultiContent", "Name",
			"ReasoningContent", "FunctionCall", "ToolCalls", "ToolCallID"},
		reflect.TypeFor[openai.ChatMessagePart]():     {"Type", "Text", "ImageURL"},
		reflect.TypeFor[openai.ChatMessageImageURL](): {"URL", "Detail"},
		reflect.TypeFor[openai.FunctionCall]():        {"Name", "Arguments"},
		reflect.TypeFor[openai.ToolCall]():            {"Index", "ID", "Type", "Function"},
	}
	for typ, names := range written {
		var fields []string
		for i := range typ.NumField() {
			fields = append(fields, typ.Field(i).Name)
		}
		slices.Sort(fields)
		slices.Sort(names)
		if !slices.Equal(fields, names) {
			t.Errorf("%v has the fields %v; messageFields reads %v: make it read the new ones", typ, fields, names)
		}
	}
	// And each field changes the message's hash and its comparison.
	idx, other := 1, 2
	base := openai.ChatCompletionMessage{Role: "assistant", Content: "c", Refusal: "r", Name: "n", ReasoningContent: "t", ToolCallID: "id",
		MultiContent: []openai.ChatMessagePart{{Type: "text", Text: "x", ImageURL: &openai.ChatMessageImageURL{URL: "u", Detail: "low"}}},
		FunctionCall: &openai.FunctionCall{Name: "f", Arguments: "a"},
		ToolCalls:    []openai.ToolCall{{Index: &idx, ID: "i", Type: "function", Function: openai.FunctionCall{Name: "g", Arguments: "b"}}}}
	clone := func() openai.ChatCompletionMessage {
		m := base
		m.MultiContent = []openai.ChatMessagePart{base.MultiContent[0]}
		img := *base.MultiContent[0].ImageURL
		m.MultiContent[0].ImageURL = &img
		fc := *base.FunctionCall
		m.FunctionCall = &fc
		m.ToolCalls = []openai.ToolCall{base.ToolCalls[0]}
		return m
	}
	changes := map[string]func(*openai.ChatCompletionMessage){
		"Role":                  func(m *openai.ChatCompletionMessage) { m.Role = "user" },
		"Content":               func(m *openai.ChatCompletionMessage) { m.Content = "C" },
		"Refusal":               func(m *openai.ChatCompletionMessage) { m.Refusal = "R" },
		"Name":                  func(m *openai.ChatCompletionMessage) { m.Name = "N" },
		"ReasoningContent":      func(m *openai.ChatCompletionMessage) { m.ReasoningContent = "T" },
		"ToolCallID":            func(m *openai.ChatCompletionMessage) { m.ToolCallID = "ID" },
		"MultiContent nil":      func(m *openai.ChatCompletionMessage) { m.MultiContent = nil },
		"MultiContent empty":    func(m *openai.ChatCompletionMessage) { m.MultiContent = m.MultiContent[:0] },
		"part Type":             func(m *openai.ChatCompletionMessage) { m.MultiContent[0].Type = "image_url" },
		"part Text":             func(m *openai.ChatCompletionMessage) { m.MultiContent[0].Text = "X" },
		"part ImageURL nil":     func(m *openai.ChatCompletionMessage) { m.MultiContent[0].ImageURL = nil },
		"part URL":              func(m *openai.ChatCompletionMessage) { m.MultiContent[0].ImageURL.URL = "U" },
		"part Detail":           func(m *openai.ChatCompletionMessage) { m.MultiContent[0].ImageURL.Detail = "high" },
		"FunctionCall nil":      func(m *openai.ChatCompletionMessage) { m.FunctionCall = nil },
		"FunctionCall Name":     func(m *openai.ChatCompletionMessage) { m.FunctionCall.Name = "F" },
		"FunctionCall Args":     func(m *openai.ChatCompletionMessage) { m.FunctionCall.Arguments = "A" },
		"ToolCalls nil":         func(m *openai.ChatCompletionMessage) { m.ToolCalls = nil },
		"ToolCalls empty":       func(m *openai.ChatCompletionMessage) { m.ToolCalls = m.ToolCalls[:0] },
		"ToolCall Index nil":    func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].Index = nil },
		"ToolCall Index":        func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].Index = &other },
		"ToolCall ID":           func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].ID = "I" },
		"ToolCall Type":         func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].Type = "custom" },
		"ToolCall Function":     func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].Function.Name = "G" },
		"ToolCall Arguments":    func(m *openai.ChatCompletionMessage) { m.ToolCalls[0].Function.Arguments = "B" },
		"text moved to Refusal": func(m *openai.ChatCompletionMessage) { m.Content, m.Refusal = "", "cr" },
	}
	if !sameMessage(base, clone()) || messageHash(base) != messageHash(clone()) {
		t.Fatal("a copy of a message is not the same message")
	}
	for name, change := range changes {
		m := clone()
		change(&m)
		if sameMessage(m, base) || sameMessage(base, m) {
			t.Errorf("changing %s leaves the message the same to sameMessage", name)
		}
		if messageHash(m) == messageHash(base) {
			t.Errorf("changing %s leaves the message's hash as it was", name)
		}
	}
}

// TestRequestBodyKeepsMessagesBounded: however many messages pass through, what is kept is
// at most two requests' worth, each within maxKeptPerRequest (issue 43: the app's one client
// serves every conversation).
func TestRequestBodyKeepsMessagesBounded(t *testing.T) {
	var bodies requestBodies
	text := strings.Repeat("x", 64<<10)
	for i := range 100 {
		var req openai.ChatCompletionRequest
		for j := range 40 {
			req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "user", Content: text + strconv.Itoa(i*100+j)})
		}
		if _, err := bodies.encode(req); err != nil {
			t.Fatal(err)
		}
	}
	total, n := 0, 0
	for _, gen := range []map[uint64]keptMessage{bodies.current, bodies.previous} {
		for _, k := range gen {
			total += len(k.enc)
			n++
		}
	}
	if total > 2*maxKeptPerRequest || n > 2*maxKeptPerRequest/(64<<10) {
		t.Fatalf("%d messages of %d bytes kept after 100 requests of 40 messages of 64 KiB; want at most %d bytes", n, total, 2*maxKeptPerRequest)
	}
}

// TestRequestBodyEncodesOnlyNewMessages: a conversation's next request, its last one and a
// reply and a message more, takes the kept encodings of the messages it repeats.
func TestRequestBodyEncodesOnlyNewMessages(t *testing.T) {
	var bodies requestBodies
	var req openai.ChatCompletionRequest
	for i := range 10 {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: "user", Content: "message " + strconv.Itoa(i)})
	}
	if _, err := bodies.encode(req); err != nil {
		t.Fatal(err)
	}
	first := bodies.current[messageHash(req.Messages[0])].enc
	req.Messages = append(req.Messages,
		openai.ChatCompletionMessage{Role: "assistant", Content: "reply"},
		openai.ChatCompletionMessage{Role: "user", Content: "more"})
	body, err := bodies.encode(req)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := json.Marshal(req); !bytes.Equal(body, want) {
		t.Fatalf("body %s; want %s", body, want)
	}
	again := bodies.current[messageHash(req.Messages[0])].enc
	if len(first) == 0 || &again[0] != &first[0] {
		t.Fatal("the next request encoded its first message again instead of taking the kept encoding")
	}
	if len(bodies.current) != 12 {
		t.Fatalf("%d messages kept after a request of 12; want 12", len(bodies.current))
	}
}

// TestKeptMessageMatchesWithoutAllocating: a request compares each message of its history
// with the kept one (issue 39); that comparison allocates nothing, or a long conversation's
// every request would make garbage in proportion to its history.
func TestKeptMessageMatchesWithoutAllocating(t *testing.T) {
	idx := 0
	m := openai.ChatCompletionMessage{Role: "assistant", Content: "c",
		ToolCalls: []openai.ToolCall{{Index: &idx, ID: "i", Type: "function", Function: openai.FunctionCall{Name: "bash", Arguments: `{"command":"true"}`}}}}
	key := keyOf(m)
	if !key.matches(m) {
		t.Fatal("a message does not match its own key")
	}
	if n := testing.AllocsPerRun(100, func() { _ = key.matches(m) }); n != 0 {
		t.Errorf("comparing a message with its kept key allocates %v times; want none", n)
	}
}
