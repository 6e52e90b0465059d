package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/ui/button"
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

// TestRealRewindKeepsYourChangesAndCanBeUndone is the reported loss in the window: the agent
// adds agent.txt, the person makes mine.txt and .claude/commands/review.md by hand, a later
// call changes notes.txt, and "Rewind to here" on the first message removed the person's
// files as plain "removed" lines. Now the dialog names them "changed by you" with a choice
// (keep, the default, or overwrite); the rewind keeps them, and "Undo the rewind" puts the
// tree back as it was.
func TestRealRewindKeepsYourChangesAndCanBeUndone(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, r := newRealHarness(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(r.Cwd, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(r.Cwd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "n1\n")
	cs := h.newConversation(r.Cwd, true)
	h.typeAndSend("bash: echo a > agent.txt")
	h.waitFor("the first checkpoint", func() bool { c := h.m.proj.of(cs.id).ckpts; return len(c) == 1 && c[0].Complete() })
	h.waitRest("the first turn")
	write("mine.txt", "mine\n")
	write(".claude/commands/review.md", "review\n")
	h.typeAndSend("bash: echo n2 > notes.txt")
	h.waitFor("the second checkpoint", func() bool { c := h.m.proj.of(cs.id).ckpts; return len(c) == 2 && c[1].Complete() })
	h.waitRest("the second turn")
	h.settle()

	// "Rewind to here" on the first message.
	h.m.cv.list.ScrollToTop()
	h.settle()
	var rewind *button.Button
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowUser && v.bound.msg.Text == "bash: echo a > agent.txt" {
			rewind = findShownButton(v, "Rewind to here")
		}
	}
	if rewind == nil {
		t.Fatal("the first message has no Rewind to here")
	}
	test.Tap(rewind)
	h.waitFor("the Rewind dialog", func() bool { return h.m.proj.restoreDlg != nil })
	p := h.m.proj
	if first := p.of(cs.id).ckpts[0]; p.restorePlan.Checkpoint.ID != first.ID {
		t.Fatalf("the dialog rewinds to checkpoint %d, want the first message's %d", p.restorePlan.Checkpoint.ID, first.ID)
	}
	if want := []string{".claude/commands/review.md", "mine.txt"}; !slices.Equal(p.restorePlan.Yours, want) {
		t.Fatalf("changed by you = %q, want %q", p.restorePlan.Yours, want)
	}
	if p.restoreYours == nil || p.restoreYours.Selected != keepYours {
		t.Fatalf("the dialog offers no choice for the person's files, or does not keep them by default: %v", p.restoreYours)
	}
	shown := dialogText(h)
	for _, want := range []string{"Changed by you", "mine.txt", "removed   agent.txt", "reverted  notes.txt"} {
		if !strings.Contains(shown, want) {
			t.Fatalf("the dialog lacks %q:\n%s", want, shown)
		}
	}
	if strings.Contains(shown, "removed   mine.txt") {
		t.Fatalf("by default the dialog still removes mine.txt:\n%s", shown)
	}
	// Choosing to overwrite shows what that removes; choosing to keep again takes it back.
	p.restoreYours.SetSelected(overwriteYours)
	if shown := dialogText(h); !strings.Contains(shown, "removed   mine.txt") || !p.restorePlan.OverwriteYours {
		t.Fatalf("overwriting does not show mine.txt removed:\n%s", shown)
	}
	p.restoreYours.SetSelected(keepYours)
	p.restoreDlg.Confirm()
	h.waitFor("the rewind", func() bool { return read("agent.txt") == "<missing>" && read("notes.txt") == "n1\n" })
	if read("mine.txt") != "mine\n" || read(".claude/commands/review.md") != "review\n" {
		t.Fatalf("the rewind took the person's files: mine.txt %q, review.md %q", read("mine.txt"), read(".claude/commands/review.md"))
	}
	h.waitFor("the notice", func() bool { return strings.Contains(h.m.notice.label.Text, "kept your changes") })
	if h.m.notice.action.Hidden || h.m.notice.action.Text != "Undo the rewind" {
		t.Fatalf("the notice offers %q (hidden %v), want Undo the rewind", h.m.notice.action.Text, h.m.notice.action.Hidden)
	}

	// Undo the rewind: every file is back as it was before it.
	p.restoreDlg = nil
	test.Tap(h.m.notice.action)
	h.waitFor("the Undo the rewind dialog", func() bool { return p.restoreDlg != nil })
	if p.restorePlan.Kind != actors.RestoreBack {
		t.Fatalf("the notice's action opened a %s", p.restorePlan.Kind)
	}
	p.restoreDlg.Confirm()
	h.waitFor("the rewind undone", func() bool { return read("agent.txt") == "a\n" && read("notes.txt") == "n2\n" })
	if read("mine.txt") != "mine\n" || read(".claude/commands/review.md") != "review\n" {
		t.Fatal("undoing the rewind lost the person's files")
	}

	// Once the notice is gone, the menu takes back the newest restore: here the undoing of
	// the rewind, which rewinds again.
	h.m.clearInline()
	p.restoreDlg = nil
	p.undoLastRestore()
	h.waitFor("the menu's dialog", func() bool { return p.restoreDlg != nil })
	if p.restorePlan.Kind != actors.RestoreBack || p.restorePlan.Restore.Kind != actors.RestoreBack {
		t.Fatalf("the menu offers to take back %+v", p.restorePlan.Restore)
	}
	p.restoreDlg.Confirm()
	h.waitFor("the rewind again", func() bool { return read("agent.txt") == "<missing>" && read("notes.txt") == "n1\n" })
	if read("mine.txt") != "mine\n" {
		t.Fatal("the person's file went")
	}
}

// dialogText is the text of every label of the dialog on top of the window, one per line.
func dialogText(h *harness) string {
	var lines []string
	if top := h.m.win.Canvas().Overlays().Top(); top != nil {
		walk(top, func(o fyne.CanvasObject) {
			if l, ok := o.(*widget.Label); ok && l.Visible() {
				lines = append(lines, l.Text)
			}
		})
	}
	return strings.Join(lines, "\n")
}
