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
}

// Reply scripts one response. The zero value is an empty (but complete) reply: a role
// chunk, a finish reason "stop", usage and [DONE].
type Reply struct {
	// Text is streamed in Chunks pieces of nearly equal length (at least one).
	Text   string
	Chunks int
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
