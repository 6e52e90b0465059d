package fakellm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func user(text string, imageURLs ...string) Message {
	if len(imageURLs) == 0 {
		return Message{Role: "user", Content: Content{Text: text}}
	}
	parts := []Part{{Type: "text", Text: text}}
	for _, u := range imageURLs {
		parts = append(parts, Part{Type: "image_url", ImageURL: &ImageURL{URL: u}})
	}
	return Message{Role: "user", Content: Content{Parts: parts}}
}

func assistantCalls(calls ...ToolCall) Message { return Message{Role: "assistant", ToolCalls: calls} }

func toolMsg(id, content string) Message {
	return Message{Role: "tool", ToolCallID: id, Content: Content{Text: content}}
}

func tools(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i].Type = "function"
		out[i].Function.Name = n
		out[i].Function.Parameters = json.RawMessage(`{"type":"object"}`)
	}
	return out
}

var parentTools = []string{domain.ToolBash, domain.ToolPatch, domain.ToolThink, domain.ToolKeywordSearch,
	domain.ToolReadImage, domain.ToolSpawnAgents, domain.ToolRequestModeUpgrade, domain.ToolTodo}

var subTools = []string{domain.ToolBash, domain.ToolThink, domain.ToolSubmitResult}

// post sends a non-streaming chat request and decodes the answer.
func post(t *testing.T, s *Server, req ChatRequest) (int, completion, http.Header) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out completion
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
	}
	return resp.StatusCode, out, resp.Header
}

// answer runs the predictable model on messages and returns text and calls.
func answer(t *testing.T, s *Server, toolNames []string, msgs ...Message) (string, []ToolCall) {
	t.Helper()
	status, out, _ := post(t, s, ChatRequest{Model: "demo", Messages: msgs, Tools: tools(toolNames...)})
	if status != http.StatusOK {
		t.Fatalf("status %d", status)
	}
	m := out.Choices[0].Message
	text := ""
	if m.Content != nil {
		text = *m.Content
	}
	return text, m.ToolCalls
}

func argsOf(t *testing.T, c ToolCall) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Function.Arguments), &m); err != nil {
		t.Fatalf("arguments of %s: %v", c.Function.Name, err)
	}
	return m
}

func TestParseProgram(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		steps int
		check func(t *testing.T, p program)
	}{
		{"prose only", "What does this repo do?", 0, nil},
		{"two steps and prose", "Please:\nbash: ls\nthanks\necho: ok", 2, func(t *testing.T, p program) {
			if p.steps[0].actions[0].tool != domain.ToolBash || p.steps[1].actions[0].text != "ok" {
				t.Fatalf("%+v", p.steps)
			}
		}},
		{"modifiers attach to the next step", "delay: 250\nusage: 85_000\nfail: 500 x2\nbash: ls", 1, func(t *testing.T, p program) {
			st := p.steps[0]
			if st.delay != 250*time.Millisecond || st.usage != 85000 || st.fail == nil || st.fail.status != 500 || st.fail.times != 2 {
				t.Fatalf("%+v %+v", st, st.fail)
			}
		}},
		{"trailing modifiers go to the final answer", "bash: ls\nusage: 91000", 1, func(t *testing.T, p program) {
			if p.final.usage != 91000 || p.steps[0].usage != 0 {
				t.Fatalf("%+v", p)
			}
		}},
		{"several calls on one line", "bash: ls ;; think: hmm ;; echo: both", 1, func(t *testing.T, p program) {
			if len(p.steps[0].actions) != 3 {
				t.Fatalf("%+v", p.steps[0].actions)
			}
		}},
		{"fail forms", "fail: always 503\necho: a\nfail: context\necho: b\nfail: 429\necho: c", 3, func(t *testing.T, p program) {
			f0, f1, f2 := p.steps[0].fail, p.steps[1].fail, p.steps[2].fail
			if f0.status != 503 || f0.times != -1 || !f1.context || f1.status != 400 || f2.status != 429 || f2.times != 1 {
				t.Fatalf("%+v %+v %+v", f0, f1, f2)
			}
		}},
		{"patch forms", "patch: a.txt <<< one\\ntwo\npatch: b.txt >>> more\npatch: c.txt ::: old ==> new", 3, func(t *testing.T, p program) {
			ops := []string{"overwrite", "append_eof", "replace"}
			for i, st := range p.steps {
				pa := st.actions[0].args.(map[string]any)["patches"].([]any)[0].(map[string]any)
				if pa["operation"] != ops[i] {
					t.Fatalf("step %d: %+v", i, pa)
				}
			}
			first := p.steps[0].actions[0].args.(map[string]any)
			if first["path"] != "a.txt" || first["patches"].([]any)[0].(map[string]any)["new_text"] != "one\ntwo" {
				t.Fatalf("%+v", first)
			}
		}},
		{"language tool forms", "lsp: references a/a.go:4:6\nlsp: symbols #Greet\nlsp: symbols a.go\nlsp: diagnostics\nlsp: hover {\"path\":\"x\"}", 5, func(t *testing.T, p program) {
			want := []string{`references {"column":6,"line":4,"path":"a/a.go"}`, `symbols {"query":"Greet"}`, `symbols {"path":"a.go"}`,
				`diagnostics {}`, `hover {"path":"x"}`}
			for i, st := range p.steps {
				a := st.actions[0]
				b, _ := json.Marshal(a.args)
				if got := a.tool + " " + string(b); got != want[i] {
					t.Errorf("step %d: %s; want %s", i, got, want[i])
				}
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := parseProgram(tc.text)
			if len(p.steps) != tc.steps {
				t.Fatalf("%d steps, want %d: %+v", len(p.steps), tc.steps, p)
			}
			if tc.check != nil {
				tc.check(t, p)
			}
		})
	}
}

func TestPredictableToolSteps(t *testing.T) {
	t.Parallel()
	s := start(t)
	tests := []struct {
		line string
		tool string
		args string
	}{
		{"bash: ls -la | head", domain.ToolBash, `{"command":"ls -la | head"}`},
		{"think: plan first", domain.ToolThink, `{"thoughts":"plan first"}`},
		{"search: retry backoff", domain.ToolKeywordSearch, `{"query":"retry backoff","search_terms":["retry","backoff"]}`},
		{"image: shots/a.png", domain.ToolReadImage, `{"path":"shots/a.png"}`},
		{"fetch: https://go.dev/doc/", domain.ToolFetchURL, `{"url":"https://go.dev/doc/"}`},
		{"upgrade: I must edit main.go", domain.ToolRequestModeUpgrade, `{"reason":"I must edit main.go"}`},
		{"agents: count files | bash: wc -l go.mod", domain.ToolSpawnAgents, `{"tasks":["count files","bash: wc -l go.mod"]}`},
		{"patch: notes.txt <<< hello", domain.ToolPatch, `{"patches":[{"new_text":"hello","operation":"overwrite"}],"path":"notes.txt"}`},
		{"todo: [x] read | [>] fix it | test", domain.ToolTodo, `{"todos":[{"content":"read","status":"done"},{"content":"fix it","status":"in_progress"},{"content":"test","status":"pending"}]}`},
		{"todo:", domain.ToolTodo + " cleared", `{"todos":[]}`},
		{`todo: {"todos":[{"content":"x","status":"completed"}]}`, domain.ToolTodo + " as written", `{"todos":[{"content":"x","status":"completed"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			text, calls := answer(t, s, parentTools, user(tc.line))
			name, _, _ := strings.Cut(tc.tool, " ")
			if text != "" || len(calls) != 1 || calls[0].Function.Name != name || calls[0].Function.Arguments != tc.args {
				t.Fatalf("got %q %+v", text, calls)
			}
			if calls[0].ID != "demo_1_1" {
				t.Fatalf("id %q", calls[0].ID)
			}
		})
	}
}

func TestPredictableMultiTurnFlow(t *testing.T) {
	t.Parallel()
	s := start(t)
	prog := user("Do it.\nbash: ls ;; think: next\necho: all done")
	msgs := []Message{{Role: "system", Content: Content{Text: "sys"}}, prog}

	// Step 0: two calls in one answer.
	_, calls := answer(t, s, parentTools, msgs...)
	if len(calls) != 2 || calls[0].Function.Name != "bash" || calls[1].Function.Name != "think" ||
		calls[0].ID != "demo_1_1" || calls[1].ID != "demo_1_2" {
		t.Fatalf("step 0: %+v", calls)
	}
	msgs = append(msgs, assistantCalls(calls...), toolMsg(calls[0].ID, "a.txt\nb.txt"), toolMsg(calls[1].ID, "ok"),
		user(SystemNoticePrefix+"mode changed"))

	// Step 1: the echo, despite the system notice after the results.
	text, calls := answer(t, s, parentTools, msgs...)
	if text != "all done" || len(calls) != 0 {
		t.Fatalf("step 1: %q %+v", text, calls)
	}

	// A new user message starts a new program; its k counts from there.
	msgs = append(msgs, Message{Role: "assistant", Content: Content{Text: "all done"}}, user("bash: pwd"))
	_, calls = answer(t, s, parentTools, msgs...)
	if len(calls) != 1 || argsOf(t, calls[0])["command"] != "pwd" || calls[0].ID != "demo_3_1" {
		t.Fatalf("second program: %+v", calls)
	}
	msgs = append(msgs, assistantCalls(calls...), toolMsg(calls[0].ID, "[error] exit status 1\nmore"))
	text, _ = answer(t, s, parentTools, msgs...)
	if text != "Done. bash: [error] exit status 1" {
		t.Fatalf("done text %q", text)
	}
}

func TestPredictableDoneDescribesToolImages(t *testing.T) {
	t.Parallel()
	s := start(t)
	call := Call("demo_1_1", domain.ToolReadImage, `{"path":"a.png"}`)
	text, _ := answer(t, s, parentTools, user("image: a.png"), assistantCalls(call), toolMsg(call.ID, "read a.png"),
		user(ToolImagesPrefix+"demo_1_1 (read_image):", pngURL(t, 30, 20)))
	if text != "Done. read_image: read a.png I see 1 image: 1) image/png 30x20, "+pngSize(t, 30, 20)+" bytes." {
		t.Fatalf("got %q", text)
	}
}

func pngData(t *testing.T, w, h int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pngURL(t *testing.T, w, h int) string {
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngData(t, w, h))
}

func pngSize(t *testing.T, w, h int) string { return strconv.Itoa(len(pngData(t, w, h))) }

func TestPredictableDescribesAttachedImages(t *testing.T) {
	t.Parallel()
	s := start(t)
	text, calls := answer(t, s, parentTools, user("what is this?", pngURL(t, 8, 4), pngURL(t, 3, 9), "https://example.com/x.png"))
	want := "I see 3 images: 1) image/png 8x4, " + pngSize(t, 8, 4) + " bytes; 2) image/png 3x9, " + pngSize(t, 3, 9) +
		" bytes; 3) an image by URL, which I cannot open."
	if text != want || len(calls) != 0 {
		t.Fatalf("got %q, want %q", text, want)
	}
}

func TestPredictableHelpText(t *testing.T) {
	t.Parallel()
	s := start(t)
	text, _ := answer(t, s, parentTools, user("What does this repository do?\nIn detail."))
	if !strings.Contains(text, "offline demo model") || !strings.Contains(text, `"What does this repository do?"`) {
		t.Fatalf("got %q", text)
	}
}

func TestPredictableSubAgent(t *testing.T) {
	t.Parallel()
	s := start(t)
	// A task with steps runs them, then submits a result from the task and the last output.
	task := user("bash: wc -l go.mod")
	_, calls := answer(t, s, subTools, task)
	if len(calls) != 1 || calls[0].Function.Name != domain.ToolBash {
		t.Fatalf("step: %+v", calls)
	}
	msgs := []Message{task, assistantCalls(calls...), toolMsg(calls[0].ID, "3 go.mod")}
	_, calls = answer(t, s, subTools, msgs...)
	if len(calls) != 1 || calls[0].Function.Name != domain.ToolSubmitResult {
		t.Fatalf("submit: %+v", calls)
	}
	args := argsOf(t, calls[0])
	if args["result"] != `Finished the task "bash: wc -l go.mod". bash: 3 go.mod` || args["success"] != true {
		t.Fatalf("submit args %+v", args)
	}
	// After submit_result is answered, it stops with text instead of submitting again.
	msgs = append(msgs, assistantCalls(calls...), toolMsg(calls[0].ID, "submitted"))
	if text, calls := answer(t, s, subTools, msgs...); text != "Done." || len(calls) != 0 {
		t.Fatalf("after submit: %q %+v", text, calls)
	}
	// A task with no steps submits at once.
	_, calls = answer(t, s, subTools, user("count the files"))
	if len(calls) != 1 || argsOf(t, calls[0])["result"] != `Finished the task "count the files".` {
		t.Fatalf("plain task: %+v", calls)
	}
}

func TestPredictableSummaryForToolLessRequest(t *testing.T) {
	t.Parallel()
	s := start(t)
	call := Call("demo_1_1", "bash", `{"command":"ls"}`)
	text, calls := answer(t, s, nil, user("bash: ls"), assistantCalls(call), toolMsg(call.ID, "x"),
		Message{Role: "assistant", Content: Content{Text: "Done."}},
		user("The conversation context is nearly full. Please provide a brief continuation summary."))
	if len(calls) != 0 || !strings.HasPrefix(text, "Summary (demo model): you sent 1 messages and I made 1 tool calls") ||
		!strings.Contains(text, `"bash: ls"`) {
		t.Fatalf("got %q %+v", text, calls)
	}
}

func TestPredictableFailOnceThenSucceed(t *testing.T) {
	t.Parallel()
	s := start(t)
	req := ChatRequest{Model: "demo", Messages: []Message{user("fail: 429\necho: ok")}, Tools: tools(parentTools...)}
	status, _, hdr := post(t, s, req)
	if status != http.StatusTooManyRequests || hdr.Get("Retry-After") != "1" {
		t.Fatalf("first attempt: %d retry-after %q", status, hdr.Get("Retry-After"))
	}
	status, out, _ := post(t, s, req)
	if status != http.StatusOK || *out.Choices[0].Message.Content != "ok" {
		t.Fatalf("retry: %d %+v", status, out)
	}
	// x2 fails two attempts; always never lets one through.
	req2 := ChatRequest{Model: "demo", Messages: []Message{user("fail: 500 x2\necho: ok")}}
	for i, want := range []int{500, 500, 200} {
		if status, _, _ := post(t, s, req2); status != want {
			t.Fatalf("attempt %d: %d, want %d", i, status, want)
		}
	}
	req3 := ChatRequest{Model: "demo", Messages: []Message{user("fail: 401 always")}}
	for i := range 3 {
		if status, _, _ := post(t, s, req3); status != 401 {
			t.Fatalf("attempt %d: %d", i, status)
		}
	}
	var body errorBody
	reqCtx := ChatRequest{Model: "demo", Messages: []Message{user("fail: context")}}
	b, _ := json.Marshal(reqCtx)
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 400 || body.Error.Code != "context_length_exceeded" {
		t.Fatalf("context failure: %d %+v %v", resp.StatusCode, body, err)
	}
}

func TestPredictableUsageOverride(t *testing.T) {
	t.Parallel()
	s := start(t)
	usage := func(msgs ...Message) int {
		_, out, _ := post(t, s, ChatRequest{Model: "demo", Messages: msgs, Tools: tools(parentTools...)})
		return out.Usage.TotalTokens
	}
	first := user("usage: 85000\necho: warm")
	if got := usage(first); got != 85000 {
		t.Fatalf("usage %d, want 85000", got)
	}
	// Later messages keep the last reported figure until another usage: step.
	history := []Message{first, {Role: "assistant", Content: Content{Text: "warm"}}}
	if got := usage(append(history, user("echo: again"))...); got != 85000 {
		t.Fatalf("later usage %d, want 85000", got)
	}
	if got := usage(append(history, user("usage: 91000\necho: hot"))...); got != 91000 {
		t.Fatalf("raised usage %d, want 91000", got)
	}
	// Without any, the estimate is about a quarter of the request's size (4000 characters of
	// text plus the JSON around it and the tool schemas).
	if got := usage(user(strings.Repeat("abcd", 1000))); got < 1000 || got > 1400 {
		t.Fatalf("estimated usage %d", got)
	}
}

func TestPredictableDelay(t *testing.T) {
	t.Parallel()
	s := start(t)
	r := s.predict(&ChatRequest{Messages: []Message{user("delay: 120\necho: late")}}, nil, 0)
	if r.FirstByteDelay != 120*time.Millisecond || r.Text != "late" {
		t.Fatalf("%+v", r)
	}
}

// sse reads a streamed response into its data payloads.
func sse(t *testing.T, s *Server, path string, req ChatRequest) []string {
	t.Helper()
	body, _ := json.Marshal(req)
	resp, err := http.Post(strings.TrimSuffix(s.URL(), "/v1")+path, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var events []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			events = append(events, data)
		}
	}
	return events
}

func TestStreamWireFormat(t *testing.T) {
	t.Parallel()
	s := start(t)
	r := Reply{Text: "abcd", Chunks: 2, ToolCalls: []ToolCall{Call("c1", "bash", `{"command":"ls"}`)}, Fragments: 2,
		Usage: &Usage{PromptTokens: 10, CompletionTokens: 5}}
	s.Enqueue(r, r)
	for _, path := range []string{"/v1/chat/completions", "/chat/completions"} {
		events := sse(t, s, path, ChatRequest{Model: "m", Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true},
			Messages: []Message{user("x")}})
		want := []string{
			`"delta":{"role":"assistant","content":""}`,
			`"delta":{"content":"ab"}`,
			`"delta":{"content":"cd"}`,
			`"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"bash","arguments":""}}]`,
			`"tool_calls":[{"index":0,"function":{"arguments":"{\"comman"}}]`,
			`"tool_calls":[{"index":0,"function":{"arguments":"d\":\"ls\"}"}}]`,
			`"finish_reason":"tool_calls"`,
			`"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`,
			`[DONE]`,
		}
		if len(events) != len(want) {
			t.Fatalf("%s: %d events, want %d:\n%s", path, len(events), len(want), strings.Join(events, "\n"))
		}
		for i, w := range want {
			if !strings.Contains(events[i], w) {
				t.Fatalf("%s: event %d is %s, want it to contain %s", path, i, events[i], w)
			}
		}
	}
}

func TestModelsAndUnknownRoutes(t *testing.T) {
	t.Parallel()
	s := start(t)
	for _, path := range []string{"/v1/models", "/models"} {
		resp, err := http.Get(strings.TrimSuffix(s.URL(), "/v1") + path)
		if err != nil {
			t.Fatal(err)
		}
		var list struct{ Data []struct{ ID string } }
		err = json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		if err != nil || len(list.Data) != 1 || list.Data[0].ID != domain.DemoModel {
			t.Fatalf("%s: %+v %v", path, list, err)
		}
	}
	s.SetModels("anthropic/claude-sonnet-4", "openai/gpt-4.1")
	resp, err := http.Get(s.URL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Data []struct{ ID string } }
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list.Data) != 2 || list.Data[0].ID != "anthropic/claude-sonnet-4" || list.Data[1].ID != "openai/gpt-4.1" {
		t.Fatalf("after SetModels: %+v %v", list, err)
	}
	resp, err = http.Get(s.URL() + "/embeddings")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown route: %d", resp.StatusCode)
	}
	if n := len(s.Requests()); n != 4 {
		t.Fatalf("%d requests recorded, want 4", n)
	}
}

func TestCutAndStallFaults(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.Enqueue(Reply{Text: "abcdef", Chunks: 6, Fault: FaultCut, FaultAfter: 2})
	body, _ := json.Marshal(ChatRequest{Model: "m", Stream: true, Messages: []Message{user("x")}})
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || strings.Contains(string(got), "[DONE]") || strings.Count(string(got), "data: ") != 2 {
		t.Fatalf("a cut stream read cleanly: %q, %v", got, err)
	}

	s.Enqueue(Reply{Text: "abc", Chunks: 3, Fault: FaultStall, FaultAfter: 1})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/chat/completions", bytes.NewReader(body))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "data: ") {
		t.Fatalf("first chunk: %q %v", line, err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-s.Disconnected():
	case <-time.After(5 * time.Second):
		t.Fatal("the stall never saw the client leave")
	}
	if s.DisconnectCount() != 1 {
		t.Fatalf("count %d", s.DisconnectCount())
	}
}

func TestCloseReleasesStalledReplies(t *testing.T) {
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	s.Enqueue(Reply{Fault: FaultStall, FaultAfter: 1})
	body, _ := json.Marshal(ChatRequest{Model: "m", Stream: true, Messages: []Message{user("x")}})
	resp, err := http.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close hung on a stalled reply")
	}
}

func TestRequestsRecordDecodedAndRaw(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.Enqueue(Text("ok", 1))
	post(t, s, ChatRequest{Model: "gpt-x", Messages: []Message{user("hello", pngURL(t, 2, 2))}})
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Chat == nil || reqs[0].Chat.Model != "gpt-x" ||
		!bytes.Contains(reqs[0].Raw, []byte(`"model":"gpt-x"`)) || len(reqs[0].Chat.Messages[0].Content.ImageURLs()) != 1 {
		t.Fatalf("%+v", reqs)
	}
	if s.Pending() != 0 {
		t.Fatal("scripted reply not consumed")
	}
}

// Issue 13: "stop: REASON" ends the next answer early (cutting the last call's arguments for
// "length"), "window: N" refuses requests larger than N tokens with a context-length error,
// and max_tokens cuts a longer answer with finish reason "length".
func TestPredictableEarlyStopsAndLimits(t *testing.T) {
	t.Parallel()
	s := start(t)
	finish := func(req ChatRequest) (int, completionChoice) {
		status, out, _ := post(t, s, req)
		if status != http.StatusOK {
			return status, completionChoice{}
		}
		return status, out.Choices[0]
	}

	fin := func(ch completionChoice) string {
		if ch.FinishReason == nil {
			return ""
		}
		return *ch.FinishReason
	}
	_, ch := finish(ChatRequest{Model: "demo", Messages: []Message{user("stop: content_filter\necho: hi")}})
	if fin(ch) != "content_filter" || *ch.Message.Content != "hi" {
		t.Fatalf("stop: content_filter gave %+v", ch)
	}
	_, ch = finish(ChatRequest{Model: "demo", Messages: []Message{user("stop: length\nbash: ls ;; bash: echo a-long-command")}, Tools: tools(parentTools...)})
	calls := ch.Message.ToolCalls
	if fin(ch) != "length" || len(calls) != 2 || json.Valid([]byte(calls[1].Function.Arguments)) || !json.Valid([]byte(calls[0].Function.Arguments)) {
		t.Fatalf("stop: length gave finish %q and calls %+v; want the last call's arguments cut", fin(ch), calls)
	}

	long := strings.Repeat("word ", 100) // 500 characters
	_, ch = finish(ChatRequest{Model: "demo", MaxTokens: 25, Messages: []Message{user("echo: " + long)}})
	if fin(ch) != "length" || len(*ch.Message.Content) != 100 {
		t.Fatalf("max_tokens 25 gave finish %q and %d characters; want length after 100", fin(ch), len(*ch.Message.Content))
	}
	_, ch = finish(ChatRequest{Model: "demo", MaxCompletionTokens: 1000, Messages: []Message{user("echo: " + long)}})
	if fin(ch) != "stop" || len(*ch.Message.Content) != len(long)-1 {
		t.Fatalf("a reply within max_completion_tokens gave finish %q and %d characters", fin(ch), len(*ch.Message.Content))
	}
	_, ch = finish(ChatRequest{Model: "demo", MaxTokens: 10, Messages: []Message{user("bash: echo " + long)}, Tools: tools(parentTools...)})
	if fin(ch) != "length" || len(ch.Message.ToolCalls) != 1 || json.Valid([]byte(ch.Message.ToolCalls[0].Function.Arguments)) {
		t.Fatalf("a call over max_tokens gave finish %q, calls %+v; want it cut inside its arguments", fin(ch), ch.Message.ToolCalls)
	}

	first := user("window: 2000\necho: small")
	if status, _ := finish(ChatRequest{Model: "demo", Messages: []Message{first}}); status != http.StatusOK {
		t.Fatalf("a small request within window: 2000 failed with %d", status)
	}
	history := []Message{first, {Role: "assistant", Content: Content{Text: "small"}}, user("echo: " + strings.Repeat("x", 12000))}
	status, _, _ := post(t, s, ChatRequest{Model: "demo", Messages: history})
	if status != http.StatusBadRequest {
		t.Fatalf("a 3000-token request under window: 2000 got status %d; want 400", status)
	}
}

func TestChatsRecordModelAndSystemPrompt(t *testing.T) {
	s := start(t)
	for _, model := range []string{"demo", "other-model"} {
		post(t, s, ChatRequest{Model: model, Messages: []Message{
			{Role: "system", Content: Content{Text: "rules for " + model}}, user("echo: hi")}})
	}
	post(t, s, ChatRequest{Model: "bare", Messages: []Message{user("echo: hi")}})
	chats := s.Chats()
	if len(chats) != 3 {
		t.Fatalf("%d chats recorded", len(chats))
	}
	if chats[1].Model != "other-model" || chats[1].SystemPrompt() != "rules for other-model" {
		t.Fatalf("second chat: model %q system %q", chats[1].Model, chats[1].SystemPrompt())
	}
	if chats[2].SystemPrompt() != "" {
		t.Fatalf("a request without a system message has system prompt %q", chats[2].SystemPrompt())
	}
}

// Scripted reasoning goes over the wire in the shapes real providers use: each piece in
// every field asked for, a signature-only entry, an encrypted entry, and reasoning tokens
// counted inside or beside completion_tokens.
func TestStreamThinkingWireFormat(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.Enqueue(Reply{Text: "ok", Thinking: &Thinking{Text: "abcd", Chunks: 2, Plain: true, Details: true, Format: "anthropic-claude-v1",
		Signature: "sig", Encrypted: "blob", EncryptedID: "rs_1", Tokens: 7, TokensBeside: true},
		Usage: &Usage{PromptTokens: 10, CompletionTokens: 5}})
	events := sse(t, s, "/v1/chat/completions", ChatRequest{Model: "m", Stream: true, StreamOptions: &StreamOptions{IncludeUsage: true},
		Messages: []Message{user("x")}})
	want := []string{
		`"delta":{"role":"assistant","content":""}`,
		`"delta":{"reasoning":"ab","reasoning_details":[{"type":"reasoning.text","text":"ab","format":"anthropic-claude-v1","index":0}]}`,
		`"delta":{"reasoning":"cd","reasoning_details":[{"type":"reasoning.text","text":"cd","format":"anthropic-claude-v1","index":0}]}`,
		`"delta":{"reasoning_details":[{"type":"reasoning.text","signature":"sig","format":"anthropic-claude-v1","index":0}]}`,
		`"delta":{"reasoning_details":[{"type":"reasoning.encrypted","data":"blob","id":"rs_1","format":"anthropic-claude-v1","index":0}]}`,
		`"delta":{"content":"ok"}`,
		`"finish_reason":"stop"`,
		`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":22,"completion_tokens_details":{"reasoning_tokens":7}}`,
		`[DONE]`,
	}
	if len(events) != len(want) {
		t.Fatalf("%d events, want %d:\n%s", len(events), len(want), strings.Join(events, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(events[i], w) {
			t.Fatalf("event %d is %s, want it to contain %s", i, events[i], w)
		}
	}
}

// A reply scripted to reject reasoning answers 400 only when a message carries
// reasoning_content, as DeepSeek does.
func TestRejectReasoning(t *testing.T) {
	t.Parallel()
	s := start(t)
	s.Enqueue(Reply{Text: "fine", RejectReasoning: true}, Reply{Text: "fine", RejectReasoning: true})
	thought := "hmm"
	with := Message{Role: "assistant", Content: Content{Text: "hi"}, ReasoningFields: ReasoningFields{ReasoningContent: &thought}}
	if status, _, _ := post(t, s, ChatRequest{Model: "m", Messages: []Message{user("a"), with, user("b")}}); status != http.StatusBadRequest {
		t.Fatalf("status %d with reasoning_content, want 400", status)
	}
	if status, _, _ := post(t, s, ChatRequest{Model: "m", Messages: []Message{user("a"), {Role: "assistant", Content: Content{Text: "hi"}}, user("b")}}); status != http.StatusOK {
		t.Fatalf("status %d without reasoning_content, want 200", status)
	}
}

// "reason:" makes the predictable model think before the step, word by word.
func TestPredictableReasoning(t *testing.T) {
	t.Parallel()
	s := start(t)
	events := sse(t, s, "/v1/chat/completions", ChatRequest{Model: "m", Stream: true, Tools: tools(parentTools...),
		Messages: []Message{user("reason: First list them.\nbash: ls")}})
	var thought strings.Builder
	for _, e := range events {
		var c streamChunk
		if json.Unmarshal([]byte(e), &c) == nil && len(c.Choices) > 0 && c.Choices[0].Delta.ReasoningContent != nil {
			thought.WriteString(*c.Choices[0].Delta.ReasoningContent)
		}
	}
	if thought.String() != "First list them." {
		t.Fatalf("reasoning %q, want the reason: text", thought.String())
	}
	if !strings.Contains(strings.Join(events, "\n"), `"name":"bash"`) {
		t.Fatalf("the step after the reasoning is missing:\n%s", strings.Join(events, "\n"))
	}
}
