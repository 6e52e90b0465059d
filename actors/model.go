package actors

import (
	"context"
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
)

// ModelChange is what a model switch did.
type ModelChange struct {
	Conv domain.Conversation
	// AtContinuation is set when the usage so far already reaches 90% of the new model's
	// window: the person should wrap up (WrapUp) rather than send (REQ-BED-019).
	AtContinuation bool
	// TextOnly is set when the new model cannot read images: those in the history reach it
	// as placeholders.
	TextOnly bool
}

// ChangeModel switches a conversation at rest to another model: the next request uses it,
// and its context window (from the model table, domain.ContextWindowFor), the meter and the
// thresholds follow at once. The switch is a system notice in the history. A switch that
// puts usage at or past 90% of the new window is made, and says so (a Notice and
// AtContinuation), so the person can wrap up before sending.
func (r *Runtime) ChangeModel(ctx context.Context, id, model string) (ModelChange, error) {
	model = strings.TrimSpace(model)
	if err := r.event(ctx, id, domain.UserChangeModel{Model: model}); err != nil {
		return ModelChange{}, fmt.Errorf("switch the model of %s: %w", id, err)
	}
	conv, err := r.cfg.Store.Get(id)
	if err != nil {
		return ModelChange{}, fmt.Errorf("switch the model of %s: %w", id, err)
	}
	ch := ModelChange{Conv: conv, AtContinuation: domain.AtContinuation(conv.Usage, conv.Window()),
		TextOnly: !r.SupportsVision(conv.Model)}
	if ch.AtContinuation {
		r.publish(Notice{ConvID: id, Level: NoticeWarning, Text: fmt.Sprintf(
			"The conversation already uses %d%% of %s's context window: wrap it up and continue in a new conversation before sending more.",
			domain.UsagePercent(conv.Usage, conv.Window()), r.ModelLabel(conv.Model))})
	}
	return ch, nil
}

// SupportsVision reports whether a model accepts images (for the UI, which may not ask llm).
func (r *Runtime) SupportsVision(model string) bool { return llm.SupportsVision(model) }

// noVisionError refuses images for a model that cannot read them (REQ-BED-013), before
// anything is stored.
func noVisionError(model string) error {
	return fmt.Errorf("the model %s does not accept images: remove them, or switch the conversation to a model with vision", model)
}
