package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
)

// findButton finds a button by its text below o.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	var found *widget.Button
	walk(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*widget.Button); ok && found == nil && b.Text == text {
			found = b
		}
	})
	return found
}

func hasLabel(o fyne.CanvasObject, part string) bool {
	found := false
	walk(o, func(c fyne.CanvasObject) {
		if l, ok := c.(*widget.Label); ok && strings.Contains(l.Text, part) {
			found = true
		}
	})
	return found
}

// Settings → MCP servers: add the reference file-system server, check it (its state and
// tools show), switch it off, and allow a project's server with a click; every change is in
// the configuration file.
func TestMCPSettings(t *testing.T) {
	bin := mcptest.Server(t, mcptest.Filesystem)
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	servers, err := actors.OpenMCPServers(cfgPath, actors.SandboxStatus{})
	if err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, ".mcp.json"), []byte(`{"mcpServers":{"proj":{"command":"true"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var id string
	h := newHarness(t, func(f *fakeBackend, d *Deps) {
		d.MCP = servers
		id = f.add(domain.NewConversationParams{ID: "c1", Title: "In the project", Cwd: project, Model: domain.DemoModel}).ID
	})
	h.open(id)
	h.m.showSettings()
	open := findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…")
	if open == nil || open.Disabled() {
		t.Fatal("Settings has no MCP servers… button")
	}
	test.Tap(open)
	p := h.m.mcpPanel
	h.waitFor("the empty list", func() bool { return hasLabel(p.servers, "No MCP servers yet") })
	if !hasLabel(p.project, "proj") || findButton(p.project, "Allow for this project") == nil {
		t.Fatal("the project's server is not offered")
	}

	test.Type(p.name, "files")
	test.Type(p.command, bin)
	test.Type(p.args, project)
	test.Tap(p.add)
	h.waitFor("the new server", func() bool { return findButton(p.servers, "Check") != nil })
	data, err := os.ReadFile(cfgPath)
	if err != nil || !strings.Contains(string(data), `"files"`) || !strings.Contains(string(data), bin) {
		t.Fatalf("the configuration holds %s (%v)", data, err)
	}

	test.Tap(findButton(p.servers, "Check"))
	h.waitFor("the check", func() bool { return hasLabel(p.servers, "ok") && findButton(p.servers, "Tools (14)") != nil })

	var enabled *widget.Check
	walk(p.servers, func(c fyne.CanvasObject) {
		if ch, ok := c.(*widget.Check); ok && ch.Text == "Enabled" {
			enabled = ch
		}
	})
	test.Tap(enabled)
	h.waitFor("the switch", func() bool { return hasLabel(p.servers, "disabled") })
	if data, _ := os.ReadFile(cfgPath); !strings.Contains(string(data), `"disabled": true`) {
		t.Errorf("the configuration holds %s", data)
	}

	test.Tap(findButton(p.project, "Allow for this project"))
	h.waitFor("the allowed project server", func() bool { return hasLabel(p.project, "allowed") })
	offered, err := servers.ProjectServers(project)
	if err != nil || len(offered) != 1 || !offered[0].Allowed {
		t.Fatalf("project servers %+v (%v)", offered, err)
	}

	// A bad entry says what is wrong and saves nothing.
	test.Type(p.name, "two__underscores")
	test.Type(p.command, "x")
	test.Tap(p.add)
	h.waitFor("the error", func() bool { return strings.Contains(p.message.Text, "not usable") })
}

// A server's card shows its command or URL, never a token: the URL's password and query
// values are masked (env and headers are not on the card; the edit form shows what the
// person typed).
func TestMCPServerCardHidesSecrets(t *testing.T) {
	got := describeServer(actors.MCPServerConfig{URL: "https://me:pw-secret@mcp.example.com/mcp?api_key=sk-secret&x=1",
		Headers: map[string]string{"Authorization": "Bearer sk-header"}})
	if strings.Contains(got, "secret") || !strings.Contains(got, "api_key=") || !strings.Contains(got, "mcp.example.com/mcp") {
		t.Errorf("the card shows %q", got)
	}
	if got := describeServer(actors.MCPServerConfig{Command: "npx", Args: []string{"-y", "srv"}, Env: map[string]string{"T": "tok"}}); got != "npx -y srv" {
		t.Errorf("the card shows %q", got)
	}
}
