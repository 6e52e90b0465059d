package lsp

import "encoding/json"

// The structures of the Language Server Protocol 3.17 that the client sends or reads; field
// names are the specification's.

// Position is zero-based; Character counts in the connection's position encoding.
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a half-open span of a document.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Location is a range in a document named by its URI.
type Location struct {
	URI   string `json:"uri"`
	Range Range  `json:"range"`
}

// locationOrLink decodes either a Location or a LocationLink (definition answers both).
type locationOrLink struct {
	URI                  string `json:"uri"`
	Range                *Range `json:"range"`
	TargetURI            string `json:"targetUri"`
	TargetSelectionRange *Range `json:"targetSelectionRange"`
}

func (l locationOrLink) location() (Location, bool) {
	switch {
	case l.URI != "" && l.Range != nil:
		return Location{URI: l.URI, Range: *l.Range}, true
	case l.TargetURI != "" && l.TargetSelectionRange != nil:
		return Location{URI: l.TargetURI, Range: *l.TargetSelectionRange}, true
	}
	return Location{}, false
}

// Severity of a diagnostic: 1 error, 2 warning, 3 information, 4 hint.
type Severity int

// SeverityError is the only severity reported after an edit.
const SeverityError Severity = 1

// Diagnostic is one problem the server found.
type Diagnostic struct {
	Range    Range           `json:"range"`
	Severity Severity        `json:"severity,omitempty"`
	Code     json.RawMessage `json:"code,omitempty"`
	Source   string          `json:"source,omitempty"`
	Message  string          `json:"message"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Text string `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type referenceParams struct {
	textDocumentPositionParams
	Context struct {
		IncludeDeclaration bool `json:"includeDeclaration"`
	} `json:"context"`
}

// documentSymbol is the hierarchical answer to textDocument/documentSymbol; symbolInformation
// the flat one, also the answer to workspace/symbol.
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail,omitempty"`
	Kind           int              `json:"kind"`
	Range          Range            `json:"range"`
	SelectionRange Range            `json:"selectionRange"`
	Children       []documentSymbol `json:"children,omitempty"`
	// Location is set only in the flat form.
	Location      *Location `json:"location,omitempty"`
	ContainerName string    `json:"containerName,omitempty"`
}

type hoverResult struct {
	Contents json.RawMessage `json:"contents"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeResult struct {
	Capabilities struct {
		PositionEncoding   string          `json:"positionEncoding,omitempty"`
		DiagnosticProvider json.RawMessage `json:"diagnosticProvider,omitempty"`
	} `json:"capabilities"`
}

// symbolKinds names LSP's SymbolKind values (1-based).
var symbolKinds = []string{"", "file", "module", "namespace", "package", "class", "method", "property",
	"field", "constructor", "enum", "interface", "function", "variable", "constant", "string", "number",
	"boolean", "array", "object", "key", "null", "enum member", "struct", "event", "operator", "type parameter"}

func symbolKind(k int) string {
	if k > 0 && k < len(symbolKinds) {
		return symbolKinds[k]
	}
	return "symbol"
}
