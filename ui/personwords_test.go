package ui

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// textUnder collects the words drawn under o: labels, rich texts and canvas texts.
func textUnder(o fyne.CanvasObject) string {
	var b strings.Builder
	walk(o, func(x fyne.CanvasObject) {
		switch t := x.(type) {
		case *widget.Label:
			b.WriteString(t.Text + "\n")
		case *widget.RichText:
			b.WriteString(t.String() + "\n")
		case *canvas.Text:
			b.WriteString(t.Text + "\n")
		}
	})
	return b.String()
}

// TestModeNoticeInPersonWords_REQ_BED_017 (issue 36): the window shows the mode notice in the
// person's words (no request_mode_upgrade, no "the person allows"), and the approval card says
// what each answer allows in them too; the stored notice keeps the model's words.
func TestModeNoticeInPersonWords_REQ_BED_017(t *testing.T) {
	h, _ := upgradeScene(t)
	card := textUnder(h.approvalPart().object())
	for _, w := range []string{"patch", "bash", "the person"} {
		if strings.Contains(card, w) {
			t.Errorf("the approval card says %q:\n%s", w, card)
		}
	}
	test.Tap(h.approvalPart().project)
	h.waitFor("Project mode", func() bool { return h.m.header.mode.text == "Project" })
	h.settle()
	model := domain.ModeChangeNotice(domain.ModeProject, domain.ChangedByApproval)
	person, _ := domain.ModeChangeNoticeForPerson(model)
	var stored bool
	for _, r := range h.rows() {
		stored = stored || r.kind == rowSystem && r.msg.Text == model
	}
	if !stored {
		t.Fatal("the conversation holds no mode notice in the model's words")
	}
	p := partOnScreen[*notePart](h, rowSystem, "the mode notice")
	if got := p.text.String(); got != person {
		t.Fatalf("the notice reads %q, want %q", got, person)
	}
}

// TestRealUndoInPersonWords (issue 36): the Undo dialog is titled by what changed, not "Undo
// patch call", its diff has no git index lines, and the notice counts "1 file".
func TestRealUndoInPersonWords(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, r := newRealHarness(t)
	path := filepath.Join(r.Cwd, "a.txt")
	if err := os.WriteFile(path, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := h.newConversation(r.Cwd, true)
	h.typeAndSend(`patch: a.txt <<< two\n`)
	h.waitFor("the checkpoint", func() bool { return len(h.m.proj.of(cs.id).ckpts) == 1 && h.m.proj.of(cs.id).ckpts[0].Complete() })
	h.settle()
	test.Tap(h.rowButton(rowTool, "Undo"))
	h.waitFor("the Undo dialog", func() bool { return h.m.proj.restoreDlg != nil })
	if !strings.Contains(h.m.proj.restorePlan.Diff, "\nindex ") {
		t.Fatalf("the plan's diff has no index line to hide, so this test shows nothing:\n%s", h.m.proj.restorePlan.Diff)
	}
	shown := textUnder(h.m.win.Canvas().Overlays().Top())
	if !strings.Contains(shown, undoTitle("patch")) || strings.Contains(shown, "patch call") || strings.Contains(shown, "\nindex ") {
		t.Fatalf("the Undo dialog shows:\n%s", shown)
	}
	h.m.proj.restoreDlg.Confirm()
	h.waitFor("the restore's notice", func() bool { return strings.HasPrefix(h.m.notice.label.Text, "Restored") })
	if got := h.m.notice.label.Text; !strings.HasPrefix(got, "Restored 1 file.") {
		t.Fatalf("the notice says %q", got)
	}
}

// TestNoParenthesisedPlurals (issue 36): no string of the window or the command line says
// "file(s)"; they count with transcript.Count.
func TestNoParenthesisedPlurals(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.go", "review/*.go", "../cmd/phoenix-desktop/*.go", "../actors/*.go", "../worktree/*.go", "../review/*.go", "../remote/*.go", "../lsp/*.go"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fset := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fset.AddFile(f, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.STRING {
				checked++
				if strings.Contains(lit, "(s)") {
					t.Errorf("%s: %s", fset.Position(pos), lit)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d strings were read; the scan is broken", checked)
	}
}

func TestCountSaysOneAndMany(t *testing.T) {
	if got := transcript.Count(1, "file", "files") + ", " + transcript.Count(3, "file", "files") + ", " + transcript.Count(0, "file", "files"); got != "1 file, 3 files, 0 files" {
		t.Fatal(got)
	}
	if got := diffForPerson("diff --git a/a.txt b/a.txt\nindex b6fc4c6..0000000 100644\n--- a/a.txt\n+++ b/a.txt\n-index 1..2\n"); strings.Contains(got, "\nindex ") || !strings.Contains(got, "-index 1..2") {
		t.Fatalf("%q", got)
	}
}
