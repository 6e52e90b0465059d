package main

import (
	"os"
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
	if code, _, errs = chat("--mcp-elicit", "accept", "mcp: go ask {}"); code == 0 || !strings.Contains(errs, "use decline, cancel, or stdin") {
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

// Issue 26, headless, against a server on the 2026-07-28 TypeScript SDK that asks for input
// by the multi-round-trip flow: --mcp-elicit=stdin asks each field on stderr and reads the
// answers from standard input; by default the request is declined and stderr says how to
// answer instead.
func TestChatFillsANodeServersFormFromStdin(t *testing.T) {
	if !sandbox.Probe().Available {
		mcptest.Missing(t, "Landlock is unavailable")
	}
	asker := mcptest.NodeAsker(t)
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"asker": {Command: asker[0], Args: asker[1:]}})
	data := t.TempDir()
	chat := func(stdin string, args ...string) (int, string, string) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.WriteString(stdin); err != nil {
			t.Fatal(err)
		}
		w.Close()
		old := os.Stdin
		os.Stdin = r
		defer func() { os.Stdin = old; r.Close() }()
		return cli(t, append([]string{"chat", "--demo", "--data-dir", data, "--mcp-config", file, "--cwd", t.TempDir()}, args...)...)
	}

	code, out, errs := chat("Ada Lovelace\n", "--mcp-elicit", "stdin", "mcp: asker ask_name {}")
	if code != 0 || !strings.Contains(out, "hello Ada Lovelace") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "the MCP server asker asks: Who is asking?") || !strings.Contains(errs, "Name (required): ") {
		t.Errorf("stderr does not ask for the name:\n%s", errs)
	}
	// A required field left empty is asked again; the end of input cancels.
	code, out, errs = chat("\n", "--mcp-elicit", "stdin", "mcp: asker ask_name {}")
	if code != 0 || !strings.Contains(out, "no name given") || !strings.Contains(errs, `answered "cancel"`) {
		t.Fatalf("empty then end of input: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = chat("Ada\n", "mcp: asker ask_name {}")
	if code != 0 || !strings.Contains(out, "no name given") || strings.Contains(out, "hello Ada") {
		t.Fatalf("default: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, `answered "decline"`) || !strings.Contains(errs, "--mcp-elicit=stdin types the answers") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// Issue 26, headless: chat --prompt SERVER:NAME sends the server's prompt with the words as
// its arguments, and "@SERVER:URI" in a message attaches the resource's text; mistakes are
// refused before anything is sent, with what to write instead.
func TestChatSendsMCPPromptsAndAttachesResources(t *testing.T) {
	cmd, env, err := mcptest.SelfServer("serve")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"go": {Command: cmd, Env: env}})
	data := t.TempDir()
	chat := func(args ...string) (int, string, string) {
		return cli(t, append([]string{"chat", "--demo", "--unrestricted", "--data-dir", data, "--mcp-config", file, "--cwd", t.TempDir()}, args...)...)
	}
	code, out, errs := chat("--prompt", "go:greet", "Ada")
	if code != 0 || !strings.Contains(out, "Say hello to Ada") {
		t.Fatalf("--prompt: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = chat("echo: read @go:test://notes.")
	if code != 0 || !strings.Contains(out, "Attached MCP resource @go:test://notes:\nthe resource's text") {
		t.Fatalf("@resource: exit %d\n%s\n%s", code, out, errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--prompt", "go:greet"}, "needs its argument who"},
		{[]string{"--prompt", "go:nope", "x"}, `has no prompt "nope"; it has: greet`},
		{[]string{"--prompt", "greet", "x"}, "write it as SERVER:NAME"},
		{[]string{"echo: @go:test://missing"}, "attach @go:test://missing"},
	} {
		if code, _, errs := chat(c.args...); code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	// The two that were sent are the only conversations: a mistake leaves none behind.
	if _, out, _ := cli(t, "list", "--data-dir", data); strings.Count(out, "\n") != 3 { // a header and two rows
		t.Errorf("list after the mistakes:\n%s", out)
	}
}
