package llm

import (
	"encoding/json"
	"fmt"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Texts the converted history carries. The fake server (llm/fakellm) recognises the first
// two to tell synthetic user-role messages from what the person typed, so they are part of
// the wire protocol between the two packages: change both together.
const (
	// SystemNoticePrefix starts a KindSystem message sent as a user-role message. Providers
	// accept a system role only at the start, and some not at all after the first turn.
	SystemNoticePrefix = "System notice: "
	// ToolImagesPrefix starts the user-role message that carries a tool result's images,
	// since tool messages can carry text only.
	ToolImagesPrefix = "Images returned by tool call "
	// MissingResultText answers a tool call the history left unanswered, so that the
	// provider never sees a broken chain (ARCHITECTURE rule 6).
	MissingResultText = "(no result was recorded)"
	// EmptyResultText stands in for an empty tool output: some providers reject a tool
	// message without content.
	EmptyResultText = "(no output)"
)

// imageLoader turns a stored image reference into a data URL, preparing it for the model.
// A nil loader means the model cannot read images: each is replaced by ImagePlaceholder.
type imageLoader func(ref domain.ImageRef) (string, error)

// ImagePlaceholder stands in for an image sent to a model that cannot read images (the
// conversation switched to it after images were attached).
func ImagePlaceholder(ref domain.ImageRef) string {
	return fmt.Sprintf("[Image %q omitted: the current model cannot read images.]", ref.Name)
}

// converter builds the provider's message list from the stored history in one pass.
//
// A "group" is an assistant message with tool calls and the tool results that follow it.
// Providers require the tool messages to come right after their assistant message, so
// anything the history holds between them (system notices, images of tool results) is
// deferred until the group closes; unanswered calls are answered when it closes.
type converter struct {
	load imageLoader
	out  []openai.ChatCompletionMessage
	// send is what of stored reasoning goes back; fields collects what the message type
	// cannot carry, by index in out.
	send   reasoningReturn
	fields map[int]map[string]json.RawMessage

	inGroup  bool
	open     []domain.ToolCall
	answered map[string]bool
	deferred []openai.ChatCompletionMessage
	images   int
}

// convertHistory returns the messages of a request: the system prompt, the history repaired
// for the API, and extra as a final user message when it is not empty. Stored reasoning
// goes back as send says: in the messages, or among the fields to add to them by index. It
// also returns how many images those messages carry (dropped results' images not counted),
// for the vision check.
func convertHistory(system string, history []domain.Message, extra string, load imageLoader, send reasoningReturn) ([]openai.ChatCompletionMessage, map[int]map[string]json.RawMessage, int, error) {
	// One message a stored one, and two more (the system prompt, extra): the list is made
	// once, not grown by doubling — every request converts the whole history (issue 39).
	c := &converter{load: load, send: send, out: make([]openai.ChatCompletionMessage, 0, len(history)+2)}
	if system != "" {
		c.out = append(c.out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	for _, m := range history {
		if err := c.add(m); err != nil {
			return nil, nil, 0, err
		}
	}
	c.closeGroup()
	if extra != "" {
		c.out = append(c.out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: extra})
	}
	if len(c.out) == 0 {
		return nil, c.fields, c.images, nil // as before the list was made ahead: encoded as null, not []
	}
	return c.out, c.fields, c.images, nil
}

func (c *converter) add(m domain.Message) error {
	switch m.Kind {
	case domain.KindUser:
		c.closeGroup()
		msg, err := c.userMessage(m.Text, m.Images)
		if err != nil {
			return fmt.Errorf("message %d: %w", m.Seq, err)
		}
		c.out = append(c.out, msg)
	case domain.KindAssistant:
		c.closeGroup()
		c.addAssistant(m)
		if len(m.ToolCalls) > 0 {
			c.inGroup = true
			c.open = m.ToolCalls
			c.answered = make(map[string]bool, len(m.ToolCalls))
		}
	case domain.KindToolResult:
		r := m.ToolResult
		if r == nil || !c.inGroup || c.answered[r.CallID] || !c.isOpen(r.CallID) {
			// A result for no open call (a duplicate, or one a crash left behind) would make
			// the provider reject the whole request; the call it answers is not in the
			// history the model sees, so dropping it loses nothing the model could use.
			return nil
		}
		c.answered[r.CallID] = true
		c.out = append(c.out, openai.ChatCompletionMessage{
			Role: openai.ChatMessageRoleTool, ToolCallID: r.CallID, Content: toolContent(r),
		})
		if len(r.Images) > 0 {
			msg, err := c.userMessage(fmt.Sprintf("%s%s (%s):", ToolImagesPrefix, r.CallID, r.Name), r.Images)
			if err != nil {
				return fmt.Errorf("message %d: %w", m.Seq, err)
			}
			c.deferred = append(c.deferred, msg)
		}
	case domain.KindSystem:
		msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: SystemNoticePrefix + m.Text}
		if c.inGroup {
			c.deferred = append(c.deferred, msg)
		} else {
			c.out = append(c.out, msg)
		}
	default:
		if err := m.Validate(); err != nil {
			return err
		}
		// Valid, and not sent: error and continuation messages are shown to the person only.
		if m.Kind.SentToModel() {
			return fmt.Errorf("message %d of kind %q has no conversion", m.Seq, m.Kind)
		}
	}
	return nil
}

func (c *converter) isOpen(id string) bool {
	for _, call := range c.open {
		if call.ID == id {
			return true
		}
	}
	return false
}

// closeGroup answers what is still open and then emits what was deferred.
func (c *converter) closeGroup() {
	if !c.inGroup {
		return
	}
	for _, call := range c.open {
		if !c.answered[call.ID] {
			c.out = append(c.out, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleTool, ToolCallID: call.ID, Content: MissingResultText,
			})
		}
	}
	c.out = append(c.out, c.deferred...)
	c.inGroup, c.open, c.answered, c.deferred = false, nil, nil, nil
}

func (c *converter) userMessage(text string, images []domain.ImageRef) (openai.ChatCompletionMessage, error) {
	if len(images) > 0 && c.load == nil {
		placeholders := make([]string, 0, len(images)+1)
		if text != "" {
			placeholders = append(placeholders, text)
		}
		for _, ref := range images {
			placeholders = append(placeholders, ImagePlaceholder(ref))
		}
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: strings.Join(placeholders, "\n")}, nil
	}
	if len(images) == 0 {
		return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}, nil
	}
	parts := make([]openai.ChatMessagePart, 0, len(images)+1)
	if text != "" {
		parts = append(parts, openai.ChatMessagePart{Type: openai.ChatMessagePartTypeText, Text: text})
	}
	for _, ref := range images {
		url, err := c.load(ref)
		if err != nil {
			return openai.ChatCompletionMessage{}, err
		}
		parts = append(parts, openai.ChatMessagePart{
			Type:     openai.ChatMessagePartTypeImageURL,
			ImageURL: &openai.ChatMessageImageURL{URL: url, Detail: openai.ImageURLDetailAuto},
		})
		c.images++
	}
	return openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, MultiContent: parts}, nil
}

// addAssistant adds an assistant message with its reasoning as the provider wants it back.
func (c *converter) addAssistant(m domain.Message) {
	msg := assistantMessage(m)
	if !m.Reasoning.Empty() {
		switch c.send {
		case returnContent:
			// go-openai's message type has this field; nothing needs patching in.
			msg.ReasoningContent = m.Reasoning.Text
		case returnDetails:
			if c.fields == nil {
				c.fields = map[int]map[string]json.RawMessage{}
			}
			c.fields[len(c.out)] = gatewayFields(m.Reasoning)
		}
	}
	c.out = append(c.out, msg)
}

func assistantMessage(m domain.Message) openai.ChatCompletionMessage {
	msg := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Text}
	for _, call := range m.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, openai.ToolCall{
			ID:       call.ID,
			Type:     openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: call.Name, Arguments: sendableArguments(call.Arguments)},
		})
	}
	if msg.Content == "" && len(msg.ToolCalls) == 0 {
		// An empty assistant turn is never stored as a success, but if one were, sending no
		// content at all would be rejected.
		msg.Content = EmptyResultText
	}
	return msg
}

// sendableArguments keeps the model's arguments as they were, except that malformed JSON
// is replaced by an empty object: providers validate the arguments of past calls and would
// reject every later request, while the tool result that follows already tells the model
// that its arguments were malformed.
func sendableArguments(args string) string {
	if domain.ValidJSONObject(args) {
		return args
	}
	return "{}"
}

// toolContent is the text the model reads for a result, flagged when it is not a success
// (tool messages have no error flag in this API).
func toolContent(r *domain.ToolResult) string {
	content := r.Content
	if content == "" {
		content = EmptyResultText
	}
	if r.Outcome != "" && r.Outcome.IsError() {
		return fmt.Sprintf("[%s] %s", r.Outcome, content)
	}
	return content
}
