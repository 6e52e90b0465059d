package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
)

// Issue 26, headless: the older form of a request for input (elicitation/create from the
// reference server, whose SDK negotiates a revision before 2026-07-28) is answered by
// --mcp-elicit like the 2026-07-28 round trip: the line on stderr says what was asked, and
// the server gets the answer (its result says it was declined, then cancelled).
func TestChatAnswersOlderElicitationByFlag(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Everything)
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"every": {Command: bin}})
	data := t.TempDir()
	chat := func(args ...string) (int, string, string) {
		return cli(t, append([]string{"chat", "--demo", "--unrestricted", "--data-dir", data, "--mcp-config", file, "--cwd", t.TempDir()}, args...)...)
	}
	for _, answer := range []string{"decline", "cancel"} {
		code, out, errs := chat("--mcp-elicit", answer, "mcp: every trigger-elicitation-request {}")
		if code != 0 || !strings.Contains(errs, `the MCP server every asks: "Please provide inputs`) || !strings.Contains(errs, `answered "`+answer+`"`) {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", answer, code, out, errs)
		}
		if !strings.Contains(strings.ToLower(out), answer) {
			t.Errorf("%s: the server's answer does not say so:\n%s", answer, out)
		}
	}
}
