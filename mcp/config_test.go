package mcp

import (
	"encoding/json"
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
	if _, err := ParseConfig([]byte(`{"mcpServers": [`)); err == nil || !strings.Contains(err.Error(), "not a valid MCP configuration") {
		t.Errorf("not JSON: %v", err)
	}
	// Issue 26: a bad entry disables only itself; the good one beside it is used.
	for _, tt := range []struct{ name, entry, want string }{
		{"both", `{"command": "a", "url": "http://h"}`, "both a command and a url"},
		{"neither", `{}`, "neither a command nor a url"},
		{"bad url", `{"url": "ftp://h"}`, "not an http(s) URL"},
		{"websocket", `{"type": "ws", "url": "ws://h/mcp"}`, "not an http(s) URL"},
		{"unknown type", `{"type": "websocket", "url": "http://h/mcp"}`, "not supported for a url"},
		{"type mismatch", `{"type": "http", "command": "a"}`, "does not go with a command"},
		{"not an object", `["a"]`, "not a valid entry"},
		{"negative timeout", `{"command": "a", "timeout": -1}`, "negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig([]byte(`{"mcpServers": {"good": {"command": "srv"}, "x": ` + tt.entry + `}}`))
			if err != nil {
				t.Fatalf("one bad entry failed the whole file: %v", err)
			}
			if _, ok := c.Servers["good"]; !ok || len(c.Servers) != 1 {
				t.Errorf("servers %v", c.Names())
			}
			if inv, ok := c.Invalid["x"]; !ok || !strings.Contains(inv.Reason, tt.want) {
				t.Errorf("invalid %+v, want %q", c.Invalid, tt.want)
			}
		})
	}
	for _, name := range []string{"a__b", "a.b", strings.Repeat("a", MaxServerNameLen+1)} {
		c, err := ParseConfig([]byte(`{"mcpServers": {"` + name + `": {"command": "a"}}}`))
		if err != nil || !strings.Contains(c.Invalid[name].Reason, "not usable") {
			t.Errorf("name %s: %+v %v", name, c.Invalid, err)
		}
	}
	sse, err := ParseConfig([]byte(`{"mcpServers": {"old": {"type": "sse", "url": "http://h/sse"}}}`))
	if err != nil || sse.Servers["old"].Kind() != "sse" || len(sse.Invalid) != 0 {
		t.Errorf("an sse entry: %+v %v", sse, err)
	}
}

// Issue 26: VS Code's shape is read (its "inputs" ignored with a note), and a file that lists
// no servers under either key says so instead of meaning "no servers".
func TestParseConfigShapes(t *testing.T) {
	c, err := ParseConfig([]byte(`{"inputs": [{"id": "tok", "type": "promptString"}],
		"servers": {"gh": {"type": "http", "url": "https://api.example.com/mcp"}, "fs": {"type": "stdio", "command": "srv"}}}`))
	if err != nil || strings.Join(c.Names(), ",") != "fs,gh" {
		t.Fatalf("VS Code shape: %v %v", c.Names(), err)
	}
	if len(c.Notes) != 1 || !strings.Contains(c.Notes[0], `"inputs" is ignored`) {
		t.Errorf("notes %q", c.Notes)
	}
	for _, doc := range []string{`{"mcp": {"servers": {}}}`, `{"fs": {"command": "srv"}}`} {
		if _, err := ParseConfig([]byte(doc)); err == nil || !strings.Contains(err.Error(), "no MCP servers found") {
			t.Errorf("%s: %v", doc, err)
		}
	}
	if c, err := ParseConfig([]byte(`{}`)); err != nil || len(c.Servers) != 0 {
		t.Errorf("{}: %v %v", c.Names(), err)
	}
}

// Saving keeps what the app does not understand: an invalid entry, an entry's unknown keys, the
// file's other keys and its shape.
func TestSaveKeepsWhatItDoesNotUse(t *testing.T) {
	path := filepath.Join(t.TempDir(), ConfigFileName)
	doc := `{"inputs": [1], "servers": {"bad": {"type": "ws", "url": "ws://h"}, "keep": {"command": "srv", "autoApprove": ["x"]}, "edit": {"command": "old"}}}`
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHub(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SetServer("edit", ServerConfig{Command: "new"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"inputs"`, `"servers"`, `"ws://h"`, `"autoApprove"`, `"new"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("saved file lacks %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), `"mcpServers"`) || strings.Contains(string(data), `"old"`) {
		t.Errorf("saved file:\n%s", data)
	}
	sts := h.Statuses("")
	if len(sts) != 3 || sts[0].Name != "bad" || sts[0].State != StateInvalid || !strings.Contains(sts[0].Error, "not an http(s) URL") {
		t.Errorf("statuses %+v", sts)
	}
	if err := h.RemoveServer("bad"); err != nil {
		t.Errorf("removing an invalid entry: %v", err)
	}
}

// Issue 26: ${VAR}, ${env:VAR}, ${VAR:-default} and ${workspaceFolder} are expanded when a
// server starts, in every field that other clients expand; an unset variable or an input
// disables the server with an error that says what to do.
func TestExpandVariables(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": "", "DIR": "sub"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cwd := t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	c := ServerConfig{Command: "${env:DIR}/srv", Args: []string{"--token=${TOKEN}", "${EMPTY:-dflt}", "${workspaceFolder}", "$HOME"},
		Env: map[string]string{"K": "${MISSING:-none}"}, Cwd: "${DIR}"}
	got, err := c.resolved("s", cwd, lookup)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--token=t0k", "dflt", cwd, "$HOME"}
	if got.Command != "sub/srv" || !slices.Equal(got.Args, want) || got.Env["K"] != "none" || got.Cwd != filepath.Join(cwd, "sub") {
		t.Errorf("%+v", got)
	}
	u := ServerConfig{URL: "https://h/${TOKEN}", Headers: map[string]string{"Authorization": "Bearer ${env:TOKEN}"}}
	if got, err := u.resolved("u", cwd, lookup); err != nil || got.URL != "https://h/t0k" || got.Headers["Authorization"] != "Bearer t0k" {
		t.Errorf("%+v %v", got, err)
	}
	for _, tt := range []struct {
		c    ServerConfig
		want string
	}{
		{ServerConfig{Command: "srv", Args: []string{"${NOPE}"}}, "NOPE is not set"},
		{ServerConfig{Command: "srv", Env: map[string]string{"A": "${input:tok}"}}, "asks for an input"},
		{ServerConfig{Command: "srv", Args: []string{"${oops"}}, "without its closing"},
		{ServerConfig{Command: "srv", Cwd: "missing"}, "not a directory"},
	} {
		if _, err := tt.c.resolved("s", cwd, lookup); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.c, err, tt.want)
		}
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

// Issue 33: a URL server's "oauth" section in the shape Claude Code and VS Code write is read,
// saved back as written, its client secret only ever a variable in the file (shown masked),
// expanded at the start; a section on a command, a secret without its client id or a port out
// of range disables only that server, with a reason that says what to do.
func TestOAuthSection(t *testing.T) {
	c, err := ParseConfig([]byte(`{"mcpServers": {
		"web": {"type": "http", "url": "https://mcp.example/mcp", "oauth": {"clientId": "desk", "clientSecret": "${WEB_SECRET}", "scopes": "read write", "callbackPort": 8765}},
		"inline": {"url": "https://mcp.example/mcp", "oauth": {"clientId": "desk", "clientSecret": "hunter2"}},
		"nokey": {"url": "https://mcp.example/mcp", "oauth": {"clientSecret": "${S}"}},
		"port": {"url": "https://mcp.example/mcp", "oauth": {"callbackPort": 70000}},
		"cmd": {"command": "srv", "oauth": {"clientId": "desk"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	o := c.Servers["web"].OAuth
	if o == nil || o.ClientID != "desk" || o.ClientSecret != "${WEB_SECRET}" || o.Scopes != "read write" || o.CallbackPort != 8765 {
		t.Fatalf("web's oauth: %+v", o)
	}
	for name, want := range map[string]string{"inline": "environment variable", "nokey": "without a clientId", "port": "not a port", "cmd": "URL"} {
		if inv, ok := c.Invalid[name]; !ok || !strings.Contains(inv.Reason, want) {
			t.Errorf("%s: %+v, want a reason about %q", name, inv, want)
		}
	}
	if inv := c.Invalid["inline"]; strings.Contains(inv.Reason, "hunter2") {
		t.Errorf("the reason quotes the secret: %s", inv.Reason)
	}
	if r := c.Servers["web"].Redacted(); r.OAuth.ClientSecret != RedactedValue || c.Servers["web"].OAuth.ClientSecret != "${WEB_SECRET}" {
		t.Fatalf("redacted %+v, original %+v", r.OAuth, c.Servers["web"].OAuth)
	}
	rc, err := c.Servers["web"].resolved("web", t.TempDir(), func(k string) (string, bool) { return "s3cret", k == "WEB_SECRET" })
	if err != nil || rc.OAuth.ClientSecret != "s3cret" || c.Servers["web"].OAuth.ClientSecret != "${WEB_SECRET}" {
		t.Fatalf("resolved %+v, %v", rc.OAuth, err)
	}
	if _, err := c.Servers["web"].resolved("web", t.TempDir(), func(string) (string, bool) { return "", false }); err == nil ||
		!strings.Contains(err.Error(), "WEB_SECRET is not set") {
		t.Fatalf("an unset secret variable: %v", err)
	}
	data, err := json.Marshal(c)
	if err != nil || !strings.Contains(string(data), `"callbackPort":8765`) || !strings.Contains(string(data), `"hunter2"`) {
		t.Fatalf("saved back: %s %v", data, err)
	}
}
