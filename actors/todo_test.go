package actors

import (
	"slices"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestTodoListSurvivesARestart_REQ_BED_007: the model's task list is part of the committed
// history, so the runtime opened again on the same store reads the same list, and a call the
// tool refuses after the restart leaves it as it was. It runs in the conversation's
// Restricted mode like any read-only tool (REQ-BED-017).
func TestTodoListSurvivesARestart_REQ_BED_007(t *testing.T) {
	h := newHarness(t)
	c := h.create(NewConversation{})
	rest := h.turn(c.ID, "todo: [x] read the code | [>] fix the bug | run the tests")
	want := []domain.TodoItem{{Content: "read the code", Status: domain.TodoDone},
		{Content: "fix the bug", Status: domain.TodoInProgress}, {Content: "run the tests", Status: domain.TodoPending}}
	if got := domain.TodoList(h.history(c.ID)); !slices.Equal(got, want) {
		t.Fatalf("list = %v; want %v", got, want)
	}
	if r := results(h.history(c.ID)); len(r) != 1 || r[0].Outcome != domain.OutcomeSuccess || rest.Mode != domain.ModeRestricted && h.rt.cfg.Sandbox.Available {
		t.Fatalf("the todo call in %s mode: %+v", rest.Mode, r)
	}

	h.restart()
	if got := domain.TodoList(h.history(c.ID)); !slices.Equal(got, want) {
		t.Fatalf("after a restart the list is %v; want %v", got, want)
	}
	h.turn(c.ID, `todo: {"todos":[{"content":"fix the bug","status":"completed"}]}`)
	msgs := h.history(c.ID)
	if r := results(msgs); len(r) != 2 || r[1].Outcome != domain.OutcomeError {
		t.Fatalf("the bad list was not refused: %+v", r)
	}
	if got := domain.TodoList(msgs); !slices.Equal(got, want) {
		t.Fatalf("after a refused call the list is %v; want %v", got, want)
	}
}
