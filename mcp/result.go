package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/tools"
)

// maxImages bounds the images one result may hand the model.
const maxImages = 8

// toOutput turns a server's answer into what the model reads and the UI shows: text in order
// (capped like bash output), images prepared exactly like read_image's (validated, downscaled,
// stored as blobs by the caller), and a result the server flagged as an error as an error.
func toOutput(server, tool string, res *sdk.CallToolResult, lim imaging.Limits) tools.Output {
	var b strings.Builder
	var images []tools.Image
	for i, c := range res.Content {
		if i > 0 && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			if len(images) >= maxImages {
				fmt.Fprintf(&b, "[image left out: a result may carry at most %d images]", maxImages)
				continue
			}
			p, err := imaging.Prepare(c.Data, lim)
			if err != nil {
				fmt.Fprintf(&b, "[image (%s) left out: %v]", c.MIMEType, err)
				continue
			}
			name := fmt.Sprintf("%s-%s-%d", server, tool, len(images)+1)
			images = append(images, tools.Image{Ref: p.Ref(name), Data: p.Data})
			fmt.Fprintf(&b, "[image %d: %s, %d×%d pixels]", len(images), p.MediaType, p.Width, p.Height)
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio (%s, %d bytes) left out: audio is not passed to the model]", c.MIMEType, len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource link: %s %s]", c.URI, c.Name)
		case *sdk.EmbeddedResource:
			switch r := c.Resource; {
			case r == nil:
			case r.Text != "":
				fmt.Fprintf(&b, "[resource %s]\n%s", r.URI, r.Text)
			default:
				fmt.Fprintf(&b, "[resource %s (%s, %d bytes of binary data) left out]", r.URI, r.MIMEType, len(r.Blob))
			}
		default:
			fmt.Fprintf(&b, "[content of type %T left out]", c)
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(data)
		}
	}
	text, truncated := tools.CapOutput(b.String())
	outcome := domain.OutcomeSuccess
	if res.IsError {
		outcome = domain.OutcomeError
		if strings.TrimSpace(text) == "" {
			text = fmt.Sprintf("The MCP server %s reported an error from %s without saying what it was.", server, tool)
		}
	}
	if text == "" {
		text = "(no output)"
	}
	summary := summarize(server, tool, outcome, text, len(images), truncated)
	return tools.Output{Outcome: outcome, Content: text, Images: images, Display: &domain.ToolDisplay{Summary: summary}}
}

func summarize(server, tool string, outcome domain.Outcome, text string, images int, truncated bool) string {
	s := server + "/" + tool
	if outcome == domain.OutcomeError {
		return s + ": error: " + firstLine(text)
	}
	lines := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	s += fmt.Sprintf(": %d line", lines)
	if lines != 1 {
		s += "s"
	}
	if images > 0 {
		s += fmt.Sprintf(", %d image", images)
		if images != 1 {
			s += "s"
		}
	}
	if truncated {
		s += " (truncated)"
	}
	return s
}

func errorOutput(format string, a ...any) tools.Output {
	msg := fmt.Sprintf(format, a...)
	return tools.Output{Outcome: domain.OutcomeError, Content: msg, Display: &domain.ToolDisplay{Summary: firstLine(msg)}}
}

func cancelledOutput(msg string) tools.Output {
	return tools.Output{Outcome: domain.OutcomeCancelled, Content: msg, Display: &domain.ToolDisplay{Summary: "cancelled"}}
}
