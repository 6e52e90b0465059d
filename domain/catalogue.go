package domain

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"text/template"
)

// Tool names the model sees. They are part of the conversation history, so they never change.
const (
	ToolBash               = "bash"
	ToolPatch              = "patch"
	ToolThink              = "think"
	ToolKeywordSearch      = "keyword_search"
	ToolReadImage          = "read_image"
	ToolSpawnAgents        = "spawn_agents"
	ToolSubmitResult       = "submit_result"
	ToolRequestModeUpgrade = "request_mode_upgrade"
	ToolFetchURL           = "fetch_url"
	ToolTodo               = "todo"
)

// MCPToolPrefix starts the name of every tool an MCP server provides (mcp__SERVER__TOOL).
// The core offers such calls to the runtime, which knows the servers; it answers a name that
// no server of the conversation has.
const MCPToolPrefix = "mcp__"

// IsMCPTool reports whether a tool name belongs to an MCP server.
func IsMCPTool(name string) bool {
	return strings.HasPrefix(name, MCPToolPrefix) && len(name) > len(MCPToolPrefix)
}

// Limits of the tools. The tools package enforces them, and the descriptions and schemas the
// model reads are rendered from them, so what the model is told cannot drift from what
// happens.
const (
	BashDefaultTimeoutSeconds = 30
	BashMaxTimeoutSeconds     = 900
	// ToolOutputLimit is about how much of a command's output the model gets, stdout and
	// stderr together; the rest is cut from the middle. A sub-agent's last answer is cut to
	// it too (REQ-BED-008), and every tool result further to what is left of the window
	// (FitToolResult).
	ToolOutputLimit = 128 * 1024
	// PatchMaxFileBytes is the largest file patch reads or writes.
	PatchMaxFileBytes = 1 << 20
	// FetchTimeoutSeconds bounds each step of fetching a page: connecting, the TLS
	// handshake, waiting for the answer's header, and reading its body. The wait for the
	// person's answer to a host card in Project mode is not one of them (Stop ends it).
	FetchTimeoutSeconds = 30
	// FetchMaxRedirects is how many redirects fetch_url follows before it gives up.
	FetchMaxRedirects = 10
	// FetchMaxBodyBytes is the most of an answer fetch_url reads (after decompression);
	// the rest is left unread and the result says so.
	FetchMaxBodyBytes = 8 << 20
)

// FormatBytes writes a size for people and models: 900 bytes, 128 KB, 1 MB, 1.5 MB.
func FormatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// toolDocFacts are the numbers the tool descriptions (tooldocs/*.md, Go templates) may
// state; a description writes {{.BashMaxTimeoutSeconds}} or {{bytes .ToolOutputLimit}},
// never the number itself (TestToolDocsStateNoBareNumbers).
var toolDocFacts = struct {
	BashDefaultTimeoutSeconds, BashMaxTimeoutSeconds int
	ToolOutputLimit, PatchMaxFileBytes               int64
	MaxSubAgents, TodoMaxItems, TodoMaxContentRunes  int
	TodoStatuses                                     string
	FetchTimeoutSeconds, FetchMaxRedirects           int
	FetchMaxBodyBytes                                int64
	LSPMaxNewErrors, LSPMaxPlaces                    int
}{BashDefaultTimeoutSeconds, BashMaxTimeoutSeconds, ToolOutputLimit, PatchMaxFileBytes, MaxSubAgents,
	TodoMaxItems, TodoMaxContentRunes, todoStatusWords(), FetchTimeoutSeconds, FetchMaxRedirects, FetchMaxBodyBytes,
	LSPMaxNewErrors, LSPMaxPlaces}

// ToolSpec is what the model is told about one tool: its name, a description written for a
// model, and the JSON schema of its arguments.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

//go:embed tooldocs/*.md
var toolDocs embed.FS

// descriptions are the rendered tool descriptions by tool name (the language tools' too:
// languagetools.go adds their schemas in its init), made on first use, not in package
// initialisation: rendering the templates was most of this package's initialisation (about
// 700 allocations and 0.1 MB in every start, --version included; issue 39).
var descriptions = sync.OnceValue(renderToolDocs)

func renderToolDocs() map[string]string {
	out := map[string]string{}
	for name := range schemas {
		out[name] = renderToolDoc(name)
	}
	return out
}

// renderToolDoc renders the description of one tool from tooldocs/NAME.md.
func renderToolDoc(name string) string {
	b, err := toolDocs.ReadFile("tooldocs/" + name + ".md")
	if err != nil {
		// The docs are embedded at build time; a missing one is a programming error
		// that the catalogue test catches.
		panic(fmt.Sprintf("tool description for %s is missing: %v", name, err))
	}
	t, err := template.New(name).Option("missingkey=error").
		Funcs(template.FuncMap{"bytes": FormatBytes}).Parse(string(b))
	if err != nil {
		panic(fmt.Sprintf("tool description for %s is not a valid template: %v", name, err))
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, toolDocFacts); err != nil {
		panic(fmt.Sprintf("tool description for %s does not render: %v", name, err))
	}
	return strings.TrimSpace(buf.String())
}

func describe(name string) string { return descriptions()[name] }

var schemas = map[string]string{
	ToolBash: fmt.Sprintf(`{"type":"object","properties":{
		"command":{"type":"string","description":"The command, run with bash -c in the working directory."},
		"timeout_seconds":{"type":"integer","minimum":1,"maximum":%d,"description":"Kill the command after this many seconds (default %d, at most %d)."}},
		"required":["command"],"additionalProperties":false}`,
		BashMaxTimeoutSeconds, BashDefaultTimeoutSeconds, BashMaxTimeoutSeconds),
	ToolPatch: `{"type":"object","properties":{
		"path":{"type":"string","description":"File path relative to the working directory."},
		"patches":{"type":"array","minItems":1,"items":{"type":"object","properties":{
			"operation":{"type":"string","enum":["replace","append_eof","prepend_bof","overwrite"]},
			"old_text":{"type":"string","description":"For replace: text that occurs exactly once."},
			"new_text":{"type":"string","description":"The text to insert or write."}},
			"required":["operation","new_text"],"additionalProperties":false}}},
		"required":["path","patches"],"additionalProperties":false}`,
	ToolThink: `{"type":"object","properties":{
		"thoughts":{"type":"string","description":"Your reasoning or plan."}},
		"required":["thoughts"],"additionalProperties":false}`,
	ToolKeywordSearch: `{"type":"object","properties":{
		"query":{"type":"string","description":"What you are looking for, in a sentence."},
		"search_terms":{"type":"array","minItems":1,"items":{"type":"string"},"description":"Keywords, most important first."}},
		"required":["query","search_terms"],"additionalProperties":false}`,
	ToolReadImage: `{"type":"object","properties":{
		"path":{"type":"string","description":"Image path relative to the working directory."}},
		"required":["path"],"additionalProperties":false}`,
	ToolSpawnAgents: fmt.Sprintf(`{"type":"object","properties":{
		"tasks":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"string"},"description":"One self-contained task per sub-agent."}},
		"required":["tasks"],"additionalProperties":false}`, MaxSubAgents),
	ToolSubmitResult: `{"type":"object","properties":{
		"result":{"type":"string","description":"Final result for the agent that started you."},
		"success":{"type":"boolean","description":"Whether the task was completed (default true)."}},
		"required":["result"],"additionalProperties":false}`,
	ToolFetchURL: `{"type":"object","properties":{
		"url":{"type":"string","pattern":"^[Hh][Tt][Tt][Pp][Ss]?://","description":"The address of the page, http:// or https://."},
		"start_index":{"type":"integer","minimum":0,"description":"Where to start in the page's Markdown, in bytes (default 0); a cut result names the value that continues it."}},
		"required":["url"],"additionalProperties":false}`,
	ToolRequestModeUpgrade: `{"type":"object","properties":{
		"reason":{"type":"string","description":"Why write access is needed: what you will change."}},
		"required":["reason"],"additionalProperties":false}`,
	ToolTodo: fmt.Sprintf(`{"type":"object","properties":{
		"todos":{"type":"array","maxItems":%d,"description":"The whole list, in order; [] clears it.","items":{"type":"object","properties":{
			"content":{"type":"string","minLength":1,"maxLength":%d,"description":"The task, on one line."},
			"status":{"type":"string","enum":%s}},
			"required":["content","status"],"additionalProperties":false}}},
		"required":["todos"],"additionalProperties":false}`, TodoMaxItems, TodoMaxContentRunes, jsonList(TodoStatuses)),
}

// jsonList writes a list as a JSON array, for a schema's enum.
func jsonList[T any](v []T) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("enum does not encode: %v", err))
	}
	return string(b)
}

func spec(name string) ToolSpec {
	// Compact once here so requests stay small and the schema text is stable byte for byte.
	var v any
	if err := json.Unmarshal([]byte(schemas[name]), &v); err != nil {
		panic(fmt.Sprintf("schema for %s is not JSON: %v", name, err))
	}
	compact, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("schema for %s does not encode: %v", name, err))
	}
	return ToolSpec{Name: name, Description: describe(name), Parameters: compact}
}

var (
	// fetch_url is the parent's only: a sub-agent stays Restricted where the sandbox
	// works, where fetching is refused, and it cannot ask for more. todo is offered to
	// parents only: a sub-agent does one task that its parent's list already names, and no
	// one would see its own list.
	parentTools = []string{ToolBash, ToolPatch, ToolThink, ToolKeywordSearch, ToolReadImage,
		ToolFetchURL, ToolSpawnAgents, ToolRequestModeUpgrade, ToolTodo}
	subAgentTools = []string{ToolBash, ToolPatch, ToolThink, ToolKeywordSearch, ToolReadImage,
		ToolSubmitResult}
)

// ToolsFor returns the tools offered to a conversation (REQ-BED-009, REQ-BED-018): a sub-agent
// gets submit_result and never spawn_agents or request_mode_upgrade. The set does not depend
// on the mode (REQ-BED-017). Each call returns a copy of its own (the schemas' bytes are
// shared and never written).
func ToolsFor(subAgent bool) []ToolSpec {
	if subAgent {
		return slices.Clone(subAgentToolSpecs())
	}
	return slices.Clone(parentToolSpecs())
}

// The two sets are built on first use, once: every model request offers one, and building
// it (each schema parsed and encoded again, each description looked up) cost about 0.16 ms
// of every round of a headless chat (issue 39).
var (
	parentToolSpecs   = sync.OnceValue(func() []ToolSpec { return buildSpecs(parentTools) })
	subAgentToolSpecs = sync.OnceValue(func() []ToolSpec { return buildSpecs(subAgentTools) })
)

func buildSpecs(names []string) []ToolSpec {
	out := make([]ToolSpec, len(names))
	for i, n := range names {
		out[i] = spec(n)
	}
	return out
}

// Offers reports whether a tool is in the set offered to this kind of conversation. MCP tools
// are offered to every conversation; which exist is the runtime's to say.
func Offers(subAgent bool, name string) bool {
	return IsMCPTool(name) || IsLanguageTool(name) || slices.Contains(toolNames(subAgent), name)
}

// toolNames lists the names ToolsFor offers, without building the specs (which parses every
// schema), for the core's "unknown tool" answer.
func toolNames(subAgent bool) []string {
	if subAgent {
		return subAgentTools
	}
	return parentTools
}

// Argument shapes of the tools the core interprets itself.
type (
	ModeUpgradeArgs struct {
		Reason string `json:"reason"`
	}
	SpawnAgentsArgs struct {
		Tasks []string `json:"tasks"`
	}
	SubmitResultArgs struct {
		Result  string `json:"result"`
		Success *bool  `json:"success"`
	}
)
