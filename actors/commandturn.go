package actors

import (
	"context"
	"fmt"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A custom command's front matter may name a model. As in Claude Code, that model answers
// the turn the command starts and no other: the conversation's own model, its window and its
// history stay as they are (domain.UserMessage.Model), and nothing tells the agent that the
// person switched models, because they did not. A model the provider does not offer is
// mapped to the provider's own id for it where the mapping is certain (domain.OfferedAs),
// else left out with a notice: a command written for another agent never sends a turn to a
// model that is not there, and never leaves the conversation on one.

// TurnOptions are what a custom command asks of the turn its message starts.
type TurnOptions struct {
	// Command is the command's name ("api-scaffold"), for the notices.
	Command string
	// Model is the model its front matter names; "" for none.
	Model string
	// Title titles a conversation the message starts: the invocation as the person typed it
	// ("/api-scaffold users service"), rather than the first line of the command's prompt.
	Title string
}

// CommandTurn is what a command's message asks of its turn.
func CommandTurn(cmd Command, invocation string) TurnOptions {
	return TurnOptions{Command: cmd.Name, Model: cmd.Model, Title: invocation}
}

// ModelLister is an LLMClient that can say which models its provider offers
// (*llm.Client); a command's model is only used where the provider says it offers it.
type ModelLister interface {
	ListModels(ctx context.Context) ([]string, error)
}

// SendCommand sends a command's message as Send does, with its turn's options: the turn
// runs on the command's model where the provider offers it (turnModel), and a conversation
// it starts is titled by the invocation.
func (r *Runtime) SendCommand(ctx context.Context, id, text string, images []Attachment, opt TurnOptions) error {
	return r.send(ctx, id, text, images, opt)
}

// turnModel is the model a command's turn runs on: the one it names when the provider
// offers it, else the provider's own id for that model, else "" (the conversation's). It
// runs on the caller's goroutine (it asks the provider for its models), and says what it
// chose in a notice unless the command's model is the conversation's.
func (r *Runtime) turnModel(ctx context.Context, conv domain.Conversation, opt TurnOptions, text string, images int) string {
	want := opt.Model
	if want == "" || domain.SameModel(want, conv.Model) {
		return ""
	}
	own := r.ModelLabel(conv.Model)
	skip := func(why string) string {
		r.publish(Notice{ConvID: conv.ID, Level: NoticeWarning, Text: fmt.Sprintf(
			"/%s asks for the model %s, but %s, so its turn runs on the conversation's model, %s.", opt.Command, want, why, own)})
		return ""
	}
	lister, ok := r.cfg.LLM.(ModelLister)
	if !ok {
		return skip("this provider cannot list the models it offers")
	}
	offered, err := lister.ListModels(ctx)
	if err != nil {
		return skip(fmt.Sprintf("the provider's list of models could not be read (%v)", err))
	}
	id, ok := domain.OfferedAs(want, offered)
	if !ok {
		return skip("this provider offers no model by that name, nor one certainly the same under another name")
	}
	// The turn starts from the whole conversation: a model whose window cannot hold it
	// would fail the turn, or put the conversation past its threshold.
	need := domain.Usage{InputTokens: conv.Usage.Total() + domain.EstimateTokens(text, images)}
	if window := domain.ContextWindowFor(id); domain.AtContinuation(need, window) {
		return skip(fmt.Sprintf("its context window (%d tokens) cannot hold this conversation", window))
	}
	as := ""
	if id != want {
		as = fmt.Sprintf(" (which this provider calls %s)", id)
	}
	r.publish(Notice{ConvID: conv.ID, Level: NoticeInfo, Text: fmt.Sprintf(
		"/%s runs on %s%s, as it asks; the conversation stays on %s.", opt.Command, want, as, own)})
	return id
}
