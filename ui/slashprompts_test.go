package ui

import (
	"context"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/mcp"
)

type fakePrompts struct{ got map[string]string }

func (f *fakePrompts) Prompts(context.Context, string) ([]actors.MCPPrompt, error) { return nil, nil }
func (f *fakePrompts) GetPrompt(_ context.Context, _, server, name string, args map[string]string) (string, error) {
	f.got = args
	return server + "/" + name, nil
}

// An MCP prompt is a menu line named as other agents name it, its arguments hinted, and the
// words typed after it given to its arguments in order, the last taking the rest.
func TestMCPPromptInTheSlashMenu(t *testing.T) {
	pr := actors.MCPPrompt{Server: "docs", Name: "explain", Description: "Explain a file",
		Arguments: []mcp.PromptArgument{{Name: "path", Required: true}, {Name: "focus"}}}
	b := &fakePrompts{}
	it := promptItem(b, "c1", pr)
	if it.name != "mcp__docs__explain" || it.hint != "<path> <focus>" || it.desc != "Explain a file" || it.origin != "MCP docs" {
		t.Fatalf("item %+v", it)
	}
	text, err := it.remote(context.Background(), "  main.go   the error handling ")
	if err != nil || text != "docs/explain" {
		t.Fatalf("expanded %q, %v", text, err)
	}
	if b.got["path"] != "main.go" || b.got["focus"] != "the error handling" {
		t.Errorf("arguments %v", b.got)
	}
}
