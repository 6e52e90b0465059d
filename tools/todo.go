package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Todo keeps the model's task list (issue 27). Like think it has no side effects: the list
// is the call's arguments, kept in the conversation (domain.TodoList reads it back), and the
// result only confirms it, or refuses it with what to change. It needs no sandbox, so it
// runs the same in every mode.
type Todo struct{}

// NewTodo returns the todo tool.
func NewTodo() *Todo { return &Todo{} }

// Name is the catalogue name.
func (*Todo) Name() string { return domain.ToolTodo }

// Run checks the list and says what it holds.
func (t *Todo) Run(_ context.Context, _ Env, raw json.RawMessage) Output {
	items, err := domain.ParseTodo(string(raw))
	if err != nil {
		return errorf("The task list was not changed: %v.", err)
	}
	if len(items) == 0 {
		return Output{Outcome: domain.OutcomeSuccess, Content: "Task list cleared.", Display: &domain.ToolDisplay{Summary: "list cleared"}}
	}
	done, doing, pending := domain.TodoCounts(items)
	counts := fmt.Sprintf("%d done, %d in progress, %d pending", done, doing, pending)
	return Output{
		Outcome: domain.OutcomeSuccess,
		Content: "Task list saved: " + counts + ". Update it as tasks start and end.",
		Display: &domain.ToolDisplay{Summary: counts},
	}
}
