package actors

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// requireMCPServer finds a reference server installed by scripts/setup.sh; the Restricted
// tests also need Landlock.
func requireMCPServer(t *testing.T, bin string) string {
	t.Helper()
	path := mcptest.Server(t, bin)
	if st := sandbox.Probe(); !st.Available {
		mcptest.Missing(t, "Landlock is unavailable: "+st.Reason)
	}
	return path
}

func withMCP(servers map[string]mcp.ServerConfig) harnessOption {
	return withMCPOptions(servers, mcp.Options{})
}

func withMCPOptions(servers map[string]mcp.ServerConfig, opts mcp.Options) harnessOption {
	return func(c *Config) { c.MCP = mcp.FixedHub(mcp.Config{Servers: servers}, opts) }
}

// allowWrites lets the file-system server's write_file (marked destructive) run without a
// card, as --mcp-allow-tools does, so that what refuses it in Restricted mode is the sandbox.
var allowWrites = mcp.Options{AllowTools: []string{"fs/write_file"}}

// The "done when", headless: the agent reads through the file-system server in a
// Restricted conversation; its write through the server is refused by the sandbox until the
// person approves the upgrade, after which the server runs Unrestricted and the write lands.
// Every call is persisted with its result, like any tool's.
func TestMCPFilesystemServerInRestrictedConversation_REQ_BED_014(t *testing.T) {
	bin := requireMCPServer(t, mcptest.Filesystem)
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("the project's notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, withMCPOptions(map[string]mcp.ServerConfig{"fs": {Command: bin, Args: []string{cwd}}}, allowWrites))
	c := h.create(NewConversation{Cwd: cwd})

	h.turn(c.ID, `mcp: fs read_text_file {"path":"`+filepath.Join(cwd, "notes.txt")+`"}`)
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeSuccess || !strings.Contains(res[0].Content, "the project's notes") {
		t.Fatalf("read: %+v", res)
	}
	// Issue 26: the server starts when the conversation opens and no request waits for it:
	// the first request has its tools only if it was ready, and says so otherwise; the call
	// waits for the start, and the request after it has the tools.
	reqs := h.srv.Requests()
	offeredBy := func(i int) []string {
		var offered []string
		for _, tool := range reqs[i].Chat.Tools {
			offered = append(offered, tool.Function.Name)
		}
		return offered
	}
	if first := offeredBy(0); !slices.Contains(first, "mcp__fs__read_text_file") &&
		!strings.Contains(reqs[0].Chat.Messages[0].Content.Text, "The MCP server fs is still starting") {
		t.Fatalf("the first request offered %v and did not say the server was starting:\n%s", first, reqs[0].Chat.Messages[0].Content.Text)
	}
	if last := offeredBy(len(reqs) - 1); !slices.Contains(last, "mcp__fs__read_text_file") || !slices.Contains(last, domain.ToolBash) {
		t.Fatalf("the request after the call offered %v", last)
	}

	target := filepath.Join(cwd, "out.txt")
	write := `mcp: fs write_file {"path":"` + target + `","content":"written"}`
	h.turn(c.ID, write)
	res = results(h.history(c.ID))
	if last := res[len(res)-1]; last.Outcome != domain.OutcomeError || !refusedBySandbox(last.Content) {
		t.Fatalf("the write was not refused by the sandbox: %+v", last)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file was written in Restricted mode")
	}

	h.send(c.ID, "upgrade: write the file\n"+write)
	approval := h.waitState(c.ID, domain.StateAwaitingModeApproval)
	if err := h.rt.DecideUpgrade(context.Background(), c.ID, approval.State.(domain.AwaitingModeApproval).Exec, domain.ModeUnrestricted); err != nil {
		t.Fatal(err)
	}
	h.waitRest(c.ID)
	res = results(h.history(c.ID))
	if last := res[len(res)-1]; last.Outcome != domain.OutcomeSuccess {
		t.Fatalf("the write after the upgrade: %+v", last)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "written" {
		t.Fatalf("after the upgrade the file holds %q (%v)", data, err)
	}
}

// A sub-agent is Restricted even when its parent is not, and so are its MCP servers: the
// parent's write lands, the sub-agent's is refused by the sandbox.
func TestMCPServersOfSubAgentsAreRestricted_REQ_BED_018(t *testing.T) {
	bin := requireMCPServer(t, mcptest.Filesystem)
	cwd := t.TempDir()
	h := newHarness(t, withMCPOptions(map[string]mcp.ServerConfig{"fs": {Command: bin, Args: []string{cwd}}}, allowWrites))
	c := h.create(NewConversation{Cwd: cwd, Unrestricted: true})
	write := func(name string) string {
		return `mcp: fs write_file {"path":"` + filepath.Join(cwd, name) + `","content":"x"}`
	}
	h.turn(c.ID, write("parent.txt")+"\nagents: "+write("child.txt"))
	if _, err := os.Stat(filepath.Join(cwd, "parent.txt")); err != nil {
		t.Fatalf("the Unrestricted parent's write failed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "child.txt")); err == nil {
		t.Fatal("the sub-agent wrote through its MCP server")
	}
	res := results(h.history(c.ID))
	if last := res[len(res)-1]; !refusedBySandbox(last.Content) {
		t.Fatalf("the sub-agent's report: %+v", last)
	}
}

// Stop during a long MCP call: progress arrives as events, Stop cancels the call, the result
// is recorded as cancelled, and the server's processes are gone; quitting kills the servers
// the conversation still has.
func TestMCPStopKillsTheServer_REQ_BED_005(t *testing.T) {
	bin := requireMCPServer(t, mcptest.Everything)
	h := newHarness(t, withMCP(map[string]mcp.ServerConfig{"every": {Command: bin}}))
	c := h.create(NewConversation{})
	h.send(c.ID, `mcp: every trigger-long-running-operation {"duration":60,"steps":120}`)
	deadline := time.NewTimer(60 * time.Second)
	defer deadline.Stop()
	var progress ToolProgress
wait:
	for {
		select {
		case ev := <-h.sub.Events():
			if p, ok := ev.(ToolProgress); ok && p.ConvID == c.ID {
				progress = p
				break wait
			}
		case <-deadline.C:
			t.Fatal("no progress event within 60 s")
		}
	}
	if progress.Total != 120 || progress.Progress < 1 {
		t.Errorf("progress %+v", progress)
	}
	// The sandbox's idle command supervisors are children of the test too; end them, so
	// that the tree is the server's.
	sandbox.Shutdown()
	tree := mcptest.Descendants(os.Getpid())
	if len(tree) == 0 {
		t.Fatal("no server process runs below the test")
	}
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitRest(c.ID)
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("results %+v", res)
	}
	requireGone(t, tree)

	// A second call starts the server again; quitting the app ends it.
	h.turn(c.ID, `mcp: every echo {"message":"again"}`)
	if res := results(h.history(c.ID)); res[len(res)-1].Outcome != domain.OutcomeSuccess {
		t.Fatalf("after Stop: %+v", res[len(res)-1])
	}
	sandbox.Shutdown()
	tree = mcptest.Descendants(os.Getpid())
	if len(tree) == 0 {
		t.Fatal("the server did not start again")
	}
	h.close()
	requireGone(t, tree)
}

// requireGone fails unless the processes have exited: the cancelled call's server is killed
// on the tool worker's goroutine, which may finish just after the conversation is at rest.
func requireGone(t *testing.T, pids []int) {
	t.Helper()
	if left := mcptest.WaitExited(pids, 10*time.Second); len(left) > 0 {
		t.Fatalf("server processes %v are still running", left)
	}
}

// MCP tools in a conversation without MCP servers, and with MCP off, are answered with an
// error result; the conversation goes on.
func TestMCPCallWithoutServers(t *testing.T) {
	for name, opt := range map[string]harnessOption{"no servers": withMCP(nil), "MCP off": func(*Config) {}} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, opt)
			c := h.create(NewConversation{})
			h.turn(c.ID, `mcp: fs read_text_file {"path":"x"}`)
			res := results(h.history(c.ID))
			if len(res) != 1 || res[0].Outcome != domain.OutcomeError || !strings.Contains(res[0].Content, "mcp__fs__read_text_file") {
				t.Fatalf("%+v", res)
			}
		})
	}
}

// refusedBySandbox reports whether a tool's error is the sandbox's refusal: Landlock's
// "permission denied", or the mount view's read-only file system, which refuses first where
// there is one.
func refusedBySandbox(content string) bool {
	c := strings.ToLower(content)
	return strings.Contains(c, "permission denied") || strings.Contains(c, "read-only file system")
}

// Issue 26's "done when": a conversation whose only server never answers replies to
// `echo: hello` without waiting for it (the server's start timeout is a minute, the harness
// gives up after 30 s); the request says the server is still starting, and closing the
// conversation kills the server that was starting.
func TestMCPServerThatNeverStartsDoesNotHoldTheTurn(t *testing.T) {
	if st := sandbox.Probe(); !st.Available {
		mcptest.Missing(t, "Landlock is unavailable: "+st.Reason)
	}
	h := newHarness(t, withMCP(map[string]mcp.ServerConfig{"mute": {Command: "sleep", Args: []string{"3600"}}}))
	c := h.create(NewConversation{Cwd: t.TempDir()})
	h.turn(c.ID, "echo: hello")
	msgs := h.history(c.ID)
	if last := msgs[len(msgs)-1]; last.Kind != domain.KindAssistant || last.Text != "hello" {
		t.Fatalf("the reply %+v", last)
	}
	reqs := h.srv.Requests()
	if system := reqs[0].Chat.Messages[0].Content.Text; !strings.Contains(system, "The MCP server mute is still starting") {
		t.Fatalf("the request does not say the server is starting:\n%s", system)
	}
}
