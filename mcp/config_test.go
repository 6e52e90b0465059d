package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The configuration other MCP clients write is read as is; mistakes are named, per server.
func TestParseConfig(t *testing.T) {
	good := `{"mcpServers": {
		"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/src"], "env": {"A": "b"}},
		"issues": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
		"plain-stdio_2": {"type": "stdio", "command": "srv", "disabled": true}}}`
	c, err := ParseConfig([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Names(), ","); got != "files,issues,plain-stdio_2" {
		t.Errorf("names %s", got)
	}
	if f := c.Servers["files"]; f.Kind() != "stdio" || len(f.Args) != 3 || f.Env["A"] != "b" {
		t.Errorf("files %+v", f)
	}
	if i := c.Servers["issues"]; i.Kind() != "url" || i.Headers["Authorization"] != "Bearer x" {
		t.Errorf("issues %+v", i)
	}
	if empty, err := ParseConfig([]byte("  ")); err != nil || len(empty.Servers) != 0 {
		t.Errorf("an empty file: %+v %v", empty, err)
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"not JSON", `{"mcpServers": [`, "not a valid MCP configuration"},
		{"both", `{"mcpServers": {"x": {"command": "a", "url": "http://h"}}}`, "both a command and a url"},
		{"neither", `{"mcpServers": {"x": {}}}`, "neither a command nor a url"},
		{"bad url", `{"mcpServers": {"x": {"url": "ftp://h"}}}`, "not an http(s) URL"},
		{"sse", `{"mcpServers": {"x": {"type": "sse", "url": "http://h/sse"}}}`, "only streamable HTTP"},
		{"type mismatch", `{"mcpServers": {"x": {"type": "http", "command": "a"}}}`, "does not go with a command"},
		{"double underscore", `{"mcpServers": {"a__b": {"command": "a"}}}`, "not usable"},
		{"dot", `{"mcpServers": {"a.b": {"command": "a"}}}`, "not usable"},
		{"too long", `{"mcpServers": {"` + strings.Repeat("a", MaxServerNameLen+1) + `": {"command": "a"}}}`, "not usable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseConfig([]byte(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// Saving writes a private file atomically that reads back the same; a broken file is never
// overwritten by the hub, which says what is wrong.
func TestSaveConfigAndBrokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", ConfigFileName)
	want := Config{Servers: map[string]ServerConfig{"files": {Command: "srv", Args: []string{"/src"}, Env: map[string]string{"K": "v"}}}}
	if err := SaveConfig(path, want); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file is %v (%v); it must be private", fi.Mode(), err)
	}
	got, err := LoadConfig(path)
	if err != nil || fingerprint(got.Servers["files"]) != fingerprint(want.Servers["files"]) {
		t.Fatalf("read back %+v (%v)", got, err)
	}
	if err := SaveConfig(path, Config{Servers: map[string]ServerConfig{"bad name": {Command: "x"}}}); err == nil {
		t.Fatal("an invalid configuration was saved")
	}

	if err := os.WriteFile(path, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	hub, err := OpenHub(path, Options{})
	if err == nil || hub == nil || hub.LoadError() == nil || len(hub.Config().Servers) != 0 {
		t.Fatalf("a broken file: hub %v, err %v", hub, err)
	}
	if err := hub.SetServer("new", ServerConfig{Command: "x"}); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Errorf("an edit over a broken file: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != `{"mcpServers": {` {
		t.Errorf("the broken file was overwritten: %s", data)
	}
}

// Tool names are mcp__SERVER__TOOL with what the API refuses replaced, and too long ones are
// skipped with a reason.
func TestToolNames(t *testing.T) {
	if got := ToolName("files", "read.file v2"); got != "mcp__files__read_file_v2" {
		t.Errorf("ToolName = %s", got)
	}
	schema := map[string]any{"type": "object"}
	offered, infos := convert("s", []*sdk.Tool{
		{Name: strings.Repeat("t", MaxToolNameLen), InputSchema: schema},
		{Name: "a.b", InputSchema: schema},
		{Name: "a_b", InputSchema: schema},
		{Name: "no_object", InputSchema: map[string]any{"type": "string"}},
		{Name: "ok", Description: "Does it.", InputSchema: schema},
	})
	if len(offered) != 2 || offered[0].spec.Name != "mcp__s__a_b" || offered[1].spec.Name != "mcp__s__ok" {
		t.Fatalf("offered %+v", offered)
	}
	if !strings.Contains(offered[1].spec.Description, "Does it.") || !strings.Contains(offered[1].spec.Description, `MCP server "s"`) {
		t.Errorf("description %q", offered[1].spec.Description)
	}
	for i, want := range []string{"longer than", "", "same name", "top level must be", ""} {
		if !strings.Contains(infos[i].Skipped, want) || (want == "") != (infos[i].Skipped == "") {
			t.Errorf("%s: skipped %q, want %q", infos[i].ServerTool, infos[i].Skipped, want)
		}
	}
}

// A server gets the app's environment without credentials, its own configured variables
// (credentials included: the person put them there for it), and in Restricted mode the
// offline switches of npx and uvx unless its configuration says otherwise.
func TestServerEnv(t *testing.T) {
	base := []string{"PATH=/bin", "OPENAI_API_KEY=sk-app", "GITHUB_TOKEN=ghp", "HOME=/h"}
	has := func(env []string, kv string) bool { return slices.Contains(env, kv) }
	env := serverEnv(base, map[string]string{"GITHUB_TOKEN": "for-the-server", "HOME": "/srv"}, false)
	for _, kv := range []string{"PATH=/bin", "GITHUB_TOKEN=for-the-server", "HOME=/srv"} {
		if !has(env, kv) {
			t.Errorf("%v lacks %s", env, kv)
		}
	}
	for _, kv := range []string{"OPENAI_API_KEY=sk-app", "GITHUB_TOKEN=ghp", "HOME=/h", "npm_config_offline=true"} {
		if has(env, kv) {
			t.Errorf("%v has %s", env, kv)
		}
	}
	env = serverEnv(base, map[string]string{"UV_OFFLINE": "0"}, true)
	if !has(env, "npm_config_offline=true") || !has(env, "UV_OFFLINE=0") || has(env, "UV_OFFLINE=1") {
		t.Errorf("Restricted: %v", env)
	}
}

// Redacted keeps every name and masks every value that may hold a token, without touching
// the configuration it copies.
func TestRedactedConfig(t *testing.T) {
	c := ServerConfig{URL: "https://me:pw@example.com/mcp?key=k1&key=k2&b=2", Env: map[string]string{"TOKEN": "t"},
		Headers: map[string]string{"Authorization": "Bearer x"}}
	r := c.Redacted()
	if r.URL != "https://me:****@example.com/mcp?b=****&key=****&key=****" {
		t.Errorf("URL %q", r.URL)
	}
	if r.Env["TOKEN"] != RedactedValue || r.Headers["Authorization"] != RedactedValue {
		t.Errorf("env %v headers %v", r.Env, r.Headers)
	}
	if c.Env["TOKEN"] != "t" || c.Headers["Authorization"] != "Bearer x" || c.URL != "https://me:pw@example.com/mcp?key=k1&key=k2&b=2" {
		t.Errorf("the original changed: %+v", c)
	}
	if r := (ServerConfig{Command: "srv"}).Redacted(); r.Env != nil || r.Headers != nil || r.URL != "" {
		t.Errorf("a plain command became %+v", r)
	}
}
