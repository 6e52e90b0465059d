package fakellm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// BenchmarkDemoRequest is what the demo server spends on one request of a ten-round bash
// conversation with the app's whole tool set, the request a headless round sends (issue 39).
func BenchmarkDemoRequest(b *testing.B) {
	s, err := StartDemo()
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var ts []Tool
	for _, spec := range domain.ToolsFor(false) {
		var t Tool
		t.Type = "function"
		t.Function.Name, t.Function.Description, t.Function.Parameters = spec.Name, spec.Description, spec.Parameters
		ts = append(ts, t)
	}
	msgs := []Message{{Role: "system", Content: Content{Text: strings.Repeat("You are a coding agent. ", 200)}},
		user(strings.TrimSuffix(strings.Repeat("bash: true\n", 10), "\n"))}
	for i := range 10 {
		id := "call_" + string(rune('a'+i))
		msgs = append(msgs, assistantCalls(ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: "bash", Arguments: `{"command":"true"}`}}), toolMsg(id, "(no output)"))
	}
	body, err := json.Marshal(ChatRequest{Model: domain.DemoModel, Messages: msgs, Tools: ts, Stream: true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/v1/chat/completions", bytes.NewReader(body)))
		if w.Code != http.StatusOK {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
