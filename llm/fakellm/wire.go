package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ChatRequest is the part of a chat completions request the server understands. It is
// decoded with its own types, not the client's, so that tests check what went over the wire.
type ChatRequest struct {
	Model         string         `json:"model"`
	Messages      []Message      `json:"messages"`
	Tools         []Tool         `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
	// MaxTokens and MaxCompletionTokens bound the reply (OutputLimit); clients send one.
	MaxTokens           int `json:"max_tokens,omitempty"`
	MaxCompletionTokens int `json:"max_completion_tokens,omitempty"`
}

// OutputLimit is the reply limit the request asked for, in tokens; zero when it set none.
func (c *ChatRequest) OutputLimit() int {
	if c.MaxCompletionTokens > 0 {
		return c.MaxCompletionTokens
	}
	return c.MaxTokens
}

// StreamOptions asks for a final usage chunk.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// Tool is one offered function.
type Tool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

// Message is one message of a request.
type Message struct {
	Role       string     `json:"role"`
	Content    Content    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// ReasoningFields are the reasoning a client sent back with an assistant message.
	ReasoningFields
}

// ReasoningFields are the three fields reasoning travels in, in a stream's deltas and in a
// request's assistant messages.
type ReasoningFields struct {
	ReasoningContent *string          `json:"reasoning_content,omitempty"`
	Reasoning        *string          `json:"reasoning,omitempty"`
	ReasoningDetails []ReasoningEntry `json:"reasoning_details,omitempty"`
}

// ReasoningEntry is one reasoning_details entry, streamed or sent back.
type ReasoningEntry struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`
	ID        string `json:"id,omitempty"`
	Format    string `json:"format,omitempty"`
	Index     int    `json:"index"`
}

// Content is a message's content: a plain string, or a list of text and image parts.
type Content struct {
	Text  string
	Parts []Part
}

// Part is one element of a multi-part content.
type Part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL holds an image, as a data URL when it comes from this app.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// UnmarshalJSON accepts a string, a part list or null.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*c = Content{}
		return nil
	case len(b) > 0 && b[0] == '"':
		return json.Unmarshal(b, &c.Text)
	case len(b) > 0 && b[0] == '[':
		return json.Unmarshal(b, &c.Parts)
	}
	return fmt.Errorf("content must be a string, an array of parts or null, got %.20s", b)
}

// MarshalJSON writes the form it was read in.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return json.Marshal(c.Parts)
	}
	return json.Marshal(c.Text)
}

// String is the text of the content, parts joined by newlines.
func (c Content) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var texts []string
	for _, p := range c.Parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ImageURLs lists the URLs of the image parts.
func (c Content) ImageURLs() []string {
	var urls []string
	for _, p := range c.Parts {
		if p.Type == "image_url" && p.ImageURL != nil {
			urls = append(urls, p.ImageURL.URL)
		}
	}
	return urls
}

// ToolCall is a tool call in a request's history, a reply's script, or a stream fragment.
type ToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// FunctionCall is a tool call's name and JSON arguments.
type FunctionCall struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// ToolNames lists the names of the offered tools.
func (r *ChatRequest) ToolNames() []string {
	names := make([]string, 0, len(r.Tools))
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// offers reports whether a tool of that name is offered.
func (r *ChatRequest) offers(name string) bool {
	for _, t := range r.Tools {
		if t.Function.Name == name {
			return true
		}
	}
	return false
}

// wire shapes of responses

type usageJSON struct {
	PromptTokens            int                    `json:"prompt_tokens"`
	CompletionTokens        int                    `json:"completion_tokens"`
	TotalTokens             int                    `json:"total_tokens"`
	CompletionTokensDetails *completionDetailsJSON `json:"completion_tokens_details,omitempty"`
	PromptTokensDetails     *promptDetailsJSON     `json:"prompt_tokens_details,omitempty"`
}

// promptDetailsJSON carries the prefix-cache accounting (cache.go).
type promptDetailsJSON struct {
	CachedTokens int `json:"cached_tokens"`
}

type completionDetailsJSON struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

type deltaJSON struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
	ReasoningFields
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

type streamChoice struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type streamChunk struct {
	ID      string         `json:"id"`
	Object  string         `json:"object"`
	Created int64          `json:"created"`
	Model   string         `json:"model"`
	Choices []streamChoice `json:"choices"`
	Usage   *usageJSON     `json:"usage,omitempty"`
}

type messageJSON struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
}

type completionChoice struct {
	Index        int         `json:"index"`
	Message      messageJSON `json:"message"`
	FinishReason *string     `json:"finish_reason"`
}

type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   *usageJSON         `json:"usage,omitempty"`
}

type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    string `json:"code,omitempty"`
	} `json:"error"`
}

// SystemPrompt is the text of the request's system messages joined by blank lines, "" when
// it has none: what a test checks to see which instructions reached the model.
func (c *ChatRequest) SystemPrompt() string {
	var parts []string
	for _, m := range c.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, m.Content.String())
		}
	}
	return strings.Join(parts, "\n\n")
}
