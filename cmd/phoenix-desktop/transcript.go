package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// writeMessage prints one message of a transcript as plain text, for chat and show (export
// writes transcript.Markdown, the window's document).
func writeMessage(w io.Writer, m domain.Message) {
	heading := func(s string) { fmt.Fprintf(w, "\n── %s\n", s) }
	block := func(s string) {
		for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
			fmt.Fprintf(w, "  │ %s\n", line)
		}
	}
	switch m.Kind {
	case domain.KindUser:
		heading(transcript.Speaker(m.Kind))
		if m.Text != "" {
			fmt.Fprintln(w, m.Text)
		}
		for _, img := range m.Images {
			fmt.Fprintf(w, "[image %s %dx%d %s]\n", img.Name, img.Width, img.Height, img.MediaType)
		}
	case domain.KindAssistant:
		heading(transcript.Speaker(m.Kind))
		writeReasoning(w, m)
		if m.Text != "" {
			fmt.Fprintln(w, m.Text)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(w, "→ %s %s\n", c.Name, transcript.ToolCallSummary(c))
		}
		if m.StopReason != "" {
			// A reply that ended early is never passed off as complete (issue 13).
			fmt.Fprintf(w, "! %s.\n", m.StopReason.Describe())
		}
	case domain.KindToolResult:
		r := m.ToolResult
		heading(fmt.Sprintf("%s result (%s)", r.Name, r.Outcome))
		block(r.Content)
		if r.Display != nil && r.Display.Diff != "" {
			block(r.Display.Diff)
		}
	case domain.KindSystem:
		heading("System notice")
		fmt.Fprintln(w, m.Text)
	case domain.KindError:
		heading("Error")
		fmt.Fprintln(w, m.Text)
	case domain.KindContinuation:
		heading("Continuation summary")
		fmt.Fprintln(w, m.Text)
	}
}

// writeReasoning prints a reply's reasoning before its text, under a dotted bar that marks it
// apart from the answer.
func writeReasoning(w io.Writer, m domain.Message) {
	if m.Reasoning == nil || strings.TrimSpace(m.Reasoning.Text) == "" {
		return
	}
	size := ""
	if m.Usage != nil && m.Usage.ReasoningTokens > 0 {
		size = " (" + transcript.Tokens(m.Usage.ReasoningTokens) + " tokens)"
	}
	fmt.Fprintf(w, "  ┆ Thinking%s\n", size)
	for _, l := range strings.Split(strings.TrimSpace(m.Reasoning.Text), "\n") {
		fmt.Fprintf(w, "  ┆ %s\n", l)
	}
}

// writeTodo prints the conversation's task list as it stands (issue 27), for show; each todo
// call in the messages below says how it got there.
func writeTodo(w io.Writer, msgs []domain.Message) {
	if todo := domain.TodoList(msgs); len(todo) > 0 {
		fmt.Fprintf(w, "tasks: %s\n%s", transcript.TodoSummary(todo), transcript.TodoText(todo, "  "))
	}
}
