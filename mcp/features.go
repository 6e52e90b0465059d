package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Resources and prompts of the protocol. A server that offers resources gets one more tool,
// mcp__SERVER__read_resource, through which the model opens a resource by URI (a resource
// link in a tool's result names it); its description lists the first resources. Prompts are
// listed for the composer's commands (Set.Prompts) and fetched as text (Set.GetPrompt).
// Roots, sampling and logging are deprecated by the 2026-07-28 revision and not offered.

// ReadResourceTool is the server tool name of the app's resource reader.
const ReadResourceTool = "read_resource"

// maxListedResources bounds the resources named in the reader's description.
const maxListedResources = 20

var readResourceSchema = json.RawMessage(`{"type":"object","properties":{"uri":{"type":"string","description":"the resource's URI, as listed or linked"}},"required":["uri"]}`)

// hasResources reports whether the server declared the resources capability.
func (s *server) hasResources() bool {
	init := s.session.InitializeResult()
	return init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil
}

// readerTool is the resource reader offered for a server that has resources, unless one of
// its own tools already has the name. Its description names the first resources listed.
func readerTool(ctx context.Context, srv *server, list []offered) (offered, bool) {
	if !srv.hasResources() {
		return offered{}, false
	}
	name := ToolName(srv.name, ReadResourceTool)
	if slices.ContainsFunc(list, func(o offered) bool { return o.spec.Name == name }) {
		return offered{}, false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Read a resource of the MCP server %q by its URI (a resource link in a result of its tools names one).", srv.name)
	if res, err := srv.session.ListResources(ctx, &sdk.ListResourcesParams{}); err == nil && len(res.Resources) > 0 {
		b.WriteString(" Its resources include:")
		for i, r := range res.Resources {
			if i == maxListedResources {
				b.WriteString("\n- …")
				break
			}
			fmt.Fprintf(&b, "\n- %s (%s)", r.URI, firstLine(cmp(r.Title, r.Name)))
		}
	}
	schema, raw, err := compileInputSchema(readResourceSchema)
	if err != nil {
		return offered{}, false
	}
	return offered{server: srv.name, tool: ReadResourceTool, reader: true, schema: schema,
		spec: domain.ToolSpec{Name: name, Description: b.String(), Parameters: raw}}, true
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readResource runs the reader: the resource's text (capped like any output), or what its
// binary contents are.
func readResource(ctx context.Context, srv *server, args string) (tools.Output, error) {
	var in struct {
		URI string `json:"uri"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil || in.URI == "" {
		return errorOutput("read_resource needs {\"uri\": \"…\"}"), nil
	}
	res, err := srv.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: in.URI})
	if err != nil {
		return tools.Output{}, err
	}
	whole, _ := resourceContents(res, false)
	text, truncated := tools.CapOutput(whole)
	if text == "" {
		text = "(empty resource)"
	}
	return tools.Output{Outcome: domain.OutcomeSuccess, Content: text,
		Display: &domain.ToolDisplay{Summary: summarize(srv.name, ReadResourceTool, domain.OutcomeSuccess, text, 0, truncated)}}, nil
}

// Prompt is one prompt a server offers, for the composer's commands.
type Prompt struct {
	Server, Name, Title, Description string
	Arguments                        []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name, Description string
	Required          bool
}

// Prompts lists the prompts of the conversation's ready servers (a server still starting is
// left out; it never waits for one), sorted by server and name.
func (s *Set) Prompts(ctx context.Context) ([]Prompt, error) {
	var out []Prompt
	var errs []error
	for _, srv := range s.readyServers() {
		init := srv.session.InitializeResult()
		if init == nil || init.Capabilities == nil || init.Capabilities.Prompts == nil {
			continue
		}
		for p, err := range srv.session.Prompts(ctx, nil) {
			if err != nil {
				errs = append(errs, fmt.Errorf("list the prompts of MCP server %s: %w", srv.name, err))
				break
			}
			pr := Prompt{Server: srv.name, Name: p.Name, Title: p.Title, Description: firstLine(p.Description)}
			for _, a := range p.Arguments {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, pr)
		}
	}
	return out, errors.Join(errs...)
}

// GetPrompt fetches one prompt with its arguments and returns its messages as text, each
// headed by its role when there is more than one.
func (s *Set) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	srv, err := s.readyServer(server)
	if err != nil {
		return "", err
	}
	res, err := srv.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil {
		return "", fmt.Errorf("get the prompt %s of MCP server %s: %w", name, server, err)
	}
	var b strings.Builder
	for _, m := range res.Messages {
		if len(res.Messages) > 1 {
			fmt.Fprintf(&b, "[%s]\n", m.Role)
		}
		switch c := m.Content.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.EmbeddedResource:
			if c.Resource != nil {
				b.WriteString(c.Resource.Text)
			}
		default:
			fmt.Fprintf(&b, "[content of type %T left out]", c)
		}
		b.WriteString("\n")
	}
	return strings.TrimSpace(b.String()), nil
}
