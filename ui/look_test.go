package ui

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/actors"
)

// TestLook writes every screen to $UI_LOOK_DIR, in both themes, for a person to look at; it
// is skipped otherwise.
func TestLook(t *testing.T) {
	dir := os.Getenv("UI_LOOK_DIR")
	if dir == "" {
		t.Skip("set UI_LOOK_DIR to write screenshots")
	}
	dialogs := []screen{
		{"new-conversation", func(t *testing.T) *harness {
			h := newHarness(t, nil)
			h.app.Preferences().SetString(prefLastCwd, "/home/ada/src/parser")
			h.m.showNewConversation()
			return h
		}},
		{"settings", func(t *testing.T) *harness {
			h := newHarness(t, func(_ *fakeBackend, d *Deps) {
				d.EnvOverrides = func() map[string]string { return map[string]string{FieldAPIKey: "PHOENIX_API_KEY"} }
			})
			h.m.showSettings()
			return h
		}},
		{"mcp-servers", func(t *testing.T) *harness {
			servers, err := actors.OpenMCPServers(filepath.Join(t.TempDir(), "mcp.json"), sandboxStatus(true, 4, ""))
			if err != nil {
				t.Fatal(err)
			}
			for name, c := range map[string]actors.MCPServerConfig{
				"files":  {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/home/ada/src"}},
				"issues": {URL: "https://issues.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer …"}},
			} {
				if err := servers.SetServer(name, c); err != nil {
					t.Fatal(err)
				}
			}
			h := newHarness(t, func(_ *fakeBackend, d *Deps) { d.MCP = servers })
			h.m.showMCPSettings()
			return h
		}},
	}
	for _, s := range append(dialogs, screens...) {
		t.Run(s.name, func(t *testing.T) {
			h := s.build(t)
			for _, v := range []struct {
				name string
				v    uint
			}{{"light", uint(theme.VariantLight)}, {"dark", uint(theme.VariantDark)}} {
				h.app.Settings().SetTheme(fixedVariant{Theme(), themeVariant(v.v)})
				h.settle()
				fh, err := os.Create(filepath.Join(dir, s.name+"-"+v.name+".png"))
				if err != nil {
					t.Fatal(err)
				}
				if err := png.Encode(fh, h.m.win.Canvas().Capture()); err != nil {
					t.Fatal(err)
				}
				fh.Close()
			}
		})
	}
}
