package domain

import (
	"fmt"
	"strings"
	"testing"
)

// The language tools (issue 35): valid schemas that take a place as path, line and column
// from one; descriptions that state the constants; offered to the runtime like MCP tools,
// never in the fixed set.
func TestLanguageTools_REQ_LSP_003(t *testing.T) {
	examples := map[string]struct{ good, bad []string }{
		ToolDiagnostics: {good: []string{`{}`, `{"path":"a.go"}`}, bad: []string{`{"path":1}`, `{"file":"a.go"}`}},
		ToolDefinition:  {good: []string{`{"path":"a.go","line":1,"column":1}`}, bad: []string{`{"path":"a.go","line":0,"column":1}`, `{"path":"a.go","line":1}`}},
		ToolReferences:  {good: []string{`{"path":"a.go","line":3,"column":9}`}, bad: []string{`{"line":3,"column":9}`, `{"path":"a.go","line":3,"column":0}`}},
		ToolHover:       {good: []string{`{"path":"a.go","line":3,"column":9}`}, bad: []string{`{}`}},
		ToolSymbols:     {good: []string{`{"path":"a.go"}`, `{"query":"Hello"}`, `{"path":"a.go","query":"Hello"}`}, bad: []string{`{"name":"x"}`}},
	}
	specs := LanguageTools()
	if len(specs) != len(examples) {
		t.Fatalf("%d language tools; want %d", len(specs), len(examples))
	}
	for _, spec := range specs {
		ex, ok := examples[spec.Name]
		if !ok {
			t.Fatalf("no examples for %s", spec.Name)
		}
		sch := compileSchema(t, spec)
		for _, g := range ex.good {
			if err := sch.Validate([]byte(g)); err != nil {
				t.Errorf("%s refuses %s: %v", spec.Name, g, err)
			}
		}
		for _, b := range ex.bad {
			if sch.Validate([]byte(b)) == nil {
				t.Errorf("%s accepts %s", spec.Name, b)
			}
		}
		if spec.Description == "" || !IsLanguageTool(spec.Name) || !Offers(false, spec.Name) || !Offers(true, spec.Name) {
			t.Errorf("%s: description %q, or not offered to the runtime", spec.Name, spec.Description)
		}
		for _, fixed := range ToolsFor(false) {
			if fixed.Name == spec.Name {
				t.Errorf("%s is in the fixed set, offered where no server can answer", spec.Name)
			}
		}
	}
	for _, name := range []string{ToolDiagnostics, ToolReferences, ToolSymbols} {
		d := strings.ToLower(strings.Join(strings.Fields(describe(name)), " "))
		if !strings.Contains(d, fmt.Sprintf("at most %d", LSPMaxPlaces)) {
			t.Errorf("the %s description does not state LSPMaxPlaces:\n%s", name, d)
		}
	}
}
