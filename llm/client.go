package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/providers"
)

// BlobSource gives the bytes of stored images (the store's blob area).
type BlobSource interface {
	Blob(sha256 string) ([]byte, error)
}

// Request is one model call.
type Request struct {
	// Model overrides the configured model when set.
	Model  string
	System string
	// History is the conversation's stored messages, in order.
	History []domain.Message
	// Tools are offered to the model; none makes a tool-less request.
	Tools []domain.ToolSpec
	// ExtraUserText is appended as a final user message and is not part of the history,
	// such as the continuation prompt (REQ-BED-020).
	ExtraUserText string
	// MaxOutputTokens bounds the reply; it is sent as max_tokens, or as
	// max_completion_tokens where the model table says so (domain.UsesMaxCompletionTokens).
	// Zero sends no limit.
	MaxOutputTokens int
	// ReasoningEffort is sent as reasoning_effort to a model that thinks (domain.Thinks),
	// one of domain.ReasoningEfforts; "" leaves the provider's default.
	ReasoningEffort string
}

// DeltaKind says what a streamed piece is.
type DeltaKind int

const (
	// DeltaText is a piece of the answer.
	DeltaText DeltaKind = iota
	// DeltaReasoning is a piece of a thinking model's reasoning, which comes before the
	// answer and is not part of it.
	DeltaReasoning
)

// Delta is one streamed piece.
type Delta struct {
	Kind DeltaKind
	Text string
}

// Response is a complete answer.
type Response struct {
	Text      string
	ToolCalls []domain.ToolCall
	// Reasoning is what a thinking model thought before answering, or nil.
	Reasoning *domain.Reasoning
	Usage     domain.Usage
	// UsageEstimated is true when the provider sent no usage and Usage was estimated from
	// the characters sent and received (about four per token).
	UsageEstimated bool
	// FinishReason is the provider's own word; StopReason is what the core acts on (empty
	// for a normal end).
	FinishReason string
	StopReason   domain.StopReason
}

// Client talks to one OpenAI-compatible endpoint. It is safe for concurrent use.
type Client struct {
	cfg   Config
	api   *openai.Client
	blobs BlobSource
	// now is the clock used for Retry-After dates; tests replace it.
	now func() time.Time

	// images caches prepared data URLs by content hash and limits, so that a long history
	// with screenshots is not decoded again for every request. mu guards it and imgBytes.
	mu       sync.Mutex
	images   map[imageKey]string
	imgBytes int

	// bodies encodes the requests' bodies (requestbody.go).
	bodies requestBodies
}

type imageKey struct {
	sha string
	lim imaging.Limits
}

// maxImageCache bounds the cached data URLs, in characters.
const maxImageCache = 64 << 20

// New builds a client. blobs may be nil when no image will ever be sent.
func New(cfg Config, blobs BlobSource) (*Client, error) {
	return newClient(cfg, blobs, nil)
}

// newClient lets tests and benchmarks replace the network transport.
func newClient(cfg Config, blobs BlobSource, base http.RoundTripper) (*Client, error) {
	if cfg.BaseURL == "" {
		return nil, fmt.Errorf("create LLM client: no base URL is configured: set one in Settings or %s", providers.EnvBaseURL)
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if base == nil {
		dialer := &net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
		base = &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           dialer.DialContext,
			TLSHandshakeTimeout:   cfg.ConnectTimeout,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          16,
			IdleConnTimeout:       90 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	// No overall timeout on the client: a streamed answer may legitimately take minutes.
	// The idle timer in Stream catches a stalled one.
	oc.HTTPClient = &http.Client{Transport: captureTransport{base: base}}
	// go-openai gives up after this many non-data lines in a row. SSE comments sent as
	// keep-alives while a slow model thinks are such lines, and the idle timeout already
	// catches a stream that carries nothing, so the limit only needs to stop a runaway.
	oc.EmptyMessagesLimit = 100_000
	return &Client{
		cfg:    cfg,
		api:    openai.NewClientWithConfig(oc),
		blobs:  blobs,
		now:    time.Now,
		images: map[imageKey]string{},
	}, nil
}

// Stream sends the request and calls onDelta with each piece of text or reasoning as it
// arrives, on the calling goroutine. It returns the complete response, an *Error, or ctx's
// error when ctx was cancelled; never a partial response with a nil error.
func (c *Client) Stream(ctx context.Context, req Request, onDelta func(Delta)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	model := req.Model
	if model == "" {
		model = c.cfg.Model
	}
	if model == "" {
		return Response{}, newError(domain.ErrorInvalidRequest, 0, "no model is configured", nil)
	}
	// REQ-BED-013: a text-only model never receives an image. Send refuses new ones; images
	// already in the history (the conversation switched to this model) are replaced by a
	// placeholder that names them, so the model knows something was there.
	vision := SupportsVision(model)
	lim := imaging.LimitsForModel(model)
	load := func(ref domain.ImageRef) (string, error) { return c.imageURL(ref, lim) }
	if !vision {
		load = nil
	}
	msgs, extras, _, err := convertHistory(req.System, req.History, req.ExtraUserText, load,
		reasoningReturnFor(c.cfg.BaseURL, model))
	if err != nil {
		return Response{}, newError(domain.ErrorInvalidRequest, 0,
			fmt.Sprintf("the conversation could not be prepared: %v", err), err)
	}
	if needsBreakpoints(c.cfg.BaseURL, model) {
		extras = addBreakpoints(msgs, extras)
	}
	creq := openai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
	}
	if n := req.MaxOutputTokens; n > 0 {
		if domain.UsesMaxCompletionTokens(model) {
			creq.MaxCompletionTokens = n
		} else {
			// Deprecated by OpenAI for its own API only; the compatible servers this path
			// serves (Ollama, OpenRouter, llama.cpp, vLLM) read max_tokens.
			//lint:ignore SA1019 compatible servers read max_tokens, not max_completion_tokens
			creq.MaxTokens = n
		}
	}
	// Only a thinking model is sent an effort: the others reject the field.
	if req.ReasoningEffort != "" && domain.Thinks(model) {
		creq.ReasoningEffort = req.ReasoningEffort
	}
	for _, t := range req.Tools {
		creq.Tools = append(creq.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters,
		}})
	}

	// The request context is cancelled by the caller, or by the idle timer with
	// errIdleTimeout as the cause; cancelling it aborts the HTTP request at once.
	reqCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(c.cfg.IdleTimeout, func() { cancel(errIdleTimeout) })
	defer idle.Stop()
	info := &respInfo{onRead: func() { idle.Reset(c.cfg.IdleTimeout) }, messageFields: extras,
		topFields: requestTopFields(c.cfg.BaseURL)}
	reqCtx = context.WithValue(reqCtx, respInfoKey{}, info)

	fail := func(err error) (Response, error) {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Response{}, ctxErr
		}
		return Response{}, classify(err, info, reqCtx, c.now(), c.cfg.APIKey)
	}

	// go-openai is handed the request without what the body carries already; should the
	// encoding fail, go-openai's own encoding fails alike and says why.
	apiReq := creq
	if body, err := c.bodies.encode(creq); err == nil {
		info.requestBody = body
		apiReq.Messages, apiReq.Tools = nil, nil
	}
	stream, err := c.api.CreateChatCompletionStream(reqCtx, apiReq)
	if err != nil {
		return fail(err)
	}
	defer stream.Close()

	asm := newAssembler(req.History)
	for {
		// The raw chunk is read so that the reasoning fields go-openai does not know
		// (reasoning, reasoning_details) are not lost.
		raw, err := stream.RecvRaw()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		var chunk openai.ChatCompletionStreamResponse
		if err := json.Unmarshal(raw, &chunk); err != nil {
			return fail(err)
		}
		var extra *reasoningDelta
		if mayCarryReasoning(raw) {
			extra = &reasoningDelta{}
			if err := json.Unmarshal(raw, extra); err != nil {
				return fail(err)
			}
		}
		if chunk.Usage != nil && mayCarryUsage(raw) {
			if f, ok := readUsageExtra(raw); ok {
				asm.figures = f
			}
		}
		asm.add(chunk, extra, onDelta)
	}
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	if context.Cause(reqCtx) != nil {
		// The idle timer fired between the last chunk and the end of the stream.
		return fail(context.Cause(reqCtx))
	}
	resp, ierr := asm.result()
	if ierr != nil {
		return Response{}, ierr
	}
	if resp.Usage.Total() == 0 {
		resp.Usage = estimateUsage(msgs, req.Tools, resp)
		resp.UsageEstimated = true
	}
	resp.Usage.Model = model
	info.drain(cancel)
	return resp, nil
}

// imageURL loads and prepares a stored image for the model, caching the result.
func (c *Client) imageURL(ref domain.ImageRef, lim imaging.Limits) (string, error) {
	key := imageKey{sha: ref.SHA256, lim: lim}
	c.mu.Lock()
	url, ok := c.images[key]
	c.mu.Unlock()
	if ok {
		return url, nil
	}
	if c.blobs == nil {
		return "", fmt.Errorf("image %s cannot be loaded: no image store is connected", ref.SHA256)
	}
	data, err := c.blobs.Blob(ref.SHA256)
	if err != nil {
		return "", fmt.Errorf("load image %s (%s) from the store: %w", ref.SHA256, ref.Name, err)
	}
	p, err := imaging.Prepare(data, lim)
	if err != nil {
		return "", fmt.Errorf("prepare image %s (%s): %w", ref.SHA256, ref.Name, err)
	}
	url = imaging.DataURL(p.MediaType, p.Data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.imgBytes+len(url) > maxImageCache {
		c.images, c.imgBytes = map[imageKey]string{}, 0
	}
	if _, dup := c.images[key]; !dup {
		c.images[key] = url
		c.imgBytes += len(url)
	}
	return url, nil
}

// ListModels returns the model ids the endpoint offers, sorted.
func (c *Client) ListModels(ctx context.Context) ([]string, error) {
	info := &respInfo{}
	reqCtx, cancel := context.WithTimeout(context.WithValue(ctx, respInfoKey{}, info), c.cfg.IdleTimeout)
	defer cancel()
	list, err := c.api.ListModels(reqCtx)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, newError(domain.ErrorTimeout, 0, "listing the models took too long", err)
		}
		return nil, classify(err, info, reqCtx, c.now(), c.cfg.APIKey)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids, nil
}

// assembler accumulates stream chunks into one response.
type assembler struct {
	text         strings.Builder
	reasoning    reasoningAssembler
	think        inlineThink
	calls        []*callBuilder
	byIdx        map[int]*callBuilder
	finishReason string
	usage        *openai.Usage
	// figures are the cache and cost figures of the last usage (usage.go).
	figures usageFigures
	// taken holds the tool call ids of the history, so generated ids never collide.
	taken map[string]bool
	// prior counts the tool calls of the history, the start of generated numbering.
	prior int
}

type callBuilder struct {
	id, name string
	args     strings.Builder
}

func newAssembler(history []domain.Message) *assembler {
	a := &assembler{byIdx: map[int]*callBuilder{}, taken: map[string]bool{}}
	for _, m := range history {
		for _, c := range m.ToolCalls {
			a.taken[c.ID] = true
			a.prior++
		}
	}
	return a
}

// add folds one chunk in and passes the pieces it carried to emit (when not nil):
// reasoning, then text. extra is the chunk's reasoning fields that go-openai does not
// decode, or nil when it has none.
func (a *assembler) add(chunk openai.ChatCompletionStreamResponse, extra *reasoningDelta, emit func(Delta)) {
	if chunk.Usage != nil {
		a.usage = chunk.Usage
	}
	if emit == nil {
		emit = func(Delta) {}
	}
	for i, ch := range chunk.Choices {
		// Only the first choice is ever requested (n is unset).
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		var plain *string
		var details []map[string]any
		if extra != nil && i < len(extra.Choices) {
			plain, details = extra.Choices[i].Delta.Reasoning, extra.Choices[i].Delta.ReasoningDetails
		}
		if d.ReasoningContent != "" || plain != nil || details != nil {
			if r := a.reasoning.add(d.ReasoningContent, plain, details); r != "" {
				emit(Delta{Kind: DeltaReasoning, Text: r})
			}
		}
		if d.Content != "" {
			reasoning, text := a.think.split(d.Content)
			if reasoning != "" {
				a.reasoning.text.WriteString(reasoning)
				emit(Delta{Kind: DeltaReasoning, Text: reasoning})
			}
			if text != "" {
				a.text.WriteString(text)
				emit(Delta{Kind: DeltaText, Text: text})
			}
		}
		// A refusal is the model's answer in another field; the person must see it.
		if d.Refusal != "" {
			a.text.WriteString(d.Refusal)
			emit(Delta{Kind: DeltaText, Text: d.Refusal})
		}
		for _, tc := range d.ToolCalls {
			a.addCall(tc)
		}
		if ch.FinishReason != "" {
			a.finishReason = string(ch.FinishReason)
		}
	}
}

// addCall assembles tool calls by their index, the only field OpenAI promises on every
// fragment. Providers that omit the index send each call whole, or continue the last one
// with fragments that carry no id.
func (a *assembler) addCall(tc openai.ToolCall) {
	var b *callBuilder
	switch {
	case tc.Index != nil:
		b = a.byIdx[*tc.Index]
		if b == nil {
			b = &callBuilder{}
			a.byIdx[*tc.Index] = b
			a.calls = append(a.calls, b)
		}
	case len(a.calls) > 0 && (tc.ID == "" || tc.ID == a.calls[len(a.calls)-1].id):
		b = a.calls[len(a.calls)-1]
	default:
		b = &callBuilder{}
		a.calls = append(a.calls, b)
	}
	if b.id == "" {
		b.id = tc.ID
	}
	// Some servers repeat the whole name on every fragment; others split it.
	if n := tc.Function.Name; n != "" && n != b.name {
		b.name += n
	}
	b.args.WriteString(tc.Function.Arguments)
}

// result checks completeness and gives every call a unique id.
func (a *assembler) result() (Response, error) {
	reasoning, text := a.think.flush()
	a.reasoning.text.WriteString(reasoning)
	a.text.WriteString(text)
	if a.finishReason == "" {
		return Response{}, newError(domain.ErrorIncompleteResponse, 0,
			"the stream ended without a finish reason", nil)
	}
	if a.text.Len() == 0 && len(a.calls) == 0 && StopReasonOf(a.finishReason) == domain.StopLength {
		// A reasoning model can spend the whole output limit thinking; asking again the same
		// way would end the same way, so this is not retried.
		return Response{}, newError(domain.ErrorOutputLimit, 0,
			"the model used its whole output limit without writing an answer (reasoning models spend part of it thinking): raise the model's output limit, or ask for less at once", nil)
	}
	if a.text.Len() == 0 && len(a.calls) == 0 {
		return Response{}, newError(domain.ErrorIncompleteResponse, 0,
			fmt.Sprintf("the answer was empty (finish reason %q)", a.finishReason), nil)
	}
	resp := Response{Text: a.text.String(), Reasoning: a.reasoning.result(), FinishReason: a.finishReason,
		StopReason: StopReasonOf(a.finishReason)}
	next := a.prior
	seen := map[string]bool{}
	for i, b := range a.calls {
		if b.name == "" {
			return Response{}, newError(domain.ErrorIncompleteResponse, 0,
				fmt.Sprintf("tool call %d arrived without a name", i), nil)
		}
		id := b.id
		// An id the provider omitted, or one repeated within this answer, is replaced by a
		// deterministic one that the history does not use: providers match results to
		// calls by id, so two calls must never share one.
		if id == "" || seen[id] {
			for {
				next++
				id = fmt.Sprintf("call_%d", next)
				if !a.taken[id] && !seen[id] {
					break
				}
			}
		}
		seen[id] = true
		// Malformed JSON is passed on unchanged: the core answers the call with an error
		// result that tells the model what was wrong.
		resp.ToolCalls = append(resp.ToolCalls, domain.ToolCall{ID: id, Name: b.name, Arguments: b.args.String()})
	}
	if u := a.usage; u != nil {
		reasoning := 0
		if u.CompletionTokensDetails != nil {
			reasoning = u.CompletionTokensDetails.ReasoningTokens
		}
		out := outputTokens(u.PromptTokens, u.CompletionTokens, u.TotalTokens, reasoning)
		resp.Usage = domain.Usage{InputTokens: u.PromptTokens, OutputTokens: out, ReasoningTokens: min(reasoning, out)}
		if resp.Usage.Total() == 0 && u.TotalTokens > 0 {
			resp.Usage.InputTokens = u.TotalTokens
		}
		resp.Usage = a.figures.apply(resp.Usage)
	}
	return resp, nil
}

// StopReasonOf maps a provider's finish reason onto the core's StopReason: the normal ends of
// OpenAI and of the Anthropic-style endpoints are empty, the cut-offs at the output limit are
// StopLength, filters are StopContentFilter, and anything else is kept as the provider said it
// (lower case) so the person sees the provider's word.
func StopReasonOf(finish string) domain.StopReason {
	switch f := strings.ToLower(strings.TrimSpace(finish)); f {
	case "stop", "tool_calls", "function_call", "end_turn", "stop_sequence", "tool_use", "eos":
		return ""
	case "length", "max_tokens", "max_output_tokens":
		return domain.StopLength
	case "content_filter", "safety", "refusal", "prohibited_content", "blocklist", "spii":
		return domain.StopContentFilter
	default:
		return domain.StopReason(f)
	}
}

// estimateUsage guesses tokens at four characters each, for servers that ignore
// stream_options.include_usage. An estimate keeps the context thresholds working
// (REQ-BED-019); zero would disable them. Images count a flat 1000 tokens, roughly what a
// provider charges for a screenshot, rather than the length of their base64.
func estimateUsage(msgs []openai.ChatCompletionMessage, tools []domain.ToolSpec, resp Response) domain.Usage {
	var text strings.Builder
	images := 0
	for _, m := range msgs {
		text.WriteString(m.Content)
		text.WriteString(m.ReasoningContent)
		for _, p := range m.MultiContent {
			if p.ImageURL != nil {
				images++
			} else {
				text.WriteString(p.Text)
			}
		}
		for _, tc := range m.ToolCalls {
			text.WriteString(tc.Function.Name)
			text.WriteString(tc.Function.Arguments)
		}
	}
	for _, t := range tools {
		text.WriteString(t.Name)
		text.WriteString(t.Description)
		text.Write(t.Parameters)
	}
	var out strings.Builder
	out.WriteString(resp.Text)
	for _, tc := range resp.ToolCalls {
		out.WriteString(tc.Name)
		out.WriteString(tc.Arguments)
	}
	reasoning := 0
	if resp.Reasoning != nil {
		reasoning = domain.EstimateTokens(resp.Reasoning.Text, 0)
	}
	return domain.Usage{InputTokens: max(1, domain.EstimateTokens(text.String(), images)),
		OutputTokens: max(1, domain.EstimateTokens(out.String(), 0)+reasoning), ReasoningTokens: reasoning}
}
