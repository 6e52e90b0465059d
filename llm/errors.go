package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/providers"
)

// Error is a failed model request, classified for the core (REQ-BED-006).
type Error struct {
	Kind domain.ErrorKind
	// Status is the HTTP status, or 0 when there was no response or the failure came later.
	Status int
	// Message is written for a person: what went wrong, what to do, and the provider's own
	// words when it gave any.
	Message string
	// RetryAfter is the wait the provider asked for (Retry-After), or 0.
	RetryAfter time.Duration
	// Err is the underlying error, for errors.Is/As and logs.
	Err error
}

func (e *Error) Error() string { return e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Retryable reports whether another attempt may succeed.
func (e *Error) Retryable() bool { return e.Kind.Retryable() }

// errIdleTimeout is the cancellation cause set when the stream goes quiet for too long.
var errIdleTimeout = errors.New("no data from the provider within the idle timeout")

// newError builds an Error whose message starts with what to do.
func newError(kind domain.ErrorKind, status int, detail string, err error) *Error {
	return newErrorLead(kind.Describe(), kind, status, detail, err)
}

// quotaAdvice replaces the kind's advice for an exhausted quota, which is neither a model
// name problem nor something a retry fixes.
const quotaAdvice = "The provider account has no quota or credit left: check the plan and billing with the provider"

func newErrorLead(lead string, kind domain.ErrorKind, status int, detail string, err error) *Error {
	msg := lead
	switch {
	case status > 0 && detail != "":
		msg = fmt.Sprintf("%s (HTTP %d: %s)", msg, status, detail)
	case status > 0:
		msg = fmt.Sprintf("%s (HTTP %d)", msg, status)
	case detail != "":
		msg = fmt.Sprintf("%s (%s)", msg, detail)
	}
	return &Error{Kind: kind, Status: status, Message: msg, Err: err}
}

// respInfo receives the status and headers of the last HTTP response of one request, which
// go-openai does not expose on errors. The transport fills it; one request writes it before
// the client reads it, and both happen on the caller's goroutine or strictly before the
// response is returned to it, so it needs no lock.
type respInfo struct {
	status int
	header http.Header
	// body is the response body as the transport returned it, for drain.
	body io.ReadCloser
	// onRead, when set before the request, is called whenever body bytes arrive; Stream
	// uses it to push back the idle timeout.
	onRead func()
	// messageFields, when set before the request, are added to the request body's messages
	// by index: the reasoning fields go-openai's message type cannot carry.
	messageFields map[int]map[string]json.RawMessage
	// topFields, when set before the request, are added to the request body itself (a
	// route's own fields: cache.go).
	topFields map[string]json.RawMessage
	// requestBody, when set before the request, is sent in place of the body go-openai
	// encoded (requestbody.go).
	requestBody []byte
}

// activityBody reports every read that brought bytes. Counting bytes rather than parsed
// chunks keeps SSE comments (": keep-alive", which OpenRouter sends while a slow model
// thinks) from being mistaken for a stall.
type activityBody struct {
	io.ReadCloser
	onRead func()
}

func (b activityBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.onRead()
	}
	return n, err
}

// drainGrace bounds the wait for the end of a body after [DONE]. A well-behaved server has
// already sent it; a server that keeps the connection open costs this much, once.
const drainGrace = 100 * time.Millisecond

// drain reads what is left of the body after the stream's [DONE], so that net/http returns
// the connection to its pool: a body closed before its end closes the connection, and the
// next request pays a new TCP (and TLS) handshake.
func (i *respInfo) drain(cancel context.CancelCauseFunc) {
	if i.body == nil {
		return
	}
	t := time.AfterFunc(drainGrace, func() { cancel(errDrainTimeout) })
	defer t.Stop()
	// Whatever comes after [DONE] is of no use; a read error only means the connection
	// will not be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(i.body, 64<<10))
}

var errDrainTimeout = errors.New("the provider kept the stream open after its end")

type respInfoKey struct{}

// captureTransport records each response's status and headers into the respInfo found in
// the request's context.
type captureTransport struct{ base http.RoundTripper }

func (t captureTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if info, ok := req.Context().Value(respInfoKey{}).(*respInfo); ok && info.requestBody != nil && req.Body != nil {
		_ = req.Body.Close() // go-openai's encoding of the request without its messages and tools
		req = withBody(req, info.requestBody)
	}
	if info, ok := req.Context().Value(respInfoKey{}).(*respInfo); ok && (len(info.messageFields) > 0 || len(info.topFields) > 0) && req.Body != nil {
		patched, err := withMessageFields(req, info.messageFields, info.topFields)
		if err != nil {
			return nil, err
		}
		req = patched
	}
	resp, err := t.base.RoundTrip(req)
	if resp != nil {
		if info, ok := req.Context().Value(respInfoKey{}).(*respInfo); ok {
			info.status = resp.StatusCode
			info.header = resp.Header.Clone()
			if info.onRead != nil {
				resp.Body = activityBody{ReadCloser: resp.Body, onRead: info.onRead}
			}
			info.body = resp.Body
		}
	}
	return resp, err
}

// parseRetryAfter reads Retry-After in both forms the RFC allows (delay-seconds and
// HTTP-date), and the retry-after-ms header some providers add. Negative or unparsable
// values count as absent.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// contextLengthMarkers are the phrases providers use when a request is longer than the
// model's window: OpenAI, Anthropic, OpenRouter, vLLM, llama.cpp and Ollama.
var contextLengthMarkers = []string{
	"context_length_exceeded",
	"context length",
	"context window",
	"maximum context",
	"prompt is too long",
	"too many tokens",
	"reduce the length",
	"exceeds the context",
	"exceed_context_size",
	"input is too long",
}

func isContextLength(code, msg string) bool {
	s := strings.ToLower(code + " " + msg)
	for _, m := range contextLengthMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// kindForStatus maps an HTTP status to the core's error kinds.
func kindForStatus(status int, code, msg string) domain.ErrorKind {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return domain.ErrorAuth
	case status == http.StatusTooManyRequests:
		// OpenAI answers 429 also for an exhausted quota, which no retry will fix.
		if strings.Contains(code, "insufficient_quota") {
			return domain.ErrorInvalidRequest
		}
		return domain.ErrorRateLimit
	case status == http.StatusRequestTimeout || status == http.StatusGatewayTimeout:
		return domain.ErrorTimeout
	case status >= 500:
		return domain.ErrorServer
	case status == http.StatusBadRequest || status == http.StatusNotFound ||
		status == http.StatusRequestEntityTooLarge || status == http.StatusUnprocessableEntity:
		if isContextLength(code, msg) {
			return domain.ErrorContextLength
		}
		return domain.ErrorInvalidRequest
	case status >= 400:
		return domain.ErrorInvalidRequest
	}
	return domain.ErrorUnknown
}

func codeString(code any) string {
	switch c := code.(type) {
	case nil:
		return ""
	case string:
		return c
	default:
		return fmt.Sprint(c)
	}
}

// classify turns whatever go-openai or net/http returned into an *Error. It is called only
// when the caller's context is still live.
func classify(err error, info *respInfo, reqCtx context.Context, now time.Time, key string) *Error {
	e := classifyRaw(err, info, reqCtx)
	if e.Kind == domain.ErrorRateLimit || e.Kind == domain.ErrorServer || e.Kind == domain.ErrorTimeout {
		if info != nil && info.status == e.Status && e.Status != 0 {
			e.RetryAfter = parseRetryAfter(info.header, now)
		}
	}
	// A provider may echo part of the key in its message ("Incorrect API key provided:
	// sk-..."); the key must never reach a log or the screen. A "key" of a few characters
	// (local servers accept anything) is no secret, and replacing it everywhere would garble
	// the message, so it is left alone.
	if len(key) >= minSecretKeyLength {
		e.Message = strings.ReplaceAll(e.Message, key, providers.MaskKey(key))
	}
	return e
}

// minSecretKeyLength is the shortest key treated as a secret; real provider keys are far
// longer.
const minSecretKeyLength = 8

func classifyRaw(err error, info *respInfo, reqCtx context.Context) *Error {
	if errors.Is(context.Cause(reqCtx), errIdleTimeout) {
		return newError(domain.ErrorTimeout, 0, "the provider stopped sending data", errIdleTimeout)
	}
	var apiErr *openai.APIError
	if errors.As(err, &apiErr) {
		code := codeString(apiErr.Code)
		if apiErr.HTTPStatusCode > 0 {
			kind := kindForStatus(apiErr.HTTPStatusCode, code+" "+apiErr.Type, apiErr.Message)
			if strings.Contains(code, "insufficient_quota") {
				return newErrorLead(quotaAdvice, kind, apiErr.HTTPStatusCode, apiErr.Message, err)
			}
			return newError(kind, apiErr.HTTPStatusCode, apiErr.Message, err)
		}
		// An error event inside a 200 stream: the provider failed mid-answer.
		return newError(kindForStreamError(code+" "+apiErr.Type, apiErr.Message), 0,
			"error in the stream: "+apiErr.Message, err)
	}
	var reqErr *openai.RequestError
	if errors.As(err, &reqErr) {
		detail := strings.TrimSpace(string(reqErr.Body))
		if len(detail) > 300 {
			detail = detail[:300] + "…"
		}
		return newError(kindForStatus(reqErr.HTTPStatusCode, "", detail), reqErr.HTTPStatusCode, detail, err)
	}
	if errors.Is(err, openai.ErrTooManyEmptyStreamMessages) {
		return newError(domain.ErrorIncompleteResponse, 0, "the stream carried no data", err)
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return newError(domain.ErrorTimeout, 0, netErr.Error(), err)
	}
	var urlErr *url.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &urlErr) || errors.As(err, &netErr) {
		detail := err.Error()
		if info != nil && info.status == http.StatusOK {
			detail = "the connection broke mid-answer: " + detail
		}
		return newError(domain.ErrorNetwork, 0, detail, err)
	}
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return newError(domain.ErrorIncompleteResponse, 0, "the provider sent a malformed chunk: "+err.Error(), err)
	}
	return newError(domain.ErrorUnknown, 0, err.Error(), err)
}

// kindForStreamError classifies an error event that arrived inside a successful stream by
// its code, since there is no status to go by. Unknown codes count as a server failure:
// the provider accepted the request and then broke, which a retry usually cures.
func kindForStreamError(code, msg string) domain.ErrorKind {
	c := strings.ToLower(code)
	switch {
	case isContextLength(code, msg):
		return domain.ErrorContextLength
	case strings.Contains(c, "rate_limit"):
		return domain.ErrorRateLimit
	case strings.Contains(c, "invalid_request"):
		return domain.ErrorInvalidRequest
	case strings.Contains(c, "authentication") || strings.Contains(c, "permission"):
		return domain.ErrorAuth
	}
	return domain.ErrorServer
}
