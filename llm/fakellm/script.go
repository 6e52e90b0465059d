package fakellm

import (
	"net/http"
	"time"
)

// Fault is a way for a reply to break after some of its chunks were written.
type Fault int

const (
	// FaultNone completes the reply.
	FaultNone Fault = iota
	// FaultStall writes FaultAfter chunks and then sends nothing more until the client goes
	// away (or the server closes).
	FaultStall
	// FaultCut writes FaultAfter chunks and then drops the connection without ending the
	// chunked body, as a dying proxy would.
	FaultCut
	// FaultErrorEvent writes FaultAfter chunks and then an SSE error event
	// (data: {"error": ...}) with ErrorMessage, ErrorType and ErrorCode, and ends.
	FaultErrorEvent
)

// Usage is the token count a reply reports.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	// CachedTokens is the part of PromptTokens reported as read from the prompt cache
	// (prompt_tokens_details.cached_tokens); estimated usage fills it in (cache.go).
	CachedTokens int
}

// Thinking scripts a thinking model's reasoning, streamed before the reply's text in the
// fields real providers use. Several fields may carry the same piece, as they do on the
// wire: Kimi behind some hosts sends reasoning_content and reasoning_details together,
// OpenRouter sends reasoning and reasoning_details.
type Thinking struct {
	// Text is streamed in Chunks pieces (at least one).
	Text   string
	Chunks int
	// Content sends each piece as delta.reasoning_content (DeepSeek, xAI, GLM, llama.cpp).
	Content bool
	// Plain sends each piece as delta.reasoning (OpenRouter, Vercel's gateway, Ollama).
	Plain bool
	// Details sends each piece as a reasoning_details entry of type "reasoning.text", or
	// "reasoning.summary" when Summary is set (OpenAI and xAI models behind a gateway),
	// with Format as its format.
	Details bool
	Summary bool
	Format  string
	// Signature, when set, ends the text with an entry that carries only this signature,
	// as Anthropic's models do behind OpenRouter.
	Signature string
	// Encrypted, when set, ends the reasoning with one "reasoning.encrypted" entry holding
	// this data (and EncryptedID as its id), which is all Gemini sends of its thinking.
	Encrypted, EncryptedID string
	// Tokens is reported as completion_tokens_details.reasoning_tokens. They are part of
	// completion_tokens, unless TokensBeside is set: then they are counted beside it, and
	// total_tokens is the sum of prompt, completion and reasoning, as xAI reports them.
	Tokens       int
	TokensBeside bool
}

// Reply scripts one response. The zero value is an empty (but complete) reply: a role
// chunk, a finish reason "stop", usage and [DONE].
type Reply struct {
	// Text is streamed in Chunks pieces of nearly equal length (at least one).
	Text   string
	Chunks int
	// Thinking, when set, is streamed before the text.
	Thinking *Thinking
	// RejectReasoning answers 400 with DeepSeek's wording, instead of this reply, when a
	// message of the request carries reasoning_content.
	RejectReasoning bool
	// ToolCalls are streamed one after the other, each as a first fragment with index, id,
	// type and name, followed by its arguments in Fragments pieces. An empty ID is left
	// out of the stream, as some providers do. Arguments are sent as given, so malformed
	// JSON can be scripted.
	ToolCalls []ToolCall
	Fragments int
	// Usage is reported when the request asks for it; nil means the server's estimate.
	Usage *Usage
	// NoUsage leaves the usage chunk out even when the request asks for it.
	NoUsage bool
	// FinishReason defaults to "tool_calls" when there are tool calls, else "stop".
	FinishReason string
	// NoFinishReason ends the stream (with [DONE]) without any finish reason.
	NoFinishReason bool

	// Status, when not 0 or 200, answers with that status and an OpenAI-style error body
	// instead of a completion.
	Status int
	// RetryAfter is sent as the Retry-After header when not empty (seconds or HTTP-date).
	RetryAfter string
	// ErrorMessage, ErrorType and ErrorCode fill the error body or error event.
	ErrorMessage, ErrorType, ErrorCode string

	// Fault breaks the stream after FaultAfter chunks (the role chunk counts as one).
	Fault      Fault
	FaultAfter int

	// FirstByteDelay waits before the response headers are sent.
	FirstByteDelay time.Duration
	// ChunkDelay waits before each chunk after the first, and before each heartbeat.
	ChunkDelay time.Duration
	// Heartbeats sends that many SSE comment lines (": keep-alive") before the first chunk,
	// as providers do while a slow model thinks.
	Heartbeats int
}

// Call is a scripted tool call.
func Call(id, name, arguments string) ToolCall {
	return ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name, Arguments: arguments}}
}

// Text is a reply of text streamed in the given number of chunks.
func Text(text string, chunks int) Reply { return Reply{Text: text, Chunks: chunks} }

// Calls is a reply of tool calls, each argument string streamed in three fragments.
func Calls(calls ...ToolCall) Reply { return Reply{ToolCalls: calls, Fragments: 3} }

// Failure is an error response with the given status and message.
func Failure(status int, message string) Reply {
	r := Reply{Status: status, ErrorMessage: message, ErrorType: errorType(status)}
	if status == http.StatusTooManyRequests {
		r.ErrorCode = "rate_limit_exceeded"
	}
	return r
}

// RateLimited is a 429 with the given Retry-After header value.
func RateLimited(retryAfter string) Reply {
	r := Failure(http.StatusTooManyRequests, "Rate limit reached for requests")
	r.RetryAfter = retryAfter
	return r
}

// ContextLength is the 400 OpenAI sends when the request exceeds the model's window.
func ContextLength() Reply {
	r := Failure(http.StatusBadRequest, "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.")
	r.ErrorCode = "context_length_exceeded"
	return r
}

func errorType(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "authentication_error"
	case status == http.StatusTooManyRequests:
		return "rate_limit_error"
	case status >= 500:
		return "server_error"
	}
	return "invalid_request_error"
}
