package ui

import (
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// Issue 26: an entry of mcp.json the app cannot use has its own card with the reason (and
// nothing to start); a server whose start failed offers Retry, which lets conversations try
// it again.
func TestMCPSettingsShowsUnusableEntriesAndRetry(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	doc := `{"mcpServers": {"old": {"type": "websocket", "url": "http://127.0.0.1:9/ws"}, "gone": {"command": "/nonexistent/mcp-server"}}}`
	if err := os.WriteFile(cfgPath, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	servers, err := actors.OpenMCPServers(cfgPath, actors.SandboxStatus{})
	if err != nil {
		t.Fatal(err)
	}
	var id string
	h := newHarness(t, func(f *fakeBackend, d *Deps) {
		d.MCP = servers
		id = f.add(domain.NewConversationParams{ID: "c1", Title: "c", Cwd: t.TempDir(), Model: domain.DemoModel}).ID
	})
	h.open(id)
	h.m.showSettings()
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
	p := h.m.mcpPanel
	h.waitFor("the invalid entry", func() bool {
		return hasLabel(p.servers, "invalid configuration") && hasLabel(p.servers, `type "websocket" is not supported`)
	})
	h.waitFor("the check buttons", func() bool { return findButton(p.servers, "Check") != nil })
	var checks []string
	walkButtons(p.servers, func(text string, disabled bool) {
		if text == "Check" {
			checks = append(checks, map[bool]string{true: "off", false: "on"}[disabled])
		}
	})
	// Cards are sorted by name: gone, then old.
	if len(checks) != 2 || checks[0] != "on" || checks[1] != "off" {
		t.Fatalf("Check buttons %v, want the invalid entry's disabled", checks)
	}
	test.Tap(findButton(p.servers, "Check"))
	h.waitFor("the failed start", func() bool { return findButton(p.servers, "Retry") != nil })
	test.Tap(findButton(p.servers, "Retry"))
	h.waitFor("the retry", func() bool { return findButton(p.servers, "Retry") == nil && hasLabel(p.servers, "not started") })
}

// walkButtons calls f with the text and state of every button below o.
func walkButtons(o fyne.CanvasObject, f func(text string, disabled bool)) {
	walk(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*button.Button); ok {
			f(b.Text, b.Disabled())
		}
	})
}
