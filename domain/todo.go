package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// The task list (issue 27). The model keeps a checklist with the todo tool, writing the whole
// list on every call. The list has one home: the arguments of the latest todo call that
// succeeded, in the conversation's history (TodoList). Nothing else stores it, so it survives
// a restart, a fork and a rewind exactly as the history does, and the window, show and export
// all read it from there.

// TodoStatus is where one task stands.
type TodoStatus string

// The statuses, in the order a task goes through them.
const (
	TodoPending    TodoStatus = "pending"
	TodoInProgress TodoStatus = "in_progress"
	TodoDone       TodoStatus = "done"
)

// TodoStatuses lists the statuses the tool accepts; the schema's enum is built from it.
var TodoStatuses = []TodoStatus{TodoPending, TodoInProgress, TodoDone}

// Limits of the task list, stated to the model by the tool's description and schema.
const (
	// TodoMaxItems keeps the panel above the composer readable and the arguments the model
	// repeats on every call small.
	TodoMaxItems = 50
	// TodoMaxContentRunes is the longest task, in characters: one line of the panel.
	TodoMaxContentRunes = 200
)

// TodoItem is one task of the list.
type TodoItem struct {
	Content string     `json:"content"`
	Status  TodoStatus `json:"status"`
}

// TodoArgs are the todo tool's arguments: the whole list, in order.
type TodoArgs struct {
	Todos []TodoItem `json:"todos"`
}

// ParseTodo reads and checks a todo call's arguments. Its error is written for the model: it
// names the item and what to change, so that a bad call is corrected on the next try and the
// list shown meanwhile stays the last good one. An empty list is valid: it clears the list.
func ParseTodo(arguments string) ([]TodoItem, error) {
	var raw struct {
		Todos *[]json.RawMessage `json:"todos"`
	}
	if err := strictJSON(arguments, &raw); err != nil {
		return nil, fmt.Errorf("the arguments must be {\"todos\": [{\"content\": \"…\", \"status\": \"pending\"}, …]} and nothing else (%v)", err)
	}
	if raw.Todos == nil {
		return nil, fmt.Errorf("todos is missing: pass the whole list, or [] to clear it")
	}
	if n := len(*raw.Todos); n > TodoMaxItems {
		return nil, fmt.Errorf("the list has %d items; at most %d are allowed: merge small steps or drop finished ones", n, TodoMaxItems)
	}
	items := make([]TodoItem, 0, len(*raw.Todos))
	seen := map[string]int{}
	for i, r := range *raw.Todos {
		n := i + 1
		var it TodoItem
		if err := strictJSON(string(r), &it); err != nil {
			return nil, fmt.Errorf("item %d must be {\"content\": \"…\", \"status\": \"…\"} and nothing else (%v)", n, err)
		}
		it.Content = strings.TrimSpace(it.Content)
		switch {
		case it.Content == "":
			return nil, fmt.Errorf("item %d has no content: say what the task is", n)
		case strings.ContainsAny(it.Content, "\r\n"):
			return nil, fmt.Errorf("item %d spans several lines: write each task on one line", n)
		case utf8.RuneCountInString(it.Content) > TodoMaxContentRunes:
			return nil, fmt.Errorf("item %d is %d characters long; at most %d are allowed: shorten it", n, utf8.RuneCountInString(it.Content), TodoMaxContentRunes)
		}
		if !validTodoStatus(it.Status) {
			return nil, fmt.Errorf("item %d has status %q; it must be one of %s", n, it.Status, todoStatusWords())
		}
		if first, dup := seen[it.Content]; dup {
			return nil, fmt.Errorf("items %d and %d are the same task %q: keep one", first, n, it.Content)
		}
		seen[it.Content] = n
		items = append(items, it)
	}
	return items, nil
}

func validTodoStatus(s TodoStatus) bool { return slices.Contains(TodoStatuses, s) }

func todoStatusWords() string {
	w := make([]string, len(TodoStatuses))
	for i, s := range TodoStatuses {
		w[i] = string(s)
	}
	return strings.Join(w, ", ")
}

// strictJSON decodes one JSON object into v, refusing unknown fields and trailing data.
func strictJSON(s string, v any) error {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the object")
	}
	return nil
}

// TodoCounts counts a list's tasks by status.
func TodoCounts(items []TodoItem) (done, inProgress, pending int) {
	for _, it := range items {
		switch it.Status {
		case TodoDone:
			done++
		case TodoInProgress:
			inProgress++
		default:
			pending++
		}
	}
	return done, inProgress, pending
}

// TodoList is the conversation's task list: the list of the latest todo call whose result
// was a success, or nil when there is none (or the latest cleared it). Only successful calls
// count, so a call the tool refused, or one a Stop cancelled, leaves the list as it was.
func TodoList(msgs []Message) []TodoItem {
	for i := len(msgs) - 1; i >= 0; i-- {
		r := msgs[i].ToolResult
		if msgs[i].Kind != KindToolResult || r == nil || r.Name != ToolTodo || r.Outcome != OutcomeSuccess {
			continue
		}
		// The call is in the assistant message before its results.
		for j := i - 1; j >= 0; j-- {
			if msgs[j].Kind != KindAssistant {
				continue
			}
			for _, c := range msgs[j].ToolCalls {
				if c.ID == r.CallID {
					items, err := ParseTodo(c.Arguments)
					if err != nil || len(items) == 0 {
						return nil
					}
					return items
				}
			}
			break
		}
	}
	return nil
}
