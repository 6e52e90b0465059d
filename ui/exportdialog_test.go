package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestEscClosesExport (issue 41 item 7): Ctrl+E opens Export with the focus in the file name;
// Escape there closes it, writes nothing and gives the composer the keys back; Enter saves
// into the folder shown and says where; a second export to the same name asks first.
func TestEscClosesExport(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	dir := t.TempDir()
	h.m.app.Preferences().SetString(prefExportDir, dir)
	h.press("Ctrl+E")
	f := h.m.exportForm
	if f == nil || h.m.win.Canvas().Overlays().Top() == nil {
		t.Fatal("Ctrl+E opened no dialog")
	}
	if h.m.win.Canvas().Focused() != f.name || f.folder.Text != dir || !strings.HasSuffix(f.name.Text, ".md") {
		t.Fatalf("the dialog starts with the focus on %T, folder %q, name %q", h.m.win.Canvas().Focused(), f.folder.Text, f.name.Text)
	}
	h.enter(fyne.KeyEscape)
	h.settle()
	if h.m.win.Canvas().Overlays().Top() != nil || !h.composerFocused() {
		t.Fatalf("after Esc the dialog is open (%v) or the composer lacks the focus", h.m.win.Canvas().Overlays().Top() != nil)
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Fatalf("Esc wrote %v", files)
	}

	h.press("Ctrl+E")
	f = h.m.exportForm
	f.name.SetText("talk.md")
	h.enter(fyne.KeyReturn)
	h.settle()
	path := filepath.Join(dir, "talk.md")
	md, _ := h.m.exportDocument()
	if b, err := os.ReadFile(path); err != nil || string(b) != md {
		t.Fatalf("Enter saved %d bytes (%v), want the export", len(b), err)
	}
	if got := h.m.notice.label.Text; !strings.Contains(got, path) {
		t.Errorf("after the export the window says %q", got)
	}

	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.press("Ctrl+E")
	h.m.exportForm.name.SetText("talk.md")
	h.m.exportForm.dlg.Submit()
	h.settle()
	h.tabTo("Cancel", h.dialogButton("Cancel"))
	h.enter(fyne.KeyReturn)
	h.settle()
	if b, _ := os.ReadFile(path); string(b) != "mine" {
		t.Fatalf("a file there was replaced without asking: %q", b)
	}
	// Escape with nothing focused closes it too (the window's key).
	h.press("Ctrl+E")
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.m.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Esc on the window did not close Export")
	}
}
