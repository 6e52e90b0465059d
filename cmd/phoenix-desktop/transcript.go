package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// writeMessage prints one message of a transcript, as plain text or as Markdown.
func writeMessage(w io.Writer, m domain.Message, markdown bool) {
	heading := func(s string) {
		if markdown {
			fmt.Fprintf(w, "\n### %s\n\n", s)
		} else {
			fmt.Fprintf(w, "\n── %s\n", s)
		}
	}
	block := func(s string) {
		if markdown {
			fence := "```"
			for strings.Contains(s, fence) {
				fence += "`"
			}
			fmt.Fprintf(w, "%s\n%s\n%s\n", fence, strings.TrimRight(s, "\n"), fence)
		} else {
			for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
				fmt.Fprintf(w, "  │ %s\n", line)
			}
		}
	}
	switch m.Kind {
	case domain.KindUser:
		heading("You")
		if m.Text != "" {
			fmt.Fprintln(w, m.Text)
		}
		for _, img := range m.Images {
			fmt.Fprintf(w, "[image %s %dx%d %s]\n", img.Name, img.Width, img.Height, img.MediaType)
		}
	case domain.KindAssistant:
		heading("Agent")
		if m.Text != "" {
			fmt.Fprintln(w, m.Text)
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(w, "→ %s %s\n", c.Name, toolCallSummary(c))
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
			if markdown {
				fmt.Fprintf(w, "\n```diff\n%s\n```\n", strings.TrimRight(r.Display.Diff, "\n"))
			} else {
				block(r.Display.Diff)
			}
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

// toolCallSummary is the key argument of a call: the full command for bash, the path for
// patch, and so on; the raw arguments otherwise.
func toolCallSummary(c domain.ToolCall) string {
	key := map[string]string{
		domain.ToolBash: "command", domain.ToolPatch: "path", domain.ToolReadImage: "path",
		domain.ToolRequestModeUpgrade: "reason", domain.ToolThink: "thoughts",
		domain.ToolKeywordSearch: "search_terms", domain.ToolSpawnAgents: "tasks",
		domain.ToolSubmitResult: "result",
	}[c.Name]
	if v, ok := argument(c.Arguments, key); ok {
		return v
	}
	return c.Arguments
}

// describeState says in words what a conversation is doing.
func describeState(c domain.Conversation) string {
	switch st := c.State.(type) {
	case domain.Idle:
		return "ready"
	case domain.LLMRequesting:
		if st.RetryPending {
			return fmt.Sprintf("retrying (%d of %d) in %s: %s", st.Attempt, domain.MaxAttempts, st.RetryDelay, st.LastError)
		}
		return "thinking"
	case domain.ToolExecuting:
		return "running " + st.Current.Name + ": " + toolCallSummary(st.Current)
	case domain.AwaitingModeApproval:
		return "waiting for approval: " + st.Reason
	case domain.AwaitingSubAgents:
		return fmt.Sprintf("waiting for %d sub-agents", st.Pending())
	case domain.AwaitingContinuation:
		return "writing the continuation summary"
	case domain.ContextExhausted:
		return "context exhausted"
	case domain.Error:
		return "error: " + st.Message
	case domain.Completed:
		return "completed"
	case domain.Failed:
		return "failed: " + st.Message
	}
	return string(c.State.Kind())
}
