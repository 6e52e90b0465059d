package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

func writeMCPConfig(t *testing.T, path string, servers map[string]mcp.ServerConfig) {
	t.Helper()
	if err := mcp.SaveConfig(path, mcp.Config{Servers: servers}); err != nil {
		t.Fatal(err)
	}
}

// `mcp list` starts each server as a new conversation would and shows its state and tools; a
// URL server is plainly unreachable in Restricted mode.
func TestMCPListShowsStatesAndTools(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Filesystem)
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	cwd := t.TempDir()
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{
		"fs":  {Command: bin, Args: []string{cwd}},
		"web": {URL: "http://127.0.0.1:9/mcp"},
	})
	code, out, errs := cli(t, "mcp", "list", "--mcp-config", file, "--cwd", cwd)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"a Restricted conversation", "fs ", " ok ", "mcp__fs__read_text_file", "web ", "unreachable in Restricted mode"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code, _, errs := cli(t, "mcp", "list", "--mcp-config", file, "--no-mcp"); code == 0 || !strings.Contains(errs, "exclude each other") {
		t.Errorf("--mcp-config with --no-mcp: exit %d, %s", code, errs)
	}
	if code, _, errs := cli(t, "mcp", "list", "--mcp-config", filepath.Join(cwd, "missing.json")); code == 0 || !strings.Contains(errs, "missing.json") {
		t.Errorf("a missing --mcp-config: exit %d, %s", code, errs)
	}
}

// chat uses the servers of the person's mcp.json; --no-mcp switches them off; a project's
// .mcp.json is offered and never started without the person's consent.
func TestChatUsesConfiguredMCPServers(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Filesystem)
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("notes for the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := mcp.DefaultConfigPath()
	if err != nil {
		t.Fatal(err)
	}
	writeMCPConfig(t, path, map[string]mcp.ServerConfig{"fs": {Command: bin, Args: []string{cwd}}})
	// The project's server would leave a mark if it ever started.
	mark := filepath.Join(t.TempDir(), "started")
	writeMCPConfig(t, filepath.Join(cwd, ".mcp.json"), map[string]mcp.ServerConfig{
		"proj": {Command: "bash", Args: []string{"-c", "touch " + mark}}})

	prompt := `mcp: fs read_text_file {"path":"` + filepath.Join(cwd, "notes.txt") + `"}`
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--cwd", cwd, prompt)
	if code != 0 || !strings.Contains(out, "notes for the agent") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, ".mcp.json offers the MCP servers proj") {
		t.Errorf("the project's server was not offered:\n%s", errs)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("the project's server started without the person's consent")
	}

	code, out, errs = cli(t, "chat", "--demo", "--no-mcp", "--data-dir", t.TempDir(), "--cwd", cwd, prompt)
	if code != 0 || !strings.Contains(out, "switched off") {
		t.Fatalf("--no-mcp: exit %d\n%s\n%s", code, out, errs)
	}
}

// A long MCP call's progress reaches the transcript, at most a line per tenth.
func TestChatPrintsMCPProgress(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Everything)
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"every": {Command: bin}})
	code, out, errs := cli(t, "chat", "--demo", "--mcp-config", file, "--data-dir", t.TempDir(), "--cwd", t.TempDir(),
		`mcp: every trigger-long-running-operation {"duration":1,"steps":40}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	lines := strings.Count(out, "· progress: ")
	if lines == 0 || lines > 10 || !strings.Contains(out, " of 40\n") {
		t.Fatalf("%d progress lines:\n%s", lines, out)
	}
}

// `mcp list` (table and --json) never prints the values of environment variables, headers or
// URL query parameters, which hold tokens; their names stay visible.
func TestMCPListRedactsSecrets(t *testing.T) {
	cwd := t.TempDir()
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{
		"tool": {Command: "/nonexistent/mcp-server", Env: map[string]string{"API_TOKEN": "tok-env-4567"}, Disabled: true},
		"web": {URL: "http://user:pw-url-0000@127.0.0.1:9/mcp?key=q-query-789",
			Headers: map[string]string{"Authorization": "Bearer sk-header-123"}},
	})
	writeMCPConfig(t, filepath.Join(cwd, mcp.ProjectFileName), map[string]mcp.ServerConfig{
		"proj": {Command: "/nonexistent/proj-server", Env: map[string]string{"PROJ_KEY": "tok-proj-999"}},
	})
	secrets := []string{"tok-env-4567", "pw-url-0000", "q-query-789", "sk-header-123", "tok-proj-999"}
	for _, args := range [][]string{{"mcp", "list", "--json"}, {"mcp", "list"}} {
		code, out, errs := cli(t, append(args, "--mcp-config", file, "--cwd", cwd)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
		for _, s := range secrets {
			if strings.Contains(out+errs, s) {
				t.Errorf("%v prints the secret %q:\n%s", args, s, out)
			}
		}
		if args[len(args)-1] == "--json" {
			for _, name := range []string{"API_TOKEN", "Authorization", "PROJ_KEY", "key="} {
				if !strings.Contains(out, name) {
					t.Errorf("--json lacks the name %q:\n%s", name, out)
				}
			}
		}
	}
}

// Issue 26: an entry the app cannot use (here an unknown transport) beside a good one in a
// VS Code-shaped file: `mcp list` shows it as invalid with its reason and lists the good one;
// chat uses the good one and says, in the transcript, which entry is not used.
func TestBadMCPEntryDisablesOnlyItself(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Filesystem)
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("the notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "mcp.json")
	doc := fmt.Sprintf(`{"inputs": [], "servers": {"fs": {"type": "stdio", "command": %q, "args": ["${workspaceFolder}"]}, "ws": {"type": "websocket", "url": "http://127.0.0.1:9/ws"}}}`, bin)
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cli(t, "mcp", "list", "--mcp-config", file, "--cwd", cwd)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"fs ", " ok ", "mcp__fs__read_text_file", "ws ", "invalid configuration", `type "websocket" is not supported`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errs, `"inputs" is ignored`) {
		t.Errorf("stderr lacks the note on inputs: %s", errs)
	}
	code, out, errs = cli(t, "chat", "--demo", "--mcp-config", file, "--data-dir", t.TempDir(), "--cwd", cwd,
		`mcp: fs read_text_file {"path":"`+filepath.Join(cwd, "notes.txt")+`"}`)
	if code != 0 || !strings.Contains(out, "the notes") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out+errs, "The MCP server ws in "+file+" is not used") {
		t.Errorf("the transcript does not name the unusable entry:\n%s\n%s", out, errs)
	}
}
