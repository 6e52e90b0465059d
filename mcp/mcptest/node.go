package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// NodeAsker returns the command of a small stdio MCP server on the 2026-07-28 TypeScript SDK
// (node/asker.mjs): its one tool, ask_name, asks the person for a name through the
// multi-round-trip input_required flow and greets them ("hello NAME"), or says "no name
// given" when the request is declined or cancelled. Its packages are installed by
// scripts/setup.sh (npm ci in node/); when they or Node are missing the test fails in CI and
// is skipped elsewhere.
func NodeAsker(t testing.TB) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed (bash scripts/setup.sh installs it)")
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "node")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server")); err != nil {
		Missing(t, "the test MCP servers' packages are not installed (bash scripts/setup.sh runs npm ci in "+dir+")")
	}
	return []string{node, filepath.Join(dir, "asker.mjs")}
}
