package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// MessageKind says what a message is, which decides both how it is sent to the model and how
// the UI styles it.
type MessageKind string

const (
	// KindUser is text (and images) typed by the person.
	KindUser MessageKind = "user"
	// KindAssistant is the model's reply: text and, possibly, tool calls.
	KindAssistant MessageKind = "assistant"
	// KindToolResult answers exactly one tool call of the preceding assistant message.
	KindToolResult MessageKind = "tool_result"
	// KindSystem is a synthetic notice to the agent, such as a mode change (REQ-BED-017).
	KindSystem MessageKind = "system"
	// KindError records an error the person saw (retries exhausted, auth failure). It is
	// shown in the UI and never sent to the model.
	KindError MessageKind = "error"
	// KindContinuation holds a continuation summary (REQ-BED-020).
	KindContinuation MessageKind = "continuation"
)

// SentToModel reports whether messages of this kind are part of the LLM history.
func (k MessageKind) SentToModel() bool {
	switch k {
	case KindUser, KindAssistant, KindToolResult, KindSystem:
		return true
	}
	return false
}

// ImageRef points at image bytes stored once by content hash (REQ-BED-013). The bytes live in
// the store's blob area; messages carry only the reference.
type ImageRef struct {
	// SHA256 is the lowercase hex digest of the stored bytes.
	SHA256    string `json:"sha256"`
	MediaType string `json:"media_type"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	Size      int    `json:"size"`
	// Name is the file name the person attached, for display only.
	Name string `json:"name,omitempty"`
}

// ToolCall is one tool invocation requested by the model.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Arguments is the raw JSON object the model produced. It may be malformed; the core
	// answers such calls with an error result instead of running them.
	Arguments string `json:"arguments"`
}

// Outcome is how a tool call ended. It is one value rather than several booleans so that a
// result cannot be both cancelled and successful.
type Outcome string

const (
	OutcomeSuccess     Outcome = "success"
	OutcomeError       Outcome = "error"
	OutcomeCancelled   Outcome = "cancelled"
	OutcomeSkipped     Outcome = "skipped"
	OutcomeInterrupted Outcome = "interrupted"
)

// IsError reports whether the model should see this result flagged as a failure.
func (o Outcome) IsError() bool { return o != OutcomeSuccess }

// ToolDisplay is what the UI shows for a tool result, kept apart from what the model reads so
// that the UI never has to parse model text.
type ToolDisplay struct {
	// Summary is a one-line description ("exit 0, 12 lines", "3 files matched").
	Summary string `json:"summary,omitempty"`
	// Diff is a unified diff for patch results.
	Diff string `json:"diff,omitempty"`
	// SubAgents lists each sub-agent's task and outcome for spawn_agents results.
	SubAgents []SubAgentOutcome `json:"sub_agents,omitempty"`
	// Diagnostics are the errors a file's language server reported after the call changed
	// it, one path:line:column and the server's words a line, shown folded in the tool row.
	Diagnostics string `json:"diagnostics,omitempty"`
}

// ToolResult answers one tool call.
type ToolResult struct {
	CallID  string  `json:"call_id"`
	Name    string  `json:"name"`
	Outcome Outcome `json:"outcome"`
	// Content is the text the model reads.
	Content string `json:"content"`
	// Images are returned to the model alongside the text (read_image).
	Images  []ImageRef   `json:"images,omitempty"`
	Display *ToolDisplay `json:"display,omitempty"`
}

// StopReason says why a model reply ended when it did not end normally. The llm client maps
// each provider's finish reason onto it; an empty value is a normal end (stop, tool calls).
type StopReason string

const (
	// StopLength is a reply cut off at the output limit (max_tokens).
	StopLength StopReason = "length"
	// StopContentFilter is a reply the provider's content filter stopped.
	StopContentFilter StopReason = "content_filter"
)

// Describe says, for a person, how the reply ended. Any reason other than the known ones is
// the provider's own word, quoted.
func (r StopReason) Describe() string {
	switch r {
	case "":
		return ""
	case StopLength:
		return "The reply was cut off at the model's output limit"
	case StopContentFilter:
		return "The provider's content filter stopped the reply"
	}
	return fmt.Sprintf("The provider ended the reply early (finish reason %q)", string(r))
}

// GoOnPrompt is the message the person sends, with one click in the window or by hand in the
// CLI, to have the model go on after a reply cut off at the output limit.
const GoOnPrompt = "Your last reply was cut off at the output limit. Please continue exactly where it stopped."

// Usage is the token accounting of one LLM response (REQ-BED-012).
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// ReasoningTokens is the part of OutputTokens the model spent thinking, when the
	// provider reports it (completion_tokens_details.reasoning_tokens). It is already in
	// OutputTokens, so Total counts it once.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CachedTokens is the part of InputTokens the provider read from its prompt cache
	// (prompt_tokens_details.cached_tokens), and CacheWriteTokens the part it wrote to it
	// (OpenRouter's cache_write_tokens, Anthropic's cache_creation_input_tokens). Both are
	// already in InputTokens (issue 27).
	CachedTokens     int `json:"cached_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	// Model is the model the request named, which prices the response.
	Model string `json:"model,omitempty"`
	// CostNanoUSD is what the response cost, in billionths of a US dollar, when CostFrom
	// says where the figure came from; without CostFrom the cost is unknown, never zero.
	CostNanoUSD int64      `json:"cost_nano_usd,omitempty"`
	CostFrom    CostSource `json:"cost_from,omitempty"`
}

// Total is the context consumed by the request and its answer (REQ-BED-019).
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }

// Reasoning is a thinking model's reasoning for one reply.
type Reasoning struct {
	// Text is the readable reasoning (or the provider's summary of it), shown to the person.
	Text string `json:"text,omitempty"`
	// Details are the provider's structured reasoning entries (OpenRouter's
	// reasoning_details: text with a signature, summaries, encrypted blobs), merged from the
	// stream and kept verbatim as a JSON array, because some providers need them back
	// unchanged on the next request. The core never looks inside.
	Details json.RawMessage `json:"details,omitempty"`
}

// Empty reports whether there is nothing to keep.
func (r *Reasoning) Empty() bool { return r == nil || (r.Text == "" && len(r.Details) == 0) }

// Message is one entry of a conversation's history. Seq is assigned by Transition and is
// gap-free per conversation; the store checks it.
type Message struct {
	Seq  uint64      `json:"seq"`
	Kind MessageKind `json:"kind"`
	Text string      `json:"text,omitempty"`
	// Images belong to user messages.
	Images []ImageRef `json:"images,omitempty"`
	// ToolCalls belong to assistant messages.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolResult belongs to tool-result messages.
	ToolResult *ToolResult `json:"tool_result,omitempty"`
	// Reasoning belongs to assistant messages of thinking models: what the model thought
	// before it answered, kept apart from Text so that it is never mistaken for the answer.
	Reasoning *Reasoning `json:"reasoning,omitempty"`
	// Usage belongs to the model's replies: assistant messages, and the continuation summary
	// the model wrote.
	Usage *Usage `json:"usage,omitempty"`
	// ErrorKind belongs to error messages.
	ErrorKind ErrorKind `json:"error_kind,omitempty"`
	// StopReason marks an assistant message the model did not end normally: cut off at the
	// output limit, stopped by a content filter, or ended early for another reason (issue
	// 13). Empty for a normal end, so older records decode unchanged.
	StopReason StopReason `json:"stop_reason,omitempty"`
	// At is stamped by the store when the message is committed; the core has no clock.
	At time.Time `json:"at,omitzero"`
}

// Validate checks that a message has the fields its kind needs and no others that matter, so
// that a corrupt record is caught where it is read rather than where it is sent.
func (m Message) Validate() error {
	if m.Reasoning != nil {
		if m.Kind != KindAssistant {
			return fmt.Errorf("message %d: a %s message carries reasoning, which belongs to assistant messages", m.Seq, m.Kind)
		}
		if d := m.Reasoning.Details; len(d) > 0 && (d[0] != '[' || !json.Valid(d)) {
			return fmt.Errorf("message %d: the reasoning details are not a JSON array", m.Seq)
		}
	}
	switch m.Kind {
	case KindUser:
		if m.Text == "" && len(m.Images) == 0 {
			return fmt.Errorf("message %d: user message has neither text nor images", m.Seq)
		}
	case KindAssistant:
		for i, c := range m.ToolCalls {
			if c.ID == "" || c.Name == "" {
				return fmt.Errorf("message %d: tool call %d has no id or name", m.Seq, i)
			}
		}
	case KindToolResult:
		if m.ToolResult == nil || m.ToolResult.CallID == "" {
			return fmt.Errorf("message %d: tool result without a call id", m.Seq)
		}
	case KindSystem, KindError, KindContinuation:
	default:
		return fmt.Errorf("message %d: unknown kind %q", m.Seq, m.Kind)
	}
	return nil
}

// ValidateHistory checks the rule the LLM APIs enforce (ARCHITECTURE rule 6): every tool call
// of an assistant message is answered exactly once, by a tool result that comes after it and
// before the next assistant message, and while calls are unanswered nothing but results may
// be sent (OpenAI: "an assistant message with tool_calls must be followed by tool messages";
// Anthropic: the results open the next message). Messages that are not sent to the model are
// ignored. Ending with unanswered calls is allowed only when openTail is true (a round in
// progress).
func ValidateHistory(msgs []Message, openTail bool) error {
	open := map[string]bool{} // call id -> answered
	order := []string{}
	var prevSeq uint64
	for i, m := range msgs {
		if i > 0 && m.Seq != prevSeq+1 {
			return fmt.Errorf("sequence gap: message %d follows %d", m.Seq, prevSeq)
		}
		prevSeq = m.Seq
		if err := m.Validate(); err != nil {
			return err
		}
		switch m.Kind {
		case KindAssistant:
			for _, id := range order {
				if !open[id] {
					return fmt.Errorf("message %d: tool call %s has no result before the next reply", m.Seq, id)
				}
			}
			open = map[string]bool{}
			order = order[:0]
			for _, c := range m.ToolCalls {
				if _, dup := open[c.ID]; dup {
					return fmt.Errorf("message %d: duplicate tool call id %s", m.Seq, c.ID)
				}
				open[c.ID] = false
				order = append(order, c.ID)
			}
		case KindUser, KindSystem:
			for _, id := range order {
				if !open[id] {
					return fmt.Errorf("message %d: %s message between a tool call and its result (call %s)", m.Seq, m.Kind, id)
				}
			}
		case KindToolResult:
			id := m.ToolResult.CallID
			answered, known := open[id]
			if !known {
				return fmt.Errorf("message %d: result for unknown tool call %s", m.Seq, id)
			}
			if answered {
				return fmt.Errorf("message %d: second result for tool call %s", m.Seq, id)
			}
			open[id] = true
		}
	}
	if !openTail {
		for _, id := range order {
			if !open[id] {
				return fmt.Errorf("tool call %s has no result", id)
			}
		}
	}
	return nil
}

// UnansweredCalls returns the tool calls of the last assistant message that have no result
// yet, in request order. Restart recovery answers them (REQ-BED-007).
func UnansweredCalls(msgs []Message) []ToolCall {
	var calls []ToolCall
	answered := map[string]bool{}
	for _, m := range msgs {
		switch m.Kind {
		case KindAssistant:
			calls = m.ToolCalls
			answered = map[string]bool{}
		case KindToolResult:
			answered[m.ToolResult.CallID] = true
		}
	}
	var out []ToolCall
	for _, c := range calls {
		if !answered[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// ValidJSONObject reports whether s is a JSON object, the only argument shape tools accept
// (never "null": a tool must not be run with it for arguments). Valid JSON whose first byte
// after white space is '{' is an object: the same answer as decoding it into a map, without
// building the map — every request checks each past call's arguments again (issue 39).
func ValidJSONObject(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			return json.Valid([]byte(s))
		}
		return false
	}
	return false
}
