package domain

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func todoCall(id string, items ...TodoItem) ToolCall {
	if items == nil {
		items = []TodoItem{}
	}
	b, _ := json.Marshal(TodoArgs{Todos: items})
	return call(id, ToolTodo, string(b))
}

func TestParseTodo(t *testing.T) {
	long := strings.Repeat("é", TodoMaxContentRunes)
	var tooMany []string
	for i := range TodoMaxItems + 1 {
		tooMany = append(tooMany, `{"content":"t`+strings.Repeat("x", i)+`","status":"pending"}`)
	}
	for _, tt := range []struct {
		name, args string
		want       []TodoItem
		err        string // a part of the error the model reads; "" for a good list
	}{
		{"a list", `{"todos":[{"content":" read the code ","status":"done"},{"content":"fix it","status":"in_progress"},{"content":"test it","status":"pending"}]}`,
			[]TodoItem{{"read the code", TodoDone}, {"fix it", TodoInProgress}, {"test it", TodoPending}}, ""},
		{"empty clears", `{"todos":[]}`, []TodoItem{}, ""},
		{"longest task", `{"todos":[{"content":"` + long + `","status":"done"}]}`, []TodoItem{{long, TodoDone}}, ""},
		{"not JSON", `{"todos":`, nil, "the arguments must be"},
		{"missing todos", `{}`, nil, "todos is missing"},
		{"null todos", `{"todos":null}`, nil, "todos is missing"},
		{"unknown field", `{"todos":[],"merge":true}`, nil, `unknown field "merge"`},
		{"todos not a list", `{"todos":"a"}`, nil, "the arguments must be"},
		{"item not an object", `{"todos":["a"]}`, nil, "item 1 must be"},
		{"unknown item field", `{"todos":[{"content":"a","status":"done","priority":"high"}]}`, nil, `item 1 must be {"content"`},
		{"empty content", `{"todos":[{"content":"a","status":"done"},{"content":"  ","status":"done"}]}`, nil, "item 2 has no content"},
		{"two lines", `{"todos":[{"content":"a\nb","status":"done"}]}`, nil, "item 1 spans several lines"},
		{"too long", `{"todos":[{"content":"` + long + `x","status":"done"}]}`, nil, "item 1 is 201 characters long; at most 200"},
		{"Claude's word", `{"todos":[{"content":"a","status":"completed"}]}`, nil, `item 1 has status "completed"; it must be one of pending, in_progress, done`},
		{"no status", `{"todos":[{"content":"a"}]}`, nil, `item 1 has status ""`},
		{"duplicate", `{"todos":[{"content":"a","status":"done"},{"content":"b","status":"done"},{"content":"a ","status":"pending"}]}`, nil, `items 1 and 3 are the same task "a"`},
		{"too many", `{"todos":[` + strings.Join(tooMany, ",") + `]}`, nil, "the list has 51 items; at most 50"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTodo(tt.args)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v; want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("ParseTodo = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// REQ-BED-017: the tool set does not depend on the mode, and todo changes no file, so the
// core runs it in Restricted mode as in every other.
func TestTodoRunsInEveryMode_REQ_BED_017(t *testing.T) {
	for name, opts := range map[string][]convOption{"restricted": nil, "unrestricted": {unrestricted}} {
		c := requesting(t, opts...)
		todo := todoCall("t1", TodoItem{"plan", TodoInProgress})
		_, effects := respond(t, c, "", todo)
		if e := only[ExecuteTool](t, effects); e.Call.Name != ToolTodo || e.Call.Arguments != todo.Arguments {
			t.Errorf("%s: %s", name, describeEffects(effects))
		}
	}
}

// TestTodoListIsTheLatestGoodCall: the list is derived from the history alone, from the
// latest todo call that succeeded; refused and cancelled calls leave it as it was.
func TestTodoListIsTheLatestGoodCall(t *testing.T) {
	first := []TodoItem{{"read", TodoInProgress}, {"write", TodoPending}}
	second := []TodoItem{{"read", TodoDone}, {"write", TodoInProgress}}
	var msgs []Message
	add := func(m Message) { m.Seq = uint64(len(msgs)); msgs = append(msgs, m) }
	reply := func(calls ...ToolCall) { add(Message{Kind: KindAssistant, ToolCalls: calls}) }
	result := func(c ToolCall, o Outcome) {
		add(Message{Kind: KindToolResult, ToolResult: &ToolResult{CallID: c.ID, Name: c.Name, Outcome: o}})
	}
	check := func(step string, want []TodoItem) {
		t.Helper()
		if got := TodoList(msgs); !slices.Equal(got, want) {
			t.Fatalf("%s: TodoList = %v; want %v", step, got, want)
		}
	}

	add(Message{Kind: KindUser, Text: "go"})
	check("no call yet", nil)
	a := todoCall("a", first...)
	reply(bashCall("b"), a)
	result(bashCall("b"), OutcomeSuccess)
	check("call without a result yet", nil)
	result(a, OutcomeSuccess)
	check("first list", first)

	refused := call("r", ToolTodo, `{"todos":[{"content":"x","status":"completed"}]}`)
	reply(refused)
	result(refused, OutcomeError)
	check("refused call", first)

	cancelled := todoCall("c", second...)
	reply(cancelled)
	result(cancelled, OutcomeCancelled)
	add(Message{Kind: KindSystem, Text: "mode changed"})
	check("cancelled call", first)

	good := todoCall("g", second...)
	reply(thinkCall("t"), good)
	result(thinkCall("t"), OutcomeSuccess)
	result(good, OutcomeSuccess)
	add(Message{Kind: KindAssistant, Text: "done"})
	check("second list", second)

	clear := todoCall("e")
	reply(clear)
	result(clear, OutcomeSuccess)
	check("cleared", nil)
}

func TestTodoCounts(t *testing.T) {
	done, doing, pending := TodoCounts([]TodoItem{{"a", TodoDone}, {"b", TodoInProgress}, {"c", TodoPending}, {"d", TodoDone}})
	if done != 2 || doing != 1 || pending != 1 {
		t.Fatalf("TodoCounts = %d, %d, %d; want 2, 1, 1", done, doing, pending)
	}
}
