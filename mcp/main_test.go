package mcp

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The test server's switches (mcptest.MaybeRunServer).
const (
	testServerEnv = mcptest.ServerEnv
	gateEnv       = mcptest.GateEnv
)

// TestMain lets the test binary act as the sandbox helper, as the app binary does, and as the
// small in-test MCP server.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeRunServer()
	os.Exit(m.Run())
}

// selfServer configures the test binary as a stdio server.
func selfServer(t testing.TB, mode string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Command: exe, Env: map[string]string{testServerEnv: mode}}
}

// npmServer finds a reference server installed by scripts/setup.sh.
func npmServer(t testing.TB, bin string) string { return mcptest.Server(t, bin) }

// needSandbox skips a test of the Restricted policy where Landlock is unavailable (and fails
// it in CI, whose machine has it).
func needSandbox(t testing.TB) {
	if st := sandbox.Probe(); !st.Available {
		mcptest.Missing(t, "Landlock is unavailable: "+st.Reason)
	}
}

func testEnv(t testing.TB, cwd string, mode domain.Mode) tools.Env {
	return tools.Env{Cwd: cwd, Mode: mode, TempDir: t.TempDir(), ImageLimits: imaging.DefaultLimits()}
}

func call(name, args string) domain.ToolCall {
	return domain.ToolCall{ID: "call-1", Name: name, Arguments: args}
}

// processAlive reports whether a process exists (a zombie counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+2:], "Z")
}
