package domain

import "slices"

// The language servers' tools (package lsp). The core offers their calls to the runtime, as
// it does MCP calls; the runtime offers the tools to the model only where a server for the
// project's languages runs or can start, and answers a call no server can serve.
const (
	ToolDiagnostics = "diagnostics"
	ToolDefinition  = "definition"
	ToolReferences  = "references"
	ToolSymbols     = "symbols"
	ToolHover       = "hover"
)

// Limits of the language tools' answers: the errors appended to an edit's result, and the
// places one answer lists; the rest are counted.
const (
	LSPMaxNewErrors = 10
	LSPMaxPlaces    = 100
)

var languageTools = []string{ToolDiagnostics, ToolDefinition, ToolReferences, ToolSymbols, ToolHover}

// IsLanguageTool reports whether name is one of the language servers' tools.
func IsLanguageTool(name string) bool { return slices.Contains(languageTools, name) }

// LanguageTools are the specs of the language servers' tools, for a request where a server
// can answer them.
func LanguageTools() []ToolSpec {
	out := make([]ToolSpec, len(languageTools))
	for i, n := range languageTools {
		out[i] = spec(n)
	}
	return out
}

// The argument schemas: a place in a file is its path and one-based line and column, as
// the places in results are written (path:line:column).
const (
	placeSchema = `{"type":"object","properties":{
		"path":{"type":"string","description":"File path relative to the working directory."},
		"line":{"type":"integer","minimum":1,"description":"Line, counted from 1."},
		"column":{"type":"integer","minimum":1,"description":"Column in characters, counted from 1: any character of the symbol's name."}},
		"required":["path","line","column"],"additionalProperties":false}`
)

func init() {
	schemas[ToolDiagnostics] = `{"type":"object","properties":{
		"path":{"type":"string","description":"File path relative to the working directory; omit it for every file the language servers have checked."}},
		"additionalProperties":false}`
	schemas[ToolDefinition] = placeSchema
	schemas[ToolReferences] = placeSchema
	schemas[ToolHover] = placeSchema
	schemas[ToolSymbols] = `{"type":"object","properties":{
		"path":{"type":"string","description":"A file: its outline. With query, a file of the language to search."},
		"query":{"type":"string","description":"A name to find in the whole project instead of one file's outline."}},
		"additionalProperties":false}`
}
