package ui

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
)

// topIsDiscardQuestion reports whether the topmost dialog asks whether to discard edits.
func topIsDiscardQuestion(h *harness) bool {
	top := h.m.win.Canvas().Overlays().Top()
	return top != nil && findButton(top, "Discard") != nil && findButton(top, "Keep editing") != nil
}

// TestSettingsEscapeAsksBeforeDiscardingEdits (issue 41 item 2): Escape in Settings closes it
// at once when nothing was changed, and asks first when a field was; "Keep editing" keeps the
// dialog and what was typed, "Discard" closes it.
func TestSettingsEscapeAsksBeforeDiscardingEdits(t *testing.T) {
	h := newHarness(t, nil)
	esc := &fyne.KeyEvent{Name: fyne.KeyEscape}
	h.m.showSettings()
	h.m.settings.baseURL.TypedKey(esc)
	if len(h.m.modals) != 0 {
		t.Fatal("Escape in an unchanged Settings did not close it")
	}
	h.m.showSettings()
	f := h.m.settings
	test.Type(f.baseURL, "x")
	typed := f.baseURL.Text
	f.baseURL.TypedKey(esc)
	if !topIsDiscardQuestion(h) || len(h.m.modals) != 2 {
		t.Fatal("Escape in a changed Settings closed it without asking")
	}
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Keep editing"))
	if len(h.m.modals) != 1 || h.m.modals[0] != dialog.Dialog(f.dlg) || f.baseURL.Text != typed {
		t.Fatalf("Keep editing: %d dialogs, base URL %q", len(h.m.modals), f.baseURL.Text)
	}
	h.m.win.Canvas().OnTypedKey()(esc) // Escape with nothing focused asks too
	if !topIsDiscardQuestion(h) {
		t.Fatal("Escape from the window closed a changed Settings without asking")
	}
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Discard"))
	if len(h.m.modals) != 0 {
		t.Fatalf("Discard left %d dialogs open", len(h.m.modals))
	}
}

// TestMCPCloseAsksBeforeDroppingATypedServer (issue 41 item 2): the MCP servers dialog's
// Close asks first when a server was typed into the form and not added.
func TestMCPCloseAsksBeforeDroppingATypedServer(t *testing.T) {
	servers, err := actors.OpenMCPServers(filepath.Join(t.TempDir(), "mcp.json"), actors.SandboxStatus{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(f *fakeBackend, d *Deps) { d.MCP = servers })
	h.m.showSettings()
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
	p := h.m.mcpPanel
	test.Type(p.name, "files")
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Close"))
	if !topIsDiscardQuestion(h) {
		t.Fatal("Close dropped a server typed and not added without asking")
	}
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Discard"))
	if len(h.m.modals) != 1 {
		t.Fatalf("Discard: %d dialogs open, want Settings under it only", len(h.m.modals))
	}
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "MCP servers…"))
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Close"))
	if len(h.m.modals) != 1 {
		t.Fatal("Close of an untouched MCP dialog did not close it at once")
	}
}
