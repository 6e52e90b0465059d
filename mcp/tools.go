package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/toolschema"
)

// MaxToolNameLen is the longest function name the OpenAI API accepts.
const MaxToolNameLen = 64

// maxDescription bounds a server's tool description: it goes into every request.
const maxDescription = 4096

var toolNameChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// ToolName is the name the model sees for a server's tool: mcp__SERVER__TOOL, with any
// character the API does not accept replaced by '_'.
func ToolName(server, tool string) string {
	return domain.MCPToolPrefix + server + "__" + toolNameChars.ReplaceAllString(tool, "_")
}

// offered is one tool as it was offered to the model.
type offered struct {
	server string
	tool   string // the server's own name for it
	// reader marks the app's resource reader (mcp__SERVER__read_resource), which is not one
	// of the server's tools.
	reader bool
	// destructive marks a tool whose annotations say it may change or delete data (and not
	// that it only reads; ToolInfo.Destructive): outside Unrestricted mode the person
	// confirms its calls (Set.confirm). A tool without annotations claims nothing and is not
	// asked about: asking before every call would teach the person to click Allow unread.
	destructive bool
	schema      *toolschema.Schema
	spec        domain.ToolSpec
}

// ToolInfo is one of a server's tools, as Settings and `mcp list` show it.
type ToolInfo struct {
	// Name is what the model calls it (mcp__SERVER__TOOL).
	Name        string
	ServerTool  string
	Description string
	// Skipped says why the tool is not offered (a bad schema, a clashing name); empty when it is.
	Skipped string
	// ReadOnly and Destructive are the server's hints (readOnlyHint, destructiveHint, whose
	// default is true for a tool that is not read-only): what Settings shows and the model
	// reads in the tool's description. Hints, not guarantees: the sandbox still decides.
	ReadOnly, Destructive bool
}

// hints reads a tool's annotations as the protocol defines their defaults.
func hints(a *sdk.ToolAnnotations) (readOnly, destructive bool) {
	if a == nil {
		return false, false // unknown: nothing is claimed either way
	}
	if a.ReadOnlyHint {
		return true, false
	}
	return false, a.DestructiveHint == nil || *a.DestructiveHint
}

// convert checks a server's tools and turns the good ones into tool specs. A tool whose input
// schema does not compile as JSON Schema (or is not an object schema), whose name is too long
// or clashes with another, is skipped, and the returned infos say why.
func convert(server string, list []*sdk.Tool) ([]offered, []ToolInfo) {
	var out []offered
	var infos []ToolInfo
	seen := map[string]bool{}
	for _, t := range list {
		name := ToolName(server, t.Name)
		info := ToolInfo{Name: name, ServerTool: t.Name, Description: firstLine(t.Description)}
		info.ReadOnly, info.Destructive = hints(t.Annotations)
		schema, raw, err := compileInputSchema(t.InputSchema)
		switch {
		case t.Name == "":
			info.Skipped = "the server gave it no name"
		case len(name) > MaxToolNameLen:
			info.Skipped = fmt.Sprintf("its name %s is longer than the %d characters models accept", name, MaxToolNameLen)
		case seen[name]:
			info.Skipped = "another of the server's tools has the same name once made safe for the model"
		case err != nil:
			info.Skipped = "its input schema is not valid JSON Schema: " + err.Error()
		}
		infos = append(infos, info)
		if info.Skipped != "" {
			continue
		}
		seen[name] = true
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = t.Title
		}
		if len(desc) > maxDescription {
			desc = strings.ToValidUTF8(desc[:maxDescription], "") + "…"
		}
		var hint string
		switch {
		case info.ReadOnly:
			hint = " The server says it only reads."
		case info.Destructive:
			hint = " The server says it may change or delete things."
		}
		desc = fmt.Sprintf("%s\n\n(Tool %q of the MCP server %q.%s)", desc, t.Name, server, hint)
		out = append(out, offered{server: server, tool: t.Name, schema: schema, destructive: info.Destructive,
			spec: domain.ToolSpec{Name: name, Description: strings.TrimSpace(desc), Parameters: raw}})
	}
	return out, infos
}

// compileInputSchema checks a tool's input schema against its draft's meta-schema and
// prepares it to validate calls (package toolschema: nothing is loaded from outside), and
// returns it compacted.
func compileInputSchema(in any) (*toolschema.Schema, json.RawMessage, error) {
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, nil, err
	}
	var top map[string]any
	if err := json.Unmarshal(raw, &top); err != nil || top["type"] != "object" {
		return nil, nil, errors.New(`the top level must be {"type": "object", …}`)
	}
	schema, err := toolschema.Compile(raw)
	if err != nil {
		return nil, nil, err
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, nil, err
	}
	return schema, compact.Bytes(), nil
}

// checkArgs validates a call's arguments against the tool's schema before the server sees
// them, so that the model gets one clear answer.
func (o offered) checkArgs(args string) error {
	return o.schema.Validate([]byte(args))
}

// withoutNulls is args without the optional properties the model set to null where the
// schema does not take null: models often write null for "not given", which is how the
// protocol reads it too (a null parameter sends no Mcp-Param header), while the schema would
// refuse the whole call. Anything else is left as it is, for checkArgs to judge.
func (o offered) withoutNulls(args string) string {
	var in map[string]json.RawMessage
	if !strings.Contains(args, "null") || json.Unmarshal([]byte(args), &in) != nil {
		return args
	}
	var schema struct {
		Properties map[string]struct {
			Type json.RawMessage `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(o.spec.Parameters, &schema) != nil {
		return args
	}
	dropped := false
	for k, v := range in {
		p, declared := schema.Properties[k]
		if string(v) != "null" || !declared || slices.Contains(schema.Required, k) || takesNull(p.Type) {
			continue
		}
		delete(in, k)
		dropped = true
	}
	if !dropped {
		return args
	}
	out, err := json.Marshal(in)
	if err != nil {
		return args
	}
	return string(out)
}

// takesNull reports whether a property's "type" admits null; a property without one (anyOf,
// a $ref, any value) is taken to, so that its null is left to the schema.
func takesNull(t json.RawMessage) bool {
	var one string
	if json.Unmarshal(t, &one) == nil {
		return one == "null"
	}
	var many []string
	if json.Unmarshal(t, &many) == nil {
		return slices.Contains(many, "null")
	}
	return true
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 160 {
		return string(r[:159]) + "…"
	}
	return s
}

// MaxInstructions bounds what one server's instructions add to the system prompt.
const MaxInstructions = 2048

// capText cuts s to at most n bytes on a rune boundary, marked.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + " […cut]"
}
