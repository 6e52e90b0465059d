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
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// findButton finds a button by its text below o.
func findButton(o fyne.CanvasObject, text string) *button.Button {
	var found *button.Button
	walk(o, func(c fyne.CanvasObject) {
		if b, ok := c.(*button.Button); ok && found == nil && b.Text == text {
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

	var enabled *escCheck
	walk(p.servers, func(c fyne.CanvasObject) {
		if ch, ok := c.(*escCheck); ok && ch.Text == "Enabled" {
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

// TestMCPDialogEscape: Escape closes the topmost dialog only. Over Settings, Escape in a
// field of the MCP servers dialog, on its Enabled box or with nothing focused closes the MCP
// dialog and leaves Settings open; a dialog the MCP dialog opened (a server's tools) closes
// first; the next Escape closes Settings.
func TestMCPDialogEscape(t *testing.T) {
	servers, err := actors.OpenMCPServers(filepath.Join(t.TempDir(), "mcp.json"), actors.SandboxStatus{})
	if err != nil {
		t.Fatal(err)
	}
	if err := servers.SetServer("files", actors.MCPServerConfig{Command: "true"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(f *fakeBackend, d *Deps) { d.MCP = servers })
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	overlays := func() int { return len(h.m.win.Canvas().Overlays().List()) }
	openMCP := func() *mcpPanel {
		t.Helper()
		test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
		if overlays() != 2 {
			t.Fatalf("%d dialogs open; want Settings and MCP servers", overlays())
		}
		p := h.m.mcpPanel
		h.waitFor("the server list", func() bool { return findButton(p.servers, "Check") != nil })
		return p
	}

	h.m.showSettings()
	p := openMCP()
	h.m.win.Canvas().Focus(p.command)
	p.command.TypedKey(esc)
	if overlays() != 1 || h.m.win.Canvas().Overlays().Top() == nil || findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…") == nil {
		t.Fatalf("Escape in the command field left %d dialogs open; want Settings alone", overlays())
	}

	p = openMCP()
	var enabled *escCheck
	walk(p.servers, func(o fyne.CanvasObject) {
		if c, ok := o.(*escCheck); ok {
			enabled = c
		}
	})
	if enabled == nil {
		t.Fatal("the server has no Enabled box")
	}
	enabled.TypedKey(esc)
	if overlays() != 1 {
		t.Fatalf("Escape on the Enabled box left %d dialogs open; want Settings alone", overlays())
	}

	p = openMCP()
	p.showTools(actors.MCPStatus{Name: "files"})
	if overlays() != 3 {
		t.Fatalf("%d dialogs open; want the tools over MCP servers over Settings", overlays())
	}
	h.m.win.Canvas().Unfocus()
	for want := 2; want >= 0; want-- {
		h.m.win.Canvas().OnTypedKey()(esc)
		if overlays() != want {
			t.Fatalf("after an Escape with nothing focused %d dialogs are open, want %d", overlays(), want)
		}
	}
}

// TestMCPDialogScrollsWithTheWheel: in the real window (under Xvfb) the server list stopped
// scrolling with the mouse wheel as soon as a text field of the "Add a server" form came
// under the pointer, because a Fyne entry takes the wheel for itself, so the Add button could
// not be reached that way. The form now sits below the scrolled list: the list holds no text
// field, and every field and the Add button lie inside the dialog, above its Close button.
func TestMCPDialogScrollsWithTheWheel(t *testing.T) {
	var sb actors.SandboxStatus
	sb.Available = true // the header then explains Restricted mode in a long, wrapped text
	servers, err := actors.OpenMCPServers(filepath.Join(t.TempDir(), "mcp.json"), sb)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"files", "notes", "more"} {
		if err := servers.SetServer(name, actors.MCPServerConfig{Command: "mcp-server-filesystem", Args: []string{"/tmp"}}); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, func(f *fakeBackend, d *Deps) { d.MCP = servers })
	h.m.showSettings()
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
	p := h.m.mcpPanel
	h.waitFor("the server list", func() bool { return findButton(p.servers, "Check") != nil })
	h.settle()
	walk(p.scroll.Content, func(o fyne.CanvasObject) {
		if _, ok := o.(*escEntry); ok {
			t.Error("a text field sits in the scrolled list, where it takes the mouse wheel")
		}
	})
	if p.scroll.Size().Height >= p.content.MinSize().Height {
		t.Errorf("the list (%.0f) fits its area (%.0f); the test needs it to scroll", p.content.MinSize().Height, p.scroll.Size().Height)
	}
	d := fyne.CurrentApp().Driver()
	closeButton := findButton(h.m.win.Canvas().Overlays().Top(), "Close")
	limit := d.AbsolutePositionForObject(closeButton).Y
	listEnd := d.AbsolutePositionForObject(p.scroll).Y + p.scroll.Size().Height
	for _, o := range []fyne.CanvasObject{p.name, p.command, p.args, p.env, p.add} {
		top := d.AbsolutePositionForObject(o).Y
		if top < listEnd || top+o.Size().Height > limit || o.Size().Height <= 0 {
			t.Errorf("%T at %.0f–%.0f: want it between the list (ends at %.0f) and the Close button (%.0f)",
				o, top, top+o.Size().Height, listEnd, limit)
		}
	}
	// The wheel over the list scrolls it.
	before := p.scroll.Offset.Y
	p.scroll.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.NewDelta(0, -40)})
	if p.scroll.Offset.Y <= before {
		t.Error("the wheel does not scroll the server list")
	}
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
