package actors

import (
	"context"
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/mcp"
)

// MCPResource is one resource of a conversation's MCP servers, for the composer's "@" menu.
type MCPResource = mcp.Resource

// Resources lists the resources of a conversation's ready MCP servers. Like Prompts it never
// waits for a server that is still starting.
func (r *Runtime) Resources(ctx context.Context, convID string) ([]MCPResource, error) {
	set := r.mcpSet(convID)
	if set == nil {
		return nil, nil
	}
	return set.Resources(ctx)
}

// WaitMCP waits until none of a conversation's MCP servers is still starting, or ctx ends:
// for a headless run that names a prompt or a resource before its first message. The window
// never waits; its menus list what is ready.
func (r *Runtime) WaitMCP(ctx context.Context, convID string) error {
	// The servers start when the conversation's actor starts, which may not have happened yet
	// for a conversation just created: asking the actor loads it and waits for its start.
	res, err := r.request(ctx, cmdLoaded{ID: convID})
	if err != nil {
		return err
	}
	if err := res.(reply).Err; err != nil {
		return err
	}
	if set := r.mcpSet(convID); set != nil {
		set.WaitStarted(ctx)
	}
	return nil
}

// cmdLoaded asks a conversation's actor to answer once it is loaded (its start has run).
type cmdLoaded struct{ ID string }

// AttachResources reads the resources a message refers to ("@SERVER:URI", mcp.Refs) and
// returns the message with each resource's text added under a heading that names it, and the
// images they hold. A reference to a name that is not one of the conversation's servers is
// left as written; a resource that cannot be read is an error that names it, so the person
// keeps the draft and can fix the reference.
func (r *Runtime) AttachResources(ctx context.Context, convID, text string) (string, []Attachment, error) {
	refs := mcp.Refs(text)
	if len(refs) == 0 {
		return text, nil, nil
	}
	set := r.mcpSet(convID)
	if set == nil {
		return text, nil, nil
	}
	var b strings.Builder
	b.WriteString(text)
	var images []Attachment
	for _, ref := range refs {
		if !set.Has(ref.Server) {
			continue
		}
		got, err := set.ReadResource(ctx, ref.Server, ref.URI)
		if err != nil {
			return "", nil, fmt.Errorf("attach %s: %w", ref.Ref(), err)
		}
		fmt.Fprintf(&b, "\n\n%s%s:\n%s", resourceHeading, ref.Ref(), got.Text)
		for _, img := range got.Images {
			images = append(images, Attachment{Name: img.Name, Data: img.Data})
		}
	}
	return b.String(), images, nil
}

// resourceHeading opens each attached resource's text in the message.
const resourceHeading = "Attached MCP resource "

// MCPPromptArgs gives the words typed after a prompt's name to its arguments (mcp.PromptArgs):
// the composer's menu and chat --prompt read them alike.
func MCPPromptArgs(p MCPPrompt, typed string) map[string]string { return mcp.PromptArgs(p, typed) }
