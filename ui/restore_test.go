package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/phoenix-desktop/phoenix/checkpoint"
)

// TestRealUndoLastFromTheMenu: "Undo last file change…" (Ctrl+Alt+Z) opens the Undo dialog of
// the newest call that changed a file, as its row's button does; once that is undone there is
// nothing left to undo, and it says so.
func TestRealUndoLastFromTheMenu(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, r := newRealHarness(t)
	path := filepath.Join(r.Cwd, "b.txt")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := h.newConversation(r.Cwd, true)
	h.typeAndSend(`patch: b.txt <<< two\n`)
	h.waitFor("the checkpoint", func() bool { return len(h.m.proj.of(cs.id).ckpts) == 1 && h.m.proj.of(cs.id).ckpts[0].Complete() })
	h.settle()
	var undoLast func()
	for _, s := range h.m.shortcuts() {
		if c, ok := s.shortcut.(*desktop.CustomShortcut); ok && c.KeyName == fyne.KeyZ && c.Modifier&fyne.KeyModifierAlt != 0 {
			undoLast = s.run
		}
	}
	if undoLast == nil {
		t.Fatal("Ctrl+Alt+Z is not bound")
	}
	undoLast()
	h.waitFor("the Undo dialog", func() bool { return h.m.proj.restoreDlg != nil })
	if d := h.m.proj.restorePlan.Diff; !strings.Contains(d, "-two") || !strings.Contains(d, "+one") {
		t.Fatalf("the dialog's diff:\n%s", d)
	}
	h.m.proj.restoreDlg.Confirm()
	h.waitFor("b.txt restored", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == "one\n"
	})
	h.waitFor("the call marked undone", func() bool { return h.m.proj.of(cs.id).undone[h.m.proj.of(cs.id).ckpts[0].CallID] })
	h.m.proj.restoreDlg = nil
	undoLast()
	if h.m.proj.restoreDlg != nil || !strings.HasPrefix(h.m.notice.label.Text, "Nothing to undo") {
		t.Errorf("a second Undo last: dialog %v, notice %q", h.m.proj.restoreDlg != nil, h.m.notice.label.Text)
	}
}
