package fakellm

import (
	"bytes"
	"encoding/json"
	"slices"
)

// A chat request is decoded once (issue 39: the demo server answers in the app's own process,
// so what it spends is the CLI's round too): the body is split into its tools and messages as
// they were sent, the messages are decoded, and the tools — the same some 15 KB in every
// request of a conversation — are decoded again only when their bytes change. The prefix-cache
// accounting (cache.go) reads the same split instead of decoding the body a second time.
//
// A conversation's next request is the last one with messages added at the end of the
// messages array, everything around that array the same bytes (the client encodes each part
// once: llm/requestbody.go). So the server keeps the last body's bytes around its messages
// (bodyMemo): a body that starts and ends with those bytes, and carries an array between them,
// is the last request with other messages, and only those are decoded — and of them only the
// ones after the messages the last request had, when it starts with them. Anything else is
// decoded whole, as before. This halved what the demo server spends on a round of a headless
// chat (issue 39: encoding/json's scan of the whole body, some 20 KB, was 0.25 ms of it).

// chatWire is a chat request as it arrives, its tools and messages kept as sent.
type chatWire struct {
	Model               string          `json:"model"`
	Messages            sentValue       `json:"messages"`
	Tools               json.RawMessage `json:"tools,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       *StreamOptions  `json:"stream_options,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
}

// toolsMemo is the last tools array decoded and its bytes; guarded by Server.mu.
type toolsMemo struct {
	raw   []byte
	tools []Tool
}

// sentValue is a value kept as sent, with where it lies in the body: encoding/json hands an
// Unmarshaler the bytes of the value as a slice of the body it decodes, so the slice's
// capacity tells its offset (bodyAround checks it is one).
type sentValue struct{ raw []byte }

func (v *sentValue) UnmarshalJSON(b []byte) error { v.raw = b; return nil }

// bodyMemo is what the last chat body decoded whole left for the next one; guarded by
// Server.mu. head and tail are the body's bytes before and after its messages array.
type bodyMemo struct {
	head, tail []byte
	// wire is the last body's fields but its messages.
	wire chatWire
	// msgsRaw is the last messages array as sent, msgs what it decoded to.
	msgsRaw []byte
	msgs    []Message
}

// decodeChat decodes a chat completions body; prompt is its tools then its messages, the
// bytes the prefix cache compares.
func (s *Server) decodeChat(body []byte) (chat *ChatRequest, prompt []byte, err error) {
	s.mu.Lock()
	memo := s.body
	s.mu.Unlock()
	if c, prompt, ok := s.decodeAround(memo, body); ok {
		return c, prompt, nil
	}
	var w chatWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, nil, err
	}
	c := &ChatRequest{Model: w.Model, Stream: w.Stream, StreamOptions: w.StreamOptions,
		MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens}
	msgs := w.Messages.raw
	if isJSONValue(msgs) {
		if err := json.Unmarshal(msgs, &c.Messages); err != nil {
			return nil, nil, err
		}
	}
	if isJSONValue(w.Tools) {
		if c.Tools, err = s.decodeTools(w.Tools); err != nil {
			return nil, nil, err
		}
	}
	if head, tail, ok := bodyAround(body, msgs); ok && isArray(msgs) {
		w.Messages = sentValue{}    // a slice of body, which the memo must not hold
		if w.StreamOptions != nil { // c holds the one decoded, and the caller may change it
			so := *w.StreamOptions
			w.StreamOptions = &so
		}
		s.remember(bodyMemo{head: bytes.Clone(head), tail: bytes.Clone(tail), wire: w}, msgs, c.Messages)
	}
	prompt = make([]byte, 0, len(w.Tools)+len(msgs))
	prompt = append(append(prompt, w.Tools...), msgs...)
	return c, prompt, nil
}

// decodeAround decodes body with memo when body is memo's body with another messages array:
// the same bytes before and after it. It reports false for any other body, and for one whose
// messages do not decode (the whole decode then says why).
func (s *Server) decodeAround(memo bodyMemo, body []byte) (*ChatRequest, []byte, bool) {
	if memo.head == nil || len(body) < len(memo.head)+len(memo.tail) ||
		!bytes.HasPrefix(body, memo.head) || !bytes.HasSuffix(body, memo.tail) {
		return nil, nil, false
	}
	raw := body[len(memo.head) : len(body)-len(memo.tail)]
	if !isArray(raw) {
		return nil, nil, false
	}
	// A value replaced by another valid one leaves the body valid and every other field as
	// it was; decoding the new array checks that it is one.
	var msgs []Message
	switch old := memo.msgsRaw; {
	case bytes.Equal(raw, old):
		msgs = slices.Clone(memo.msgs)
	case len(memo.msgs) > 0 && len(raw) > len(old) && bytes.Equal(raw[:len(old)-1], old[:len(old)-1]) && raw[len(old)-1] == ',':
		// The old array less its "]", a comma, then more elements and the "]": the old
		// elements as decoded, and the new ones decoded as an array of their own. None
		// after the comma would be a trailing comma, which is not JSON.
		var more []Message
		rest := append([]byte{'['}, raw[len(old):]...)
		if err := json.Unmarshal(rest, &more); err != nil || len(more) == 0 {
			return nil, nil, false
		}
		msgs = append(slices.Clone(memo.msgs), more...)
	default:
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return nil, nil, false
		}
	}
	w := memo.wire
	c := &ChatRequest{Model: w.Model, Stream: w.Stream, StreamOptions: w.StreamOptions,
		MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens, Messages: msgs}
	if w.StreamOptions != nil {
		so := *w.StreamOptions
		c.StreamOptions = &so
	}
	if isJSONValue(w.Tools) {
		tools, err := s.decodeTools(w.Tools)
		if err != nil {
			return nil, nil, false
		}
		c.Tools = tools
	}
	s.remember(memo, raw, msgs)
	prompt := make([]byte, 0, len(w.Tools)+len(raw))
	prompt = append(append(prompt, w.Tools...), raw...)
	return c, prompt, true
}

// remember keeps memo, with msgsRaw (copied) decoded to msgs, for the next body.
func (s *Server) remember(memo bodyMemo, msgsRaw []byte, msgs []Message) {
	memo.msgsRaw, memo.msgs = bytes.Clone(msgsRaw), slices.Clone(msgs)
	s.mu.Lock()
	s.body = memo
	s.mu.Unlock()
}

// bodyAround returns the bytes of body before and after v, a slice of it; false when v is
// not one (a decoder that copied the value).
func bodyAround(body, v []byte) (head, tail []byte, ok bool) {
	if len(v) == 0 {
		return nil, nil, false
	}
	off := cap(body) - cap(v)
	if off < 0 || off+len(v) > len(body) || &body[off] != &v[0] {
		return nil, nil, false
	}
	return body[:off], body[off+len(v):], true
}

// isArray reports whether raw is bracketed as an array, with no space around (as a decoder
// hands it over).
func isArray(raw []byte) bool {
	return len(raw) >= 2 && raw[0] == '[' && raw[len(raw)-1] == ']'
}

// decodeTools decodes a tools array, or copies the last one when the bytes are the same.
func (s *Server) decodeTools(raw json.RawMessage) ([]Tool, error) {
	s.mu.Lock()
	memo := s.tools
	s.mu.Unlock()
	if memo.raw != nil && bytes.Equal(memo.raw, raw) {
		return slices.Clone(memo.tools), nil
	}
	var tools []Tool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.tools = toolsMemo{raw: bytes.Clone(raw), tools: tools}
	s.mu.Unlock()
	return slices.Clone(tools), nil
}

// isJSONValue is false for an absent field and for null, which leave the field as it is.
func isJSONValue(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}
