package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// buttonsMadeElsewhere are the Fyne constructors whose buttons take only Space: Fyne's own
// button, and the dialogs that build theirs inside (dialogs.go has ours).
var buttonsMadeElsewhere = map[string]bool{
	"widget.NewButton": true, "widget.NewButtonWithIcon": true, "widget.Button": true,
	"dialog.NewCustom": true, "dialog.ShowCustom": true,
	"dialog.NewConfirm": true, "dialog.ShowConfirm": true,
	"dialog.NewCustomConfirm": true, "dialog.ShowCustomConfirm": true,
	"dialog.NewForm": true, "dialog.ShowForm": true,
	"dialog.NewError": true, "dialog.ShowError": true,
	"dialog.NewInformation": true, "dialog.ShowInformation": true,
	// Fyne's save dialog also keeps Escape in its file name field (exportdialog.go).
	"dialog.NewFileSave": true, "dialog.ShowFileSave": true,
}

// TestEveryButtonIsTheAppsButton (issue 36): no code of the window (ui and its packages, tests
// aside) makes a button or a dialog whose buttons Enter cannot press; ui/button is their home.
func TestEveryButtonIsTheAppsButton(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (path == "button" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && buttonsMadeElsewhere[x.Name+"."+sel.Sel.Name] {
				t.Errorf("%s: %s.%s makes a button Enter does not press; use ui/button (or dialogs.go)", fset.Position(sel.Pos()), x.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("read only %d files of the window", checked)
	}
}

// tabTo moves the focus with Tab (as the canvas does) until want has it, or fails the test.
func (h *harness) tabTo(what string, want fyne.Focusable) {
	h.t.Helper()
	c := h.m.win.Canvas()
	for range 300 {
		if c.Focused() == want {
			return
		}
		c.FocusNext()
	}
	h.t.Fatalf("Tab never reaches %s", what)
}

// enter presses key (Return or the keypad's Enter) on what has the focus, as the driver does.
func (h *harness) enter(key fyne.KeyName) {
	h.t.Helper()
	f := h.m.win.Canvas().Focused()
	if f == nil {
		h.t.Fatal("nothing has the focus")
	}
	f.TypedKey(&fyne.KeyEvent{Name: key})
}

// TestEnterOnAFocusedButton_REQ_BED_015 (issue 36): Tab to the approval card's Deny and press
// Enter: the request is denied, as a click would.
func TestEnterOnAFocusedButton_REQ_BED_015(t *testing.T) {
	h, _ := upgradeScene(t)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	h.tabTo("Deny", h.approvalPart().deny)
	h.enter(fyne.KeyReturn)
	h.waitFor("the request denied", func() bool { return h.status() != "Waiting for your approval" })
	h.settle()
	if h.m.header.mode.text != "Restricted" {
		t.Fatalf("after Enter on Deny the mode is %q", h.m.header.mode.text)
	}
}

// dialogButton returns the button labelled text on the topmost dialog, or fails the test.
func (h *harness) dialogButton(text string) *button.Button {
	h.t.Helper()
	top := h.m.win.Canvas().Overlays().Top()
	if top == nil {
		h.t.Fatalf("no dialog with %q", text)
	}
	b := findButton(top, text)
	if b == nil {
		h.t.Fatalf("the dialog has no %q button: %q", text, textUnder(top))
	}
	return b
}

// TestEnterOnADialogsButtons (issue 36): in dialogs too, Tab to a button and Enter (Return or
// the keypad's) presses it: the shortcuts sheet's Close, the Delete question's Keep it and
// Delete.
func TestEnterOnADialogsButtons(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	h.press("Ctrl+/")
	h.tabTo("the sheet's Close", h.dialogButton("Close"))
	h.enter(fyne.KeyEnter)
	if h.m.win.Canvas().Overlays().Top() != nil || !h.composerFocused() {
		t.Fatal("Enter on the sheet's Close left it open, or the composer lacks the focus")
	}

	gone := h.m.current.id
	h.m.askDelete(h.m.current)
	h.tabTo("Keep it", h.dialogButton("Keep it"))
	h.enter(fyne.KeyReturn)
	h.settle()
	if h.m.win.Canvas().Overlays().Top() != nil || len(h.f.deleted) != 0 {
		t.Fatalf("Enter on Keep it: dialog open %v, deleted %v", h.m.win.Canvas().Overlays().Top() != nil, h.f.deleted)
	}
	h.m.askDelete(h.m.current)
	h.tabTo("Delete", h.dialogButton("Delete"))
	h.enter(fyne.KeyEnter)
	h.waitFor("the conversation deleted", func() bool {
		// Delete runs on a command's goroutine: read what it wrote under its lock.
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.deleted) == 1
	})
	if h.f.deleted[0] != gone {
		t.Fatalf("deleted %v, want %s", h.f.deleted, gone)
	}
}
