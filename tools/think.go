package tools

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Think records the model's reasoning. It has no side effects: the thought is kept in the
// conversation as the call's arguments, and the result only acknowledges it.
type Think struct{}

// NewThink returns the think tool.
func NewThink() *Think { return &Think{} }

// Name is the catalogue name.
func (*Think) Name() string { return domain.ToolThink }

type thinkArgs struct {
	Thoughts string `json:"thoughts"`
}

// Run acknowledges the thought.
func (t *Think) Run(_ context.Context, _ Env, raw json.RawMessage) Output {
	var args thinkArgs
	if err := decodeArgs(t.Name(), raw, &args); err != nil {
		return errorf("%v", err)
	}
	if strings.TrimSpace(args.Thoughts) == "" {
		return errorf("thoughts is empty.")
	}
	return Output{
		Outcome: domain.OutcomeSuccess,
		Content: "Thought recorded.",
		Display: &domain.ToolDisplay{Summary: firstLine(args.Thoughts, 100)},
	}
}
