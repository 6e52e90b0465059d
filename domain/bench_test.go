package domain

import "testing"

// BenchmarkTransition measures the core's share of a turn for the common events. Each case
// starts from the same conversation: Transition does not mutate its input, so no setup is
// repeated inside the loop.
func BenchmarkTransition(b *testing.B) {
	idle := newConv(b)
	// A conversation with some history behind it, so that sequence numbers and ids are not
	// trivially small.
	idle.NextSeq, idle.LastExec = 1_000, 400
	requestingConv, _ := step(b, idle, UserMessage{Text: "run the tests"})
	exec := mustExec(b, requestingConv)
	calls := []ToolCall{bashCall("a"), thinkCall("b"), call("c", ToolKeywordSearch, `{"query":"q","search_terms":["x"]}`)}
	running, _ := step(b, requestingConv, LLMResponse{Exec: exec, Text: "Let me look.", ToolCalls: calls, Usage: Usage{InputTokens: 2_000, OutputTokens: 50}})
	lastTool := running
	for i := 0; i < 2; i++ {
		lastTool, _ = step(b, lastTool, ToolComplete{Exec: mustExec(b, lastTool), Result: ToolResult{Outcome: OutcomeSuccess, Content: "ok"}})
	}

	cases := []struct {
		name string
		conv Conversation
		ev   Event
	}{
		{"UserMessage", idle, UserMessage{Text: "run the tests"}},
		{"LLMResponseText", requestingConv, LLMResponse{Exec: exec, Text: "All tests pass.", Usage: Usage{InputTokens: 2_000, OutputTokens: 50}}},
		{"LLMResponseToolCalls", requestingConv, LLMResponse{Exec: exec, Text: "Let me look.", ToolCalls: calls, Usage: Usage{InputTokens: 2_000, OutputTokens: 50}}},
		{"ToolCompleteNext", running, ToolComplete{Exec: mustExec(b, running), Result: ToolResult{Outcome: OutcomeSuccess, Content: "file.go\nmain.go\n"}}},
		{"ToolCompleteLast", lastTool, ToolComplete{Exec: mustExec(b, lastTool), Result: ToolResult{Outcome: OutcomeSuccess, Content: "3 files matched"}}},
		{"CancelDuringLLM", requestingConv, UserCancel{}},
		{"CancelDuringTools", running, UserCancel{}},
		{"StaleResult", running, ToolComplete{Exec: 1, Result: ToolResult{Outcome: OutcomeSuccess}}},
		{"BusyRejection", running, UserMessage{Text: "hello?"}},
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Transition(bc.conv, bc.ev); err != nil && bc.name != "BusyRejection" {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTransitionUnknownTool covers the core's answer to a tool it does not offer, which
// lists the tools it does.
func BenchmarkTransitionUnknownTool(b *testing.B) {
	c := requesting(b)
	ev := LLMResponse{Exec: mustExec(b, c), ToolCalls: []ToolCall{call("x", "rm_rf", `{}`)}, Usage: Usage{InputTokens: 100}}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Transition(c, ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTodoList measures reading the task list back from a history (issue 27), which the
// window does each time the open conversation's history grows: the worst case is a long
// history without a todo call, walked to its start. BenchmarkTransition/UserMessage, in the
// same run, is the baseline: one step of the core.
func BenchmarkTodoList(b *testing.B) {
	long := make([]Message, 0, 10_000)
	for i := range 5_000 {
		c := bashCall("b" + string(rune('a'+i%26)))
		long = append(long, Message{Kind: KindAssistant, ToolCalls: []ToolCall{c}},
			Message{Kind: KindToolResult, ToolResult: &ToolResult{CallID: c.ID, Name: ToolBash, Outcome: OutcomeSuccess}})
	}
	todo := todoCall("t", TodoItem{"read", TodoDone}, TodoItem{"write", TodoInProgress}, TodoItem{"test", TodoPending})
	withList := append(append([]Message(nil), long...), Message{Kind: KindAssistant, ToolCalls: []ToolCall{todo}},
		Message{Kind: KindToolResult, ToolResult: &ToolResult{CallID: "t", Name: ToolTodo, Outcome: OutcomeSuccess}})
	for _, bc := range []struct {
		name string
		msgs []Message
		want int
	}{{"10k messages, no list", long, 0}, {"10k messages, list at the end", withList, 3}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := TodoList(bc.msgs); len(got) != bc.want {
					b.Fatalf("TodoList = %v", got)
				}
			}
		})
	}
}
