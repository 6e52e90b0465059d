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

// chatWire is a chat request as it arrives, its tools and messages kept as sent.
type chatWire struct {
	Model               string          `json:"model"`
	Messages            json.RawMessage `json:"messages"`
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

// decodeChat decodes a chat completions body; prompt is its tools then its messages, the
// bytes the prefix cache compares.
func (s *Server) decodeChat(body []byte) (chat *ChatRequest, prompt []byte, err error) {
	var w chatWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, nil, err
	}
	c := &ChatRequest{Model: w.Model, Stream: w.Stream, StreamOptions: w.StreamOptions,
		MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens}
	if isJSONValue(w.Messages) {
		if err := json.Unmarshal(w.Messages, &c.Messages); err != nil {
			return nil, nil, err
		}
	}
	if isJSONValue(w.Tools) {
		if c.Tools, err = s.decodeTools(w.Tools); err != nil {
			return nil, nil, err
		}
	}
	prompt = make([]byte, 0, len(w.Tools)+len(w.Messages))
	prompt = append(append(prompt, w.Tools...), w.Messages...)
	return c, prompt, nil
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
