package lsp

import (
	"slices"
	"strings"
	"testing"
)

// The `lsp` section is read in our (and crush's) shape and in opencode's; disabled removes
// a known server; a server without a command or files is an error that says what to add.
func TestConfigShapes_REQ_LSP_008(t *testing.T) {
	specs, err := ParseConfig([]byte(`{"lsp": {
		"gopls": {"disabled": true},
		"zls": {"command": "zls", "filetypes": ["zig", "zon"]},
		"elixir": {"command": ["elixir-ls", "--stdio"], "extensions": [".ex", ".exs"], "env": {"MIX_ENV": "dev"}},
		"custom-ts": {"command": "my-ts", "args": ["--stdio"], "extensions": [".ts"]}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Spec{}
	for _, s := range specs {
		byName[s.Name] = s
	}
	if _, ok := byName["gopls"]; ok {
		t.Error("disabled gopls is still used")
	}
	if z := byName["zls"]; z.Command != "zls" || z.languageOf("a.zig") != "zig" || z.languageOf("b.ZON") != "zon" {
		t.Errorf("crush shape: %+v", z)
	}
	if e := byName["elixir"]; e.Command != "elixir-ls" || !slices.Equal(e.Args, []string{"--stdio"}) || e.Env["MIX_ENV"] != "dev" || e.languageOf("x.exs") != "exs" {
		t.Errorf("opencode shape: %+v", e)
	}
	if c := byName["custom-ts"]; c.languageOf("x.ts") != "typescript" || !slices.Equal(c.Args, []string{"--stdio"}) {
		t.Errorf("a configured server of a known language: %+v", c)
	}
	if _, ok := byName["clangd"]; !ok {
		t.Error("the known servers not named in the file are gone")
	}
	for _, bad := range []string{`{"lsp": {"x": {"extensions": [".x"]}}}`, `{"lsp": {"x": {"command": "x"}}}`, `{"lsp": []}`} {
		if _, err := ParseConfig([]byte(bad)); err == nil || !strings.Contains(err.Error(), "") {
			t.Errorf("%s was accepted", bad)
		}
	}
}
