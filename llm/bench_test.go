package llm

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// BenchmarkStreamResponse measures the client's cost per streamed answer of 50 chunks against
// the local fake server, which answers without delay: ns/op is time to the final result,
// first-delta-ns the time to the first text. Compare with BenchmarkRawHTTPBaseline, the same
// exchange with plain net/http, to see the client's own overhead.
func BenchmarkStreamResponse(b *testing.B) {
	s := startServer(b)
	c := newTestClient(b, s, nil, nil)
	reply := fakellm.Text(strings.Repeat("word ", 100), 50)
	reply.Usage = &fakellm.Usage{PromptTokens: 10, CompletionTokens: 100}
	req := Request{System: "sys", History: []domain.Message{userMsg(1, "hello")}, Tools: domain.ToolsFor(false)}
	var first time.Duration
	for b.Loop() {
		s.Enqueue(reply)
		start := time.Now()
		got := false
		_, err := c.Stream(context.Background(), req, func(Delta) {
			if !got {
				got = true
				first += time.Since(start)
			}
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(first.Nanoseconds())/float64(b.N), "first-delta-ns")
}

// BenchmarkRawHTTPBaseline posts the same kind of request with net/http and reads the stream
// to its end without parsing it: the floor set by the server and the loopback connection.
func BenchmarkRawHTTPBaseline(b *testing.B) {
	s := startServer(b)
	reply := fakellm.Text(strings.Repeat("word ", 100), 50)
	reply.Usage = &fakellm.Usage{PromptTokens: 10, CompletionTokens: 100}
	body := []byte(`{"model":"gpt-4o","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hello"}]}`)
	client := &http.Client{}
	for b.Loop() {
		s.Enqueue(reply)
		resp, err := client.Post(s.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// cannedTransport answers every request with the same SSE body, without a network, so that
// BenchmarkSSEParse measures parsing and assembly alone.
type cannedTransport struct{ body []byte }

func (t cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(bytes.NewReader(t.body)),
		Request: req,
	}, nil
}

// sseBody is a realistic stream: 1000 text chunks, then a tool call in 200 fragments.
func sseBody() []byte {
	var b bytes.Buffer
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n")
	for i := range 1000 {
		fmt.Fprintf(&b, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"tok%d "},"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":""}}]},"finish_reason":null}]}` + "\n\n")
	for range 200 {
		b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"aaaa"}}]},"finish_reason":null}]}` + "\n\n")
	}
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n")
	b.WriteString(`data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12}}` + "\n\n")
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// BenchmarkSSEParse reports the throughput of go-openai's SSE reader plus our assembly, in
// MB/s of stream and chunks/s.
func BenchmarkSSEParse(b *testing.B) {
	benchSSE(b, sseBody(), func(resp Response) bool {
		return len(resp.ToolCalls) == 1 && len(resp.ToolCalls[0].Arguments) == 800
	})
}

// sseReasoningBody is sseBody with each text chunk carrying reasoning instead, in the
// heaviest form a provider sends: OpenRouter's reasoning and reasoning_details together.
func sseReasoningBody() []byte {
	text := []byte(`"delta":{"content":"tok`)
	var b bytes.Buffer
	for _, line := range bytes.SplitAfter(sseBody(), []byte("\n\n")) {
		if i := bytes.Index(line, text); i >= 0 {
			n := line[i+len(text) : i+len(text)+bytes.IndexByte(line[i+len(text):], ' ')]
			fmt.Fprintf(&b, `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"","reasoning":"tok%s ","reasoning_details":[{"type":"reasoning.text","text":"tok%s ","format":"anthropic-claude-v1","index":0}]},"finish_reason":null}]}`+"\n\n", n, n)
			continue
		}
		b.Write(line)
	}
	return b.Bytes()
}

// BenchmarkSSEParseReasoning is BenchmarkSSEParse with the 1000 text chunks replaced by
// reasoning chunks: compare the two to see the cost of reading reasoning.
func BenchmarkSSEParseReasoning(b *testing.B) {
	benchSSE(b, sseReasoningBody(), func(resp Response) bool {
		return resp.Reasoning != nil && strings.HasPrefix(resp.Reasoning.Text, "tok0 tok1 ") && len(resp.ToolCalls) == 1
	})
}

// benchSSE streams a canned body of sseBody's 1204 chunks and checks the assembly with ok.
func benchSSE(b *testing.B, body []byte, ok func(Response) bool) {
	const chunks = 1 + 1000 + 1 + 200 + 2
	c, err := newClient(Config{BaseURL: "http://canned/v1", Model: "gpt-4o"}, nil, cannedTransport{body: body})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{History: []domain.Message{userMsg(1, "go")}}
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		resp, err := c.Stream(context.Background(), req, nil)
		if err != nil {
			b.Fatal(err)
		}
		if !ok(resp) {
			b.Fatalf("bad assembly: %+v", resp)
		}
	}
	b.ReportMetric(float64(chunks*b.N)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkCancelLatency is the time from cancelling the context mid-stream to Stream's
// return (REQ-BED-005 asks for well under 100 ms overall).
func BenchmarkCancelLatency(b *testing.B) {
	s := startServer(b)
	c := newTestClient(b, s, nil, nil)
	req := Request{History: []domain.Message{userMsg(1, "go")}}
	var total time.Duration
	for b.Loop() {
		s.Enqueue(fakellm.Reply{Text: strings.Repeat("x", 100), Chunks: 100, ChunkDelay: 2 * time.Millisecond})
		ctx, cancel := context.WithCancel(context.Background())
		var at time.Time
		_, err := c.Stream(ctx, req, func(Delta) {
			if at.IsZero() {
				at = time.Now()
				cancel()
			}
		})
		total += time.Since(at)
		cancel()
		if err == nil {
			b.Fatal("a cancelled stream succeeded")
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/cancel")
}
