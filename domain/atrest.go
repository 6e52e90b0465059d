package domain

import (
	"fmt"
	"strings"
)

// Events a person sends to a conversation at rest that change its setting or its working
// tree rather than start work. Each leaves a system notice in the history, so that the agent
// learns of the change on its next request (as with mode changes, REQ-BED-017).

// UserChangeModel switches the conversation's model: the next request uses it, and the
// context window, the meter and the 80%/90% thresholds follow it at once.
type UserChangeModel struct {
	Model string
	// ContextWindow overrides the model table when positive.
	ContextWindow int
}

// UserRestoredFiles records that the person restored files of the working directory (Undo,
// Rewind): Summary says which, for the agent.
type UserRestoredFiles struct {
	Summary string
}

func (UserChangeModel) isEvent()   {}
func (UserRestoredFiles) isEvent() {}

// ModelChangedText is the notice the agent reads after a model switch.
func ModelChangedText(from, to string) string {
	return fmt.Sprintf("The person switched the model of this conversation from %s to %s.", from, to)
}

// acceptsInput rejects input while the agent works (REQ-BED-002), once the context is
// exhausted (REQ-BED-021), or in a finished sub-agent.
func (t *tx) acceptsInput() error {
	switch t.c.State.(type) {
	case ContextExhausted:
		return ErrContextExhausted
	case Completed, Failed:
		return ErrFinished
	}
	if Busy(t.c.State) {
		return ErrAgentBusy
	}
	return nil
}

// atRest rejects the person's changes to a conversation where input is not accepted, and to
// a sub-agent, which follows its parent.
func (t *tx) atRest() error {
	if err := t.acceptsInput(); err != nil {
		return err
	}
	if t.c.IsSubAgent() {
		return ErrSubAgentReadOnly
	}
	return nil
}

func (t *tx) changeModel(e UserChangeModel) error {
	if err := t.atRest(); err != nil {
		return err
	}
	model := strings.TrimSpace(e.Model)
	if model == "" {
		return fmt.Errorf("change model: %w", ErrEmptyModel)
	}
	window := e.ContextWindow
	if window <= 0 {
		window = ContextWindowFor(model)
	}
	if model == t.c.Model && window == t.c.ContextWindow {
		return nil
	}
	from := t.c.Model
	t.c.Model, t.c.ContextWindow = model, window
	t.add(Message{Kind: KindSystem, Text: ModelChangedText(from, model)})
	return nil
}

func (t *tx) restoredFiles(e UserRestoredFiles) error {
	if err := t.atRest(); err != nil {
		return err
	}
	if strings.TrimSpace(e.Summary) == "" {
		return nil
	}
	t.add(Message{Kind: KindSystem, Text: e.Summary})
	return nil
}
