package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Request is one request the server received.
type Request struct {
	Method string
	// Path is the URL path as sent, with or without the /v1 prefix.
	Path   string
	Header http.Header
	Raw    []byte
	// Chat is the decoded body of a chat completions request, nil otherwise or when the
	// body did not decode (DecodeErr says why).
	Chat      *ChatRequest
	DecodeErr error
}

// maxBody bounds a request body; a request with a few large screenshots stays far below.
const maxBody = 128 << 20

// Server is an OpenAI-compatible HTTP server on 127.0.0.1. It answers from the script queue
// while it holds replies, and with the predictable model otherwise. It is safe for
// concurrent use.
type Server struct {
	srv    *http.Server
	url    string
	closed chan struct{}
	// handlers counts running handlers so that Close can wait for them; closing (under mu)
	// stops new ones from being counted once Close has begun.
	handlers sync.WaitGroup

	// mu guards everything below.
	mu          sync.Mutex
	closing     bool
	queue       []Reply
	requests    []Request
	attempts    map[string]int
	disconnects int
	discCh      chan struct{}
	pace        time.Duration
	seq         int
	// unrecorded keeps requests out of Requests: the demo model serves a whole session, and
	// keeping every request (each with its whole history) would grow without bound.
	unrecorded bool
	// recent holds the bodies of the last requests, for the prefix-cache accounting
	// (cache.go).
	recent [][]byte
	// tools is the last tools array decoded, body the last chat body's bytes around its
	// messages (decode.go).
	tools toolsMemo
	body  bodyMemo
	// models is what GET /models lists (SetModels); nil lists domain.DemoModel alone.
	models []string
}

// Start listens on a free port of 127.0.0.1 and serves until Close.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start fake LLM server: listen on 127.0.0.1: %w", err)
	}
	s := &Server{
		url:      "http://" + ln.Addr().String() + "/v1",
		closed:   make(chan struct{}),
		attempts: map[string]int{},
		discCh:   make(chan struct{}, 1024),
	}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		// Serve returns ErrServerClosed after Close; any other error means the listener
		// broke, and requests will then fail with a connection error the client reports.
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// StartDemo starts the server for the offline demo model (domain.DemoModel). It is Start
// under the name the app's wiring uses; see the package documentation for the model.
// It does not record requests (Requests stays empty), so a long session does not grow it.
func StartDemo() (*Server, error) {
	s, err := Start()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.unrecorded = true
	s.mu.Unlock()
	return s, nil
}

// URL is the base URL for an OpenAI client, ending in /v1.
func (s *Server) URL() string { return s.url }

// Close stops the server, releases stalled replies and waits for every handler to return.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return
	}
	s.closing = true
	s.mu.Unlock()
	close(s.closed)
	_ = s.srv.Close() // the error only repeats a listener error nobody can act on now
	s.handlers.Wait()
}

// Enqueue adds scripted replies; each chat request takes the first one left.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending is the number of scripted replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns a copy of every request received, in order of arrival.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// LastChat returns the last chat completions request received, or nil.
func (s *Server) LastChat() *ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.requests) - 1; i >= 0; i-- {
		if s.requests[i].Chat != nil {
			return s.requests[i].Chat
		}
	}
	return nil
}

// Chats returns every decoded chat completions request, in order of arrival: what each
// asked for (Model) and was told (SystemPrompt, Messages).
func (s *Server) Chats() []*ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*ChatRequest
	for _, r := range s.requests {
		if r.Chat != nil {
			out = append(out, r.Chat)
		}
	}
	return out
}

// Disconnected receives one value for each reply the client abandoned before its end (a
// cancelled request, an idle timeout), as the server saw it.
func (s *Server) Disconnected() <-chan struct{} { return s.discCh }

// DisconnectCount is the number of replies abandoned by the client so far.
func (s *Server) DisconnectCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.disconnects
}

// SetModels sets the model ids GET /models lists, in place of domain.DemoModel alone, so a
// test can stand for a provider that names its models its own way (OpenRouter's
// "anthropic/claude-sonnet-4"). Chat requests are answered whatever model they name.
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]string(nil), ids...)
}

// SetPace makes the predictable model stream its text word by word with this pause between
// chunks, so that a person watching the demo sees it arrive. Scripted replies keep their own
// ChunkDelay. Zero (the default) streams at once.
func (s *Server) SetPace(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pace = d
}

func (s *Server) noteDisconnect() {
	s.mu.Lock()
	s.disconnects++
	s.mu.Unlock()
	select {
	case s.discCh <- struct{}{}:
	default:
	}
}

// wait sleeps for d unless the client leaves or the server closes; it reports whether the
// reply should go on.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.closed:
		return false
	}
}

// ServeHTTP routes the OpenAI paths, with or without the /v1 prefix.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		http.Error(w, "server is closing", http.StatusServiceUnavailable)
		return
	}
	s.handlers.Add(1)
	s.mu.Unlock()
	defer s.handlers.Done()

	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "could not read the request body: "+err.Error(), "invalid_request_error", "")
		return
	}
	rec := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Raw: raw}
	path := strings.TrimPrefix(r.URL.Path, "/v1")
	isChat := path == "/chat/completions" && r.Method == http.MethodPost
	var prompt []byte
	if isChat {
		rec.Chat, prompt, rec.DecodeErr = s.decodeChat(raw)
	}
	s.mu.Lock()
	if !s.unrecorded {
		s.requests = append(s.requests, rec)
	}
	s.seq++
	seq := s.seq
	s.mu.Unlock()

	switch {
	case path == "/models" && r.Method == http.MethodGet:
		s.mu.Lock()
		ids := s.models
		s.mu.Unlock()
		if ids == nil {
			ids = []string{domain.DemoModel}
		}
		data := make([]map[string]any, 0, len(ids))
		for _, id := range ids {
			data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "phoenix"})
		}
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	case isChat && rec.Chat == nil:
		writeError(w, http.StatusBadRequest, "the body is not a chat completions request: "+rec.DecodeErr.Error(), "invalid_request_error", "")
	case isChat:
		s.serveChat(w, r, rec.Chat, raw, prompt, seq)
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path), "invalid_request_error", "unknown_url")
	}
}

func (s *Server) serveChat(w http.ResponseWriter, r *http.Request, chat *ChatRequest, raw, prompt []byte, seq int) {
	s.mu.Lock()
	var reply Reply
	scripted := len(s.queue) > 0
	if scripted {
		reply = s.queue[0]
		s.queue = s.queue[1:]
	}
	pace := s.pace
	s.mu.Unlock()
	if !scripted {
		reply = s.predict(chat, raw, pace)
	}
	ctx := r.Context()
	if !s.wait(ctx, reply.FirstByteDelay) {
		s.noteDisconnect()
		return
	}
	if reply.RejectReasoning && carriesReasoningContent(chat) {
		reply = Failure(http.StatusBadRequest, rejectReasoningMessage)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter != "" {
			w.Header().Set("Retry-After", reply.RetryAfter)
		}
		writeError(w, reply.Status, reply.ErrorMessage, reply.ErrorType, reply.ErrorCode)
		return
	}
	if reply.Usage == nil {
		u := estimateUsage(chat, raw, reply)
		u.CachedTokens = min(u.PromptTokens, s.cachedTokens(prompt))
		reply.Usage = &u
	}
	id := fmt.Sprintf("chatcmpl-fake-%d", seq)
	if chat.Stream {
		s.stream(w, ctx, chat, reply, id)
		return
	}
	s.complete(w, ctx, chat, reply, id)
}

// stream writes the reply as server-sent events.
func (s *Server) stream(w http.ResponseWriter, ctx context.Context, chat *ChatRequest, reply Reply, id string) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported by this connection", "server_error", "")
		return
	}
	events := streamEvents(chat, reply, id)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()

	for range reply.Heartbeats {
		if !s.wait(ctx, reply.ChunkDelay) {
			s.noteDisconnect()
			return
		}
		if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
			s.noteDisconnect()
			return
		}
		flusher.Flush()
	}
	limit := len(events)
	if reply.Fault != FaultNone {
		limit = min(reply.FaultAfter, len(events))
	}
	for i := 0; i < limit; i++ {
		if i > 0 && !s.wait(ctx, reply.ChunkDelay) {
			s.noteDisconnect()
			return
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", events[i]); err != nil {
			s.noteDisconnect()
			return
		}
		flusher.Flush()
	}
	switch reply.Fault {
	case FaultStall:
		s.stall(ctx)
		return
	case FaultCut:
		// ErrAbortHandler makes net/http close the connection at once, without the final
		// empty chunk, and without logging a stack.
		panic(http.ErrAbortHandler)
	case FaultErrorEvent:
		var body errorBody
		body.Error.Message, body.Error.Type, body.Error.Code = reply.ErrorMessage, reply.ErrorType, reply.ErrorCode
		b, _ := json.Marshal(body) // a struct of strings always encodes
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			s.noteDisconnect()
		}
		flusher.Flush()
		return
	}
	if _, err := io.WriteString(w, "data: [DONE]\n\n"); err != nil {
		s.noteDisconnect()
		return
	}
	flusher.Flush()
}

// streamEvents renders the reply as the JSON payloads of its data events.
func streamEvents(chat *ChatRequest, reply Reply, id string) [][]byte {
	var events [][]byte
	add := func(choices []streamChoice, usage *usageJSON) {
		if choices == nil {
			choices = []streamChoice{}
		}
		b, _ := json.Marshal(streamChunk{ID: id, Object: "chat.completion.chunk", Model: chat.Model,
			Choices: choices, Usage: usage}) // plain structs always encode
		events = append(events, b)
	}
	empty := ""
	add([]streamChoice{{Delta: deltaJSON{Role: "assistant", Content: &empty}}}, nil)
	for _, d := range thinkingDeltas(reply.Thinking) {
		add([]streamChoice{{Delta: d}}, nil)
	}
	for _, piece := range split(reply.Text, reply.Chunks) {
		add([]streamChoice{{Delta: deltaJSON{Content: &piece}}}, nil)
	}
	for i, call := range reply.ToolCalls {
		idx := i
		first := ToolCall{Index: &idx, ID: call.ID, Type: "function", Function: FunctionCall{Name: call.Function.Name}}
		add([]streamChoice{{Delta: deltaJSON{ToolCalls: []ToolCall{first}}}}, nil)
		for _, frag := range split(call.Function.Arguments, max(1, reply.Fragments)) {
			add([]streamChoice{{Delta: deltaJSON{ToolCalls: []ToolCall{{Index: &idx, Function: FunctionCall{Arguments: frag}}}}}}, nil)
		}
	}
	if !reply.NoFinishReason {
		fr := finishReason(reply)
		add([]streamChoice{{Delta: deltaJSON{}, FinishReason: &fr}}, nil)
	}
	if chat.StreamOptions != nil && chat.StreamOptions.IncludeUsage && !reply.NoUsage {
		add(nil, usageOf(reply))
	}
	return events
}

// stall sends nothing more until the client goes away or the server closes.
func (s *Server) stall(ctx context.Context) {
	select {
	case <-ctx.Done():
		s.noteDisconnect()
	case <-s.closed:
	}
}

// complete writes the reply as one JSON completion.
func (s *Server) complete(w http.ResponseWriter, ctx context.Context, chat *ChatRequest, reply Reply, id string) {
	switch reply.Fault {
	case FaultStall:
		s.stall(ctx)
		return
	case FaultCut:
		panic(http.ErrAbortHandler)
	case FaultErrorEvent:
		writeError(w, http.StatusInternalServerError, reply.ErrorMessage, reply.ErrorType, reply.ErrorCode)
		return
	}
	msg := messageJSON{Role: "assistant"}
	if reply.Text != "" || len(reply.ToolCalls) == 0 {
		msg.Content = &reply.Text
	}
	if th := reply.Thinking; th != nil && th.Text != "" {
		msg.ReasoningContent = &th.Text
	}
	for _, c := range reply.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Type: "function", Function: c.Function})
	}
	choice := completionChoice{Message: msg}
	if !reply.NoFinishReason {
		fr := finishReason(reply)
		choice.FinishReason = &fr
	}
	out := completion{ID: id, Object: "chat.completion", Model: chat.Model, Choices: []completionChoice{choice}}
	if !reply.NoUsage {
		out.Usage = usageOf(reply)
	}
	writeJSON(w, http.StatusOK, out)
}

func finishReason(r Reply) string {
	switch {
	case r.FinishReason != "":
		return r.FinishReason
	case len(r.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func usageOf(r Reply) *usageJSON {
	if r.Usage == nil {
		return &usageJSON{}
	}
	u := &usageJSON{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens,
		TotalTokens: r.Usage.PromptTokens + r.Usage.CompletionTokens}
	if r.Usage.CachedTokens > 0 {
		u.PromptTokensDetails = &promptDetailsJSON{CachedTokens: r.Usage.CachedTokens}
	}
	if th := r.Thinking; th != nil && th.Tokens > 0 {
		u.CompletionTokensDetails = &completionDetailsJSON{ReasoningTokens: th.Tokens}
		if th.TokensBeside {
			u.TotalTokens += th.Tokens
		}
	}
	return u
}

// split cuts s into n pieces of nearly equal length, on rune boundaries; an empty s gives
// no pieces.
func split(s string, n int) []string {
	if s == "" {
		return nil
	}
	runes := []rune(s)
	n = max(1, min(n, len(runes)))
	out := make([]string, 0, n)
	for i := range n {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

// estimateUsage counts as domain.EstimateTokens does, leaving image data out: a data URL is
// far longer than what a provider charges for the image.
func estimateUsage(chat *ChatRequest, raw []byte, reply Reply) Usage {
	text := string(raw)
	images := 0
	for _, m := range chat.Messages {
		for _, u := range m.Content.ImageURLs() {
			text = strings.Replace(text, u, "", 1)
			images++
		}
	}
	out := reply.Text
	if reply.Thinking != nil {
		out += reply.Thinking.Text
	}
	for _, c := range reply.ToolCalls {
		out += c.Function.Name + c.Function.Arguments
	}
	return Usage{PromptTokens: max(1, domain.EstimateTokens(text, images)),
		CompletionTokens: max(1, domain.EstimateTokens(out, 0))}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b) // a client that left cannot be told
}

func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	var body errorBody
	body.Error.Message, body.Error.Type, body.Error.Code = msg, typ, code
	writeJSON(w, status, body)
}
