package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

func todoCall(id string, items ...domain.TodoItem) domain.ToolCall {
	b, _ := json.Marshal(domain.TodoArgs{Todos: items})
	return domain.ToolCall{ID: id, Name: domain.ToolTodo, Arguments: string(b)}
}

// todoHistory is a turn in which the model wrote a list, then updated it; each reply has its
// usage, the first with a cost and the second without a known price.
func todoHistory() []domain.Message {
	first := todoCall("t1", domain.TodoItem{Content: "read the code", Status: domain.TodoInProgress},
		domain.TodoItem{Content: "fix the bug", Status: domain.TodoPending})
	second := todoCall("t2", domain.TodoItem{Content: "read the code", Status: domain.TodoDone},
		domain.TodoItem{Content: "fix the bug", Status: domain.TodoInProgress}, domain.TodoItem{Content: "run the tests", Status: domain.TodoPending})
	return []domain.Message{
		{Seq: 0, Kind: domain.KindUser, Text: "fix it"},
		{Seq: 1, Kind: domain.KindAssistant, ToolCalls: []domain.ToolCall{first},
			Usage: &domain.Usage{InputTokens: 1200, CachedTokens: 600, OutputTokens: 40, CostNanoUSD: 4_200_000, CostFrom: domain.CostFromPrices}},
		{Seq: 2, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "t1", Name: domain.ToolTodo, Outcome: domain.OutcomeSuccess, Content: "Task list saved."}},
		{Seq: 3, Kind: domain.KindAssistant, ToolCalls: []domain.ToolCall{second}, Usage: &domain.Usage{InputTokens: 1300, OutputTokens: 50}},
		{Seq: 4, Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "t2", Name: domain.ToolTodo, Outcome: domain.OutcomeSuccess, Content: "Task list saved."}},
	}
}

// TestExportShowsTheTaskListAndEachReplysCost: the export opens with the list as it stands,
// and says under each reply what it took and, where a price is known, cost (issue 27).
func TestExportShowsTheTaskListAndEachReplysCost(t *testing.T) {
	got := Markdown(domain.Conversation{Title: "Fix", Cwd: "/p", Model: "m"}, todoHistory())
	for _, want := range []string{
		"## Task list (1 of 3 done · now: fix the bug)\n\n- [x] read the code\n- [ ] **fix the bug** (in progress)\n- [ ] run the tests\n\n## You",
		"*1.2k in (50% cached) · 40 out · $0.0042*",
		"*1.3k in · 50 out*\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the export lacks %q:\n%s", want, got)
		}
	}
	if none := Markdown(domain.Conversation{Title: "Fix"}, todoHistory()[:1]); strings.Contains(none, "Task list") {
		t.Errorf("an export without a list has a task list section:\n%s", none)
	}
}

func TestTodoWords(t *testing.T) {
	items := []domain.TodoItem{{Content: "a", Status: domain.TodoDone}, {Content: "b", Status: domain.TodoPending}}
	if s := TodoSummary(items); s != "1 of 2 done" {
		t.Errorf("TodoSummary = %q", s)
	}
	if s := TodoText(items, "  "); s != "  ✓ a\n  ○ b\n" {
		t.Errorf("TodoText = %q", s)
	}
	if s := ToolCallSummary(todoHistory()[3].ToolCalls[0]); s != "1 of 3 done · now: fix the bug" {
		t.Errorf("ToolCallSummary(todo) = %q", s)
	}
	for _, st := range domain.TodoStatuses {
		if _, ok := todoMarks[st]; !ok {
			t.Errorf("status %s has no mark", st)
		}
	}
}
