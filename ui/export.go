package ui

import (
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// exportMarkdown writes a conversation as a Markdown document (Ctrl+E): every message in order,
// tool calls with their full arguments and results, in fences long enough for any content.
func exportMarkdown(c domain.Conversation, msgs []domain.Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", convTitle(c.Title, c.Cwd))
	fmt.Fprintf(&b, "- Working directory: `%s`\n- Model: %s\n- Mode: %s\n", c.Cwd, c.Model, c.Mode)
	if !c.CreatedAt.IsZero() {
		fmt.Fprintf(&b, "- Started: %s\n", c.CreatedAt.Format("2006-01-02 15:04"))
	}
	if c.ContinuedFrom != "" {
		fmt.Fprintf(&b, "- Continues: %s\n", c.ContinuedFrom)
	}
	b.WriteString("\n")
	for _, m := range msgs {
		switch m.Kind {
		case domain.KindUser:
			b.WriteString("## You\n\n")
			b.WriteString(m.Text)
			b.WriteString("\n\n")
			for _, img := range m.Images {
				name := img.Name
				if name == "" {
					name = img.SHA256[:min(12, len(img.SHA256))]
				}
				fmt.Fprintf(&b, "*Image: %s (%d×%d, %s)*\n\n", name, img.Width, img.Height, img.MediaType)
			}
		case domain.KindAssistant:
			b.WriteString("## Assistant\n\n")
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
		case domain.KindToolResult:
			r := m.ToolResult
			fmt.Fprintf(&b, "**Result of `%s` (%s)**\n\n", r.Name, r.Outcome)
			writeFence(&b, "", r.Content)
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

// writeFence writes s in a code fence longer than any backtick run inside it.
func writeFence(b *strings.Builder, lang, s string) {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(s, "\n"), fence)
}

func quote(s string) string { return strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n> ") }
