package transcript

import (
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// The task list's words (issue 27): the window's panel, `show` and the export all say a
// task's status and the list's progress in these.

// todoMarks are the plain-text marks of a task's status, for `show` and the panel.
var todoMarks = map[domain.TodoStatus]string{
	domain.TodoDone:       "✓",
	domain.TodoInProgress: "▸",
	domain.TodoPending:    "○",
}

// TodoMark is a task's mark in plain text: ✓ done, ▸ in progress, ○ pending.
func TodoMark(s domain.TodoStatus) string {
	if m, ok := todoMarks[s]; ok {
		return m
	}
	return todoMarks[domain.TodoPending]
}

// TodoSummary says how far a list is: "2 of 5 done · now: write the test" (the first task in
// progress, when there is one); "cleared" for an empty list.
func TodoSummary(items []domain.TodoItem) string {
	if len(items) == 0 {
		return "cleared"
	}
	done, _, _ := domain.TodoCounts(items)
	s := fmt.Sprintf("%d of %d done", done, len(items))
	for _, it := range items {
		if it.Status == domain.TodoInProgress {
			return s + " · now: " + it.Content
		}
	}
	return s
}

// TodoMarkdown writes a list as a GitHub task list; the task in progress is in bold and
// says so, since a task list has only two marks.
func TodoMarkdown(items []domain.TodoItem) string {
	var b strings.Builder
	for _, it := range items {
		switch it.Status {
		case domain.TodoDone:
			fmt.Fprintf(&b, "- [x] %s\n", it.Content)
		case domain.TodoInProgress:
			fmt.Fprintf(&b, "- [ ] **%s** (in progress)\n", it.Content)
		default:
			fmt.Fprintf(&b, "- [ ] %s\n", it.Content)
		}
	}
	return b.String()
}

// TodoText writes a list as plain text, one task a line with its mark, each line starting
// with indent.
func TodoText(items []domain.TodoItem, indent string) string {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s%s %s\n", indent, TodoMark(it.Status), it.Content)
	}
	return b.String()
}
