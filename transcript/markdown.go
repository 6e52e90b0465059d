package transcript

import (
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Markdown writes a conversation as a Markdown document: a header with where and how it ran,
// then every message in order, tool calls with their full arguments and results, in fences
// longer than any backtick run inside them. It is the one exporter: the window's Ctrl+E and
// `phoenix-desktop export` both write exactly these bytes. Times are written in UTC, so the
// document does not depend on the machine that writes it.
func Markdown(c domain.Conversation, msgs []domain.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", Title(c.Title, c.Cwd))
	fmt.Fprintf(&b, "- Working directory: `%s`\n- Model: %s\n- Mode: %s\n", c.Cwd, c.Model, c.Mode)
	if c.State != nil {
		fmt.Fprintf(&b, "- State: %s\n", StateWord(c.State.Kind()))
	}
	if !c.CreatedAt.IsZero() {
		fmt.Fprintf(&b, "- Started: %s\n", c.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
	}
	if c.ContinuedFrom != "" {
		fmt.Fprintf(&b, "- Continues: %s\n", c.ContinuedFrom)
	}
	if c.ForkedFrom != "" {
		fmt.Fprintf(&b, "- Forked from: %s\n", c.ForkedFrom)
	}
	if c.Spent.Responses > 0 {
		fmt.Fprintf(&b, "- Spent: %s\n", SpendLine(c.Spent))
	}
	b.WriteString("\n")
	// The task list as it stands; each todo call below shows how it got there.
	if todo := domain.TodoList(msgs); len(todo) > 0 {
		fmt.Fprintf(&b, "## Task list (%s)\n\n%s\n", TodoSummary(todo), TodoMarkdown(todo))
	}
	for _, m := range msgs {
		switch m.Kind {
		case domain.KindUser:
			b.WriteString("## " + Speaker(m.Kind) + "\n\n")
			if m.Text != "" {
				b.WriteString(m.Text)
				b.WriteString("\n\n")
			}
			writeImages(&b, m.Images)
		case domain.KindAssistant:
			b.WriteString("## " + Speaker(m.Kind) + "\n\n")
			if r := m.Reasoning; r != nil && strings.TrimSpace(r.Text) != "" {
				// Quoted, so that the reasoning reads as an aside and never as the answer.
				size := ""
				if m.Usage != nil && m.Usage.ReasoningTokens > 0 {
					size = " (" + Tokens(m.Usage.ReasoningTokens) + " tokens)"
				}
				fmt.Fprintf(&b, "> *Thinking%s*\n>\n> %s\n\n", size, quote(r.Text))
			}
			if strings.TrimSpace(m.Text) != "" {
				b.WriteString(m.Text)
				b.WriteString("\n\n")
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "**Tool call `%s`**\n\n", c.Name)
				writeFence(&b, "json", c.Arguments)
			}
			if m.StopReason != "" {
				fmt.Fprintf(&b, "> **%s.**\n\n", m.StopReason.Describe())
			}
			if m.Usage != nil && m.Usage.Total() > 0 {
				fmt.Fprintf(&b, "*%s*\n\n", UsageLine(*m.Usage))
			}
		case domain.KindToolResult:
			r := m.ToolResult
			fmt.Fprintf(&b, "**Result of `%s` (%s)**\n\n", r.Name, r.Outcome)
			writeFence(&b, "", r.Content)
			writeImages(&b, r.Images)
			if r.Display != nil && r.Display.Diff != "" {
				writeFence(&b, "diff", r.Display.Diff)
			}
		case domain.KindSystem:
			fmt.Fprintf(&b, "> **System:** %s\n\n", quote(m.Text))
		case domain.KindError:
			fmt.Fprintf(&b, "> **Error:** %s\n\n", quote(m.Text))
		case domain.KindContinuation:
			b.WriteString("## Continuation summary\n\n")
			b.WriteString(m.Text)
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

func writeImages(b *strings.Builder, imgs []domain.ImageRef) {
	for _, img := range imgs {
		name := img.Name
		if name == "" {
			name = img.SHA256[:min(12, len(img.SHA256))]
		}
		fmt.Fprintf(b, "*Image: %s (%d×%d, %s)*\n\n", name, img.Width, img.Height, img.MediaType)
	}
}

// writeFence writes s in a code fence longer than any backtick run inside it.
func writeFence(b *strings.Builder, lang, s string) {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(s, "\n"), fence)
}

func quote(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ") }
