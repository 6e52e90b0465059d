package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// Issue 26, headless: a server's request for input is declined (or cancelled, by
// --mcp-elicit) with a line on stderr that says what was asked and what was answered; a tool
// marked destructive is denied in Restricted mode with the flag that allows it, and runs once
// --mcp-allow-tools names it.
func TestChatAnswersMCPRequestsByFlags(t *testing.T) {
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	cmd, env, err := mcptest.SelfServer("serve")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"go": {Command: cmd, Env: env}})
	data := t.TempDir()
	chat := func(args ...string) (int, string, string) {
		return cli(t, append([]string{"chat", "--demo", "--data-dir", data, "--mcp-config", file, "--cwd", t.TempDir()}, args...)...)
	}

	code, out, errs := chat("--unrestricted", "mcp: go ask {}")
	if code != 0 || !strings.Contains(out, "decline") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, `the MCP server go asks: "Your name?" (fields: name); answered "decline"`) {
		t.Errorf("stderr:\n%s", errs)
	}
	if code, out, errs = chat("--unrestricted", "--mcp-elicit", "cancel", "mcp: go ask {}"); code != 0 || !strings.Contains(errs, `answered "cancel"`) {
		t.Errorf("cancel: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs = chat("--mcp-elicit", "accept", "mcp: go ask {}"); code == 0 || !strings.Contains(errs, "use decline or cancel") {
		t.Errorf("--mcp-elicit=accept: exit %d, %s", code, errs)
	}

	code, out, errs = chat("mcp: go erase {}")
	if code != 0 || !strings.Contains(out, "did not allow") || strings.Contains(out, "erased") {
		t.Fatalf("denied: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "the MCP server go wants to run erase (it may change or delete data) with {}; denied (allow it with --mcp-allow-tools=go/erase)") {
		t.Errorf("stderr:\n%s", errs)
	}
	if code, out, errs = chat("--mcp-allow-tools", "go/erase,go/other", "mcp: go erase {}"); code != 0 || !strings.Contains(out, "erased") || strings.Contains(errs, "wants to run") {
		t.Errorf("allowed: exit %d\n%s\n%s", code, out, errs)
	}
}
