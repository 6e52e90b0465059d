package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/toolschema"
)

// compileSchema checks a tool's parameters against the JSON Schema meta-schema (draft 2020-12,
// which applies when a schema does not declare its draft) and returns the schema for
// validating arguments: package toolschema, the checker MCP servers' schemas go through.
func compileSchema(t *testing.T, spec ToolSpec) *toolschema.Schema {
	t.Helper()
	sch, err := toolschema.Compile(spec.Parameters)
	if err != nil {
		t.Fatalf("%s: schema is not a valid JSON Schema: %v", spec.Name, err)
	}
	return sch
}

func TestCatalogue_SchemasAndDescriptions(t *testing.T) {
	// Arguments each tool must accept and refuse, so that a schema typo shows up here rather
	// than as a model that cannot call a tool.
	examples := map[string]struct{ good, bad []string }{
		ToolBash: {
			good: []string{`{"command":"ls"}`, `{"command":"make","timeout_seconds":900}`},
			bad:  []string{`{}`, `{"command":1}`, `{"command":"ls","timeout_seconds":901}`, `{"command":"ls","timeout_seconds":0}`, `{"command":"ls","cwd":"/"}`},
		},
		ToolPatch: {
			good: []string{`{"path":"a.go","patches":[{"operation":"replace","old_text":"a","new_text":"b"}]}`},
			bad:  []string{`{"path":"a.go","patches":[]}`, `{"path":"a.go","patches":[{"operation":"delete","new_text":""}]}`, `{"patches":[{"operation":"overwrite","new_text":""}]}`},
		},
		ToolThink:         {good: []string{`{"thoughts":"x"}`}, bad: []string{`{}`}},
		ToolKeywordSearch: {good: []string{`{"query":"q","search_terms":["a"]}`}, bad: []string{`{"query":"q","search_terms":[]}`, `{"query":"q"}`}},
		ToolReadImage:     {good: []string{`{"path":"a.png"}`}, bad: []string{`{"path":5}`}},
		ToolSpawnAgents: {
			good: []string{`{"tasks":["a"]}`, `{"tasks":["1","2","3","4","5","6","7","8","9","10"]}`},
			bad:  []string{`{"tasks":[]}`, `{"tasks":["1","2","3","4","5","6","7","8","9","10","11"]}`, `{"tasks":"a"}`},
		},
		ToolSubmitResult:       {good: []string{`{"result":"r"}`, `{"result":"r","success":false}`}, bad: []string{`{"success":true}`}},
		ToolRequestModeUpgrade: {good: []string{`{"reason":"edit"}`}, bad: []string{`{}`}},
		ToolFetchURL: {
			good: []string{`{"url":"https://go.dev/doc/"}`, `{"url":"http://example.org","start_index":131072}`, `{"url":"HTTPS://X.ORG"}`},
			bad:  []string{`{}`, `{"url":"file:///etc/passwd"}`, `{"url":"ftp://x"}`, `{"url":"https://x","start_index":-1}`, `{"url":"https://x","raw":true}`},
		},
		ToolTodo: {
			good: []string{`{"todos":[]}`, `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"in_progress"},{"content":"c","status":"done"}]}`},
			bad: []string{`{}`, `{"todos":[{"content":"a","status":"completed"}]}`, `{"todos":[{"content":"","status":"done"}]}`,
				`{"todos":[{"content":"a"}]}`, `{"todos":[{"content":"a","status":"done","priority":"high"}]}`,
				`{"todos":[{"content":"` + strings.Repeat("x", TodoMaxContentRunes+1) + `","status":"done"}]}`},
		},
	}
	all := append(ToolsFor(false), ToolsFor(true)...)
	seen := map[string]bool{}
	for _, spec := range all {
		if seen[spec.Name] {
			continue
		}
		seen[spec.Name] = true
		t.Run(spec.Name, func(t *testing.T) {
			if len(strings.TrimSpace(spec.Description)) < 80 {
				t.Fatalf("description is missing or too short to guide a model: %q", spec.Description)
			}
			sch := compileSchema(t, spec)
			ex, ok := examples[spec.Name]
			if !ok {
				t.Fatalf("no argument examples for %s: add them above", spec.Name)
			}
			for _, args := range ex.good {
				if err := sch.Validate([]byte(args)); err != nil {
					t.Errorf("schema refuses good arguments %s: %v", args, err)
				}
			}
			for _, args := range ex.bad {
				if err := sch.Validate([]byte(args)); err == nil {
					t.Errorf("schema accepts bad arguments %s", args)
				}
			}
		})
	}
	if len(seen) != 10 {
		t.Fatalf("catalogue has %d tools; want the 8 of issue 2, fetch_url and todo", len(seen))
	}
}

// REQ-BED-009, REQ-BED-018: sub-agents get submit_result and never spawn_agents or
// request_mode_upgrade; parents never get submit_result.
func TestCatalogue_REQ_BED_009_018_ToolSets(t *testing.T) {
	names := func(specs []ToolSpec) []string {
		out := make([]string, len(specs))
		for i, s := range specs {
			out[i] = s.Name
		}
		return out
	}
	parent, sub := names(ToolsFor(false)), names(ToolsFor(true))
	common := []string{ToolBash, ToolPatch, ToolThink, ToolKeywordSearch, ToolReadImage}
	for _, n := range common {
		if !slices.Contains(parent, n) || !slices.Contains(sub, n) {
			t.Errorf("%s must be offered to parents and sub-agents", n)
		}
	}
	for _, tt := range []struct {
		tools []string
		name  string
		want  bool
		who   string
	}{
		{parent, ToolSpawnAgents, true, "parent"}, {parent, ToolRequestModeUpgrade, true, "parent"},
		{parent, ToolSubmitResult, false, "parent"},
		{sub, ToolSubmitResult, true, "sub-agent"}, {sub, ToolSpawnAgents, false, "sub-agent"},
		{sub, ToolRequestModeUpgrade, false, "sub-agent"},
		// A sub-agent stays Restricted where the sandbox works and cannot ask for more.
		{parent, ToolFetchURL, true, "parent"}, {sub, ToolFetchURL, false, "sub-agent"},
		{parent, ToolTodo, true, "parent"}, {sub, ToolTodo, false, "sub-agent"},
	} {
		if slices.Contains(tt.tools, tt.name) != tt.want {
			t.Errorf("%s offered %s = %v; want %v", tt.who, tt.name, !tt.want, tt.want)
		}
		if Offers(tt.who == "sub-agent", tt.name) != tt.want {
			t.Errorf("Offers(%s, %s) = %v; want %v", tt.who, tt.name, !tt.want, tt.want)
		}
	}
	if Offers(false, "rm_rf") || Offers(true, "") || Offers(false, MCPToolPrefix) {
		t.Errorf("Offers accepts unknown tools")
	}
	// MCP tools go to the runtime, which knows the conversation's servers, in every mode and
	// for sub-agents too.
	if !Offers(false, "mcp__fs__read_file") || !Offers(true, "mcp__fs__read_file") {
		t.Errorf("Offers refuses an MCP tool")
	}
}

// An MCP call runs as a tool like bash: in the conversation's mode, in Restricted mode too
// (the sandbox, not the core, decides what it may do).
func TestMCPCallExecutes(t *testing.T) {
	for name, opts := range map[string][]convOption{"restricted": nil, "unrestricted": {unrestricted}} {
		c := requesting(t, opts...)
		mcpCall := call("c1", "mcp__fs__write_file", `{"path":"x"}`)
		_, effects := respond(t, c, "", mcpCall)
		e := only[ExecuteTool](t, effects)
		if e.Call.Name != mcpCall.Name || e.Mode != c.Mode {
			t.Errorf("%s: %s", name, describeEffects(effects))
		}
	}
}

// TestToolDocsStateNoBareNumbers: a limit a description states must come from its constant,
// so the description templates may hold no digit outside a template action ({{...}}) or an
// example in a code span (`| tail -50`).
func TestToolDocsStateNoBareNumbers(t *testing.T) {
	actions := regexp.MustCompile(`\{\{[^}]*\}\}|` + "`[^`]*`")
	entries, err := toolDocs.ReadDir("tooldocs")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		src, err := toolDocs.ReadFile("tooldocs/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(src), "\n") {
			if rest := actions.ReplaceAllString(line, ""); strings.ContainsAny(rest, "0123456789") {
				t.Errorf("tooldocs/%s:%d states a number that is not a constant: %q", e.Name(), i+1, line)
			}
		}
	}
}

// TestToolDocsRenderTheConstants checks the rendered descriptions and schemas say what the
// constants say.
func TestToolDocsRenderTheConstants(t *testing.T) {
	specs := map[string]ToolSpec{}
	for _, s := range append(ToolsFor(false), ToolsFor(true)...) {
		specs[s.Name] = s
	}
	for name, want := range map[string][]string{
		ToolBash: {fmt.Sprintf("(default %d, at most %d)", BashDefaultTimeoutSeconds, BashMaxTimeoutSeconds),
			"about " + FormatBytes(ToolOutputLimit) + " is shortened"},
		ToolPatch: {"files over " + FormatBytes(PatchMaxFileBytes) + " are refused"},
		ToolFetchURL: {fmt.Sprintf("at most %d.", FetchMaxRedirects), fmt.Sprintf("within %d seconds", FetchTimeoutSeconds),
			"At most " + FormatBytes(FetchMaxBodyBytes) + " of a page", "about " + FormatBytes(ToolOutputLimit) + " is cut"},
	} {
		for _, w := range want {
			if !strings.Contains(specs[name].Description, w) {
				t.Errorf("the %s description lacks %q:\n%s", name, w, specs[name].Description)
			}
		}
	}
	todo := specs[ToolTodo]
	for _, w := range []string{fmt.Sprintf(`"maxItems":%d`, TodoMaxItems), fmt.Sprintf(`"maxLength":%d`, TodoMaxContentRunes),
		`"enum":["pending","in_progress","done"]`} {
		if !strings.Contains(string(todo.Parameters), w) {
			t.Errorf("the todo schema lacks %s: %s", w, todo.Parameters)
		}
	}
	for _, w := range []string{fmt.Sprintf("at most %d characters", TodoMaxContentRunes), fmt.Sprintf("At most %d tasks", TodoMaxItems),
		"pending, in_progress, done"} {
		if !strings.Contains(todo.Description, w) {
			t.Errorf("the todo description lacks %q:\n%s", w, todo.Description)
		}
	}
	if !strings.Contains(string(specs[ToolSpawnAgents].Parameters), fmt.Sprintf(`"maxItems":%d`, MaxSubAgents)) {
		t.Errorf("the spawn_agents schema does not cap tasks at MaxSubAgents: %s", specs[ToolSpawnAgents].Parameters)
	}
	if FormatBytes(128*1024) != "128 KB" || FormatBytes(1<<20) != "1 MB" || FormatBytes(3<<19) != "1.5 MB" || FormatBytes(900) != "900 bytes" {
		t.Error("FormatBytes writes sizes wrongly")
	}
	for _, s := range specs {
		if strings.Contains(s.Description, "{{") || strings.Contains(s.Description, "<no value>") {
			t.Errorf("the %s description has an unrendered template: %s", s.Name, s.Description)
		}
	}
}

// The offered tools are built once, not for every model request (issue 39: building them
// was 0.16 ms of every headless round): a call allocates only its own copy of the list, and
// a caller that changes its copy changes no other.
func TestToolsForBuildsTheSetsOnce_REQ_BED_009(t *testing.T) {
	for _, sub := range []bool{false, true} {
		ToolsFor(sub)
		if n := testing.AllocsPerRun(20, func() { ToolsFor(sub) }); n > 1 {
			t.Errorf("ToolsFor(%v) allocates %.0f times a call; want 1 (the copy)", sub, n)
		}
		a := ToolsFor(sub)
		a[0].Name, a[0].Description = "changed", "changed"
		if b := ToolsFor(sub); b[0].Name == "changed" || b[0].Description == "changed" {
			t.Errorf("ToolsFor(%v): a caller's change reached the next call", sub)
		}
	}
}
