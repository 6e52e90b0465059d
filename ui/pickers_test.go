package ui

import (
	"image/color"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/ui/filepick"
)

// topPicker is the picker on top of the window, once it has read what it shows, or fails
// the test.
func (h *harness) topPicker() *filepick.Picker {
	h.t.Helper()
	if len(h.m.modals) > 0 {
		if p, ok := h.m.modals[len(h.m.modals)-1].(*filepick.Picker); ok && h.m.win.Canvas().Overlays().Top() != nil {
			h.pickerRead(p)
			return p
		}
	}
	h.t.Fatalf("no file or folder picker is open (modals %T)", h.m.modals)
	return nil
}

// pickerRead runs UI work until p has read the disk for what it shows or chooses.
func (h *harness) pickerRead(p *filepick.Picker) {
	h.t.Helper()
	h.waitFor("the picker's read", func() bool { return !p.Busy() })
}

// typeInto types s into what has the focus.
func (h *harness) typeInto(s string) {
	h.t.Helper()
	f := h.m.win.Canvas().Focused()
	if f == nil {
		h.t.Fatal("nothing has the focus to type into")
	}
	test.Type(f, s)
}

// TestKeyboardOnlyAttach_REQ_BED_015 (issue 36): Ctrl+Shift+A opens our picker in the folder
// Attach last chose from, with the focus in its path; typing a name and Enter attaches the
// image and gives the composer the keys back; Escape cancels without attaching; Down, Down and
// Enter in the list attach too.
func TestKeyboardOnlyAttach_REQ_BED_015(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	dir := t.TempDir()
	pngFile(t, dir, "red.png", 40, 30, color.NRGBA{R: 0xff, A: 0xff})
	pngFile(t, dir, "blue.png", 30, 40, color.NRGBA{B: 0xff, A: 0xff})
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.m.app.Preferences().SetString(prefAttachDir, dir)
	h.m.win.Canvas().Focus(h.m.composer.entry)

	h.press("Ctrl+Shift+A")
	p := h.topPicker()
	if p.Folder() != dir || len(p.Names()) != 2 {
		t.Fatalf("Attach opened %s listing %q, want %s with its two images", p.Folder(), p.Names(), dir)
	}
	h.typeInto("red.png")
	h.enter(fyne.KeyReturn)
	h.waitFor("red.png attached", func() bool { return len(h.m.current.draft.atts) == 1 })
	h.settle()
	if len(h.m.modals) != 0 || !h.composerFocused() {
		t.Fatalf("after choosing: %d dialogs open, composer focused %v", len(h.m.modals), h.composerFocused())
	}

	h.press("Ctrl+Shift+A")
	h.topPicker()
	h.enter(fyne.KeyEscape)
	h.settle()
	if len(h.m.modals) != 0 || !h.composerFocused() || len(h.m.current.draft.atts) != 1 {
		t.Fatalf("after Escape: %d dialogs, composer focused %v, %d attachments", len(h.m.modals), h.composerFocused(), len(h.m.current.draft.atts))
	}

	h.press("Ctrl+Shift+A")
	h.topPicker()
	h.enter(fyne.KeyDown) // into the list: blue.png
	h.enter(fyne.KeyReturn)
	h.waitFor("blue.png attached", func() bool { return len(h.m.current.draft.atts) == 2 })
	if got := names(h.m.current.draft.atts); got[1] != "blue.png" {
		t.Fatalf("attached %q", got)
	}
}

// TestKeyboardOnlyChooseFolder (issue 36): in New conversation, Tab to "Choose…" and Enter
// open our folder picker at the field's folder; a typed name and Enter go into it, Enter
// again chooses it, and the focus is back on "Choose…" in the dialog, which stays open.
// Escape in the picker closes only the picker.
func TestKeyboardOnlyChooseFolder(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "parser"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.press("Ctrl+N")
	f := h.m.newForm
	f.cwd.SetText(dir)
	choose := h.dialogButton("Choose…")
	h.tabTo("Choose…", choose)
	h.enter(fyne.KeyReturn)
	p := h.topPicker()
	if p.Folder() != dir {
		t.Fatalf("the picker opened in %s, want the field's %s", p.Folder(), dir)
	}
	h.typeInto("parser")
	h.enter(fyne.KeyReturn)
	h.pickerRead(p)
	h.enter(fyne.KeyReturn)
	h.settle()
	if want := filepath.Join(dir, "parser"); f.cwd.Text != want {
		t.Fatalf("the folder field holds %q, want %q", f.cwd.Text, want)
	}
	if len(h.m.modals) != 1 || h.m.win.Canvas().Focused() != choose {
		t.Fatalf("after choosing: %d dialogs open (want New conversation), focus on %T", len(h.m.modals), h.m.win.Canvas().Focused())
	}

	h.enter(fyne.KeyReturn) // Choose… again
	h.topPicker()
	h.enter(fyne.KeyEscape)
	h.settle()
	if len(h.m.modals) != 1 || h.m.win.Canvas().Focused() != choose || f.cwd.Text != filepath.Join(dir, "parser") {
		t.Fatalf("after Escape: %d dialogs open, focus on %T, field %q", len(h.m.modals), h.m.win.Canvas().Focused(), f.cwd.Text)
	}
}
