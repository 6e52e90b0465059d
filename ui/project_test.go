package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// rowButton finds a shown button of a visible row of kind k with the given text.
func (h *harness) rowButton(k rowKind, text string) *button.Button {
	h.t.Helper()
	var found *button.Button
	for _, v := range h.visibleRowViews() {
		if v.bound.kind != k {
			continue
		}
		if b := findShownButton(v, text); b != nil && found == nil {
			found = b
		}
	}
	return found
}

// findShownButton finds a shown button with the given text under o.
func findShownButton(o fyne.CanvasObject, text string) *button.Button {
	var found *button.Button
	walk(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*button.Button); ok && b.Text == text && b.Visible() && found == nil {
			found = b
		}
	})
	return found
}

func TestRealInstructionsShownAndReloaded(t *testing.T) {
	h, r := newRealHarness(t)
	if err := os.WriteFile(filepath.Join(r.Cwd, "AGENTS.md"), []byte("first rules"), 0o644); err != nil {
		t.Fatal(err)
	}
	cs := h.newConversation(r.Cwd, false)
	h.waitFor("the instructions row", func() bool {
		return h.m.proj.of(cs.id).loaded && len(h.m.proj.of(cs.id).instr.Files) == 1 && !h.m.proj.row.Hidden
	})
	var fileBtn *button.Button
	for _, o := range h.m.proj.instrFiles.Objects {
		if b, ok := o.(*button.Button); ok && b.Text == "AGENTS.md" {
			fileBtn = b
		}
	}
	if fileBtn == nil {
		t.Fatal("the header does not name AGENTS.md")
	}
	if err := os.WriteFile(filepath.Join(r.Cwd, "CLAUDE.md"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(r.Cwd, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	test.Tap(h.m.proj.reloadBtn)
	h.waitFor("the reloaded instructions", func() bool {
		f := h.m.proj.of(cs.id).instr.Files
		return len(f) == 1 && f[0].Label == "CLAUDE.md"
	})
	h.typeAndSend("echo: hi")
	h.waitFor("the reply", func() bool {
		last := h.lastRow()
		return last != nil && last.kind == rowAssistant && last.msg.Text == "hi" && !cs.busy()
	})
	if sys := r.Server.LastChat().SystemPrompt(); !strings.Contains(sys, "## CLAUDE.md") || strings.Contains(sys, "first rules") {
		t.Fatalf("the reloaded instructions did not reach the model:\n%s", sys)
	}
}

func TestRealUndoShowsTheDiffAndRestores(t *testing.T) {
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
	undo := h.rowButton(rowTool, "Undo")
	if undo == nil {
		t.Fatal("the patch row has no Undo")
	}
	test.Tap(undo)
	h.waitFor("the Undo dialog", func() bool { return h.m.proj.restoreDlg != nil })
	if d := h.m.proj.restorePlan.Diff; !strings.Contains(d, "-two") || !strings.Contains(d, "+one") {
		t.Fatalf("the dialog's diff:\n%s", d)
	}
	// Escape closes it like every other dialog, restoring nothing; Undo shows it again.
	h.m.win.Canvas().Unfocus()
	h.m.win.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if h.m.win.Canvas().Overlays().Top() != nil {
		t.Fatal("Escape left the Undo dialog open")
	}
	if b, _ := os.ReadFile(path); string(b) != "two\n" {
		t.Fatalf("cancelling the Undo changed a.txt to %q", b)
	}
	h.m.proj.restoreDlg = nil
	test.Tap(undo)
	h.waitFor("the Undo dialog again", func() bool { return h.m.proj.restoreDlg != nil })
	h.m.proj.restoreDlg.Confirm()
	h.waitFor("a.txt restored", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == "one\n" && strings.HasPrefix(h.m.notice.label.Text, "Restored 1 file")
	})
	// A restore that worked is news, not a warning, and the same Undo cannot run twice.
	if h.m.notice.label.Importance != widget.SuccessImportance {
		t.Errorf("the restore is announced with importance %v, want success", h.m.notice.label.Importance)
	}
	h.settle()
	if undo = h.rowButton(rowTool, "Undo"); undo == nil || !undo.Disabled() {
		t.Errorf("after the Undo the row's Undo button is %v; want shown and disabled", undo)
	}

	// Rewind to here on the user message restores the tree before that turn, and says which
	// files change.
	if err := os.WriteFile(path, []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.m.proj.restoreDlg = nil
	h.settle()
	rewind := h.rowButton(rowUser, "Rewind to here")
	if rewind == nil {
		t.Fatal("the user message has no Rewind to here")
	}
	test.Tap(rewind)
	h.waitFor("the Rewind dialog", func() bool { return h.m.proj.restoreDlg != nil })
	// a.txt was changed by the person after the Undo: the rewind keeps it unless they
	// choose to overwrite it.
	plan := h.m.proj.restorePlan
	if len(plan.AllFiles) != 1 || plan.AllFiles[0].Path != "a.txt" || len(plan.Yours) != 1 || len(plan.Files) != 0 {
		t.Fatalf("rewind plan: %+v", plan)
	}
	h.m.proj.restoreYours.SetSelected(overwriteYours)
	h.m.proj.restoreDlg.Confirm()
	h.waitFor("a.txt rewound", func() bool {
		b, _ := os.ReadFile(path)
		return string(b) == "one\n"
	})
}

// A bash call that changed no file keeps its checkpoint (the tree Rewind goes back to) but
// shows no Undo: there is nothing to undo.
func TestRealReadOnlyCallHasNoUndo(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	h, r := newRealHarness(t)
	cs := h.newConversation(r.Cwd, true)
	h.typeAndSend("bash: ls")
	h.waitFor("the checkpoint", func() bool { return len(h.m.proj.of(cs.id).ckpts) == 1 && h.m.proj.of(cs.id).ckpts[0].Complete() })
	h.settle()
	if h.rowButton(rowTool, "Undo") != nil {
		t.Fatal("a call that changed nothing shows Undo")
	}
	if h.rowButton(rowUser, "Rewind to here") == nil {
		t.Fatal("the user message lost Rewind to here")
	}
}

func TestRealQueueEditRemoveAndSendOnIdle_REQ_BED_002(t *testing.T) {
	h, r := newRealHarness(t)
	cs := h.newConversation(r.Cwd, false)
	// A reply that never ends keeps the agent busy until Stop.
	r.Server.Enqueue(fakellm.Reply{Text: "thinking…", Fault: fakellm.FaultStall, FaultAfter: 1})
	h.typeAndSend("echo: long")
	h.waitFor("the agent to work", func() bool { return cs.busy() })
	if h.m.composer.sendBtn.Disabled() {
		t.Fatal("Send is disabled while the agent works; it should queue")
	}
	h.typeAndSend("echo: first queued")
	h.waitFor("one queued", func() bool { return len(h.m.proj.of(cs.id).queue.Items) == 1 })
	h.typeAndSend("echo: second queued")
	h.waitFor("two queued", func() bool { return len(h.m.proj.of(cs.id).queue.Items) == 2 && !h.m.proj.queueBox.Hidden })
	if h.m.composer.entry.Text != "" {
		t.Fatalf("the composer kept %q after queueing", h.m.composer.entry.Text)
	}
	// Edit the second, remove the first.
	q := h.m.proj.of(cs.id).queue
	h.m.proj.showEditDialog(cs, q.Items[1])
	h.m.proj.editEntry.SetText("echo: second, edited")
	h.m.proj.editDlg.Submit()
	h.waitFor("the edit", func() bool { return h.m.proj.of(cs.id).queue.Items[1].Text == "echo: second, edited" })
	var removeBtns []*button.Button
	walk(h.m.proj.queueBox, func(o fyne.CanvasObject) {
		if b, ok := o.(*button.Button); ok && b.Icon != nil && b.Icon.Name() == theme.CancelIcon().Name() {
			removeBtns = append(removeBtns, b)
		}
	})
	if len(removeBtns) != 2 {
		t.Fatalf("%d remove buttons", len(removeBtns))
	}
	test.Tap(removeBtns[0])
	h.waitFor("the removal", func() bool { return len(h.m.proj.of(cs.id).queue.Items) == 1 })

	// Stop does not clear the queue, and holds it; Send next sends it.
	h.m.stopAgent()
	h.waitFor("the held queue", func() bool { return h.m.proj.of(cs.id).queue.Held != "" && !cs.busy() })
	h.settle()
	sendNext := findShownButton(h.m.proj.queueBox, "Send next")
	if sendNext == nil {
		t.Fatal("a held queue offers no Send next")
	}
	test.Tap(sendNext)
	h.waitFor("the queued message answered", func() bool {
		last := h.lastRow()
		return last != nil && last.kind == rowAssistant && last.msg.Text == "second, edited" && !cs.busy()
	})

	// While a slow reply runs, a queued message goes by itself when the turn ends at Idle.
	h.typeAndSend("delay: 2000\necho: slow")
	h.waitFor("busy again", func() bool { return cs.busy() })
	h.typeAndSend("echo: after idle")
	h.waitFor("the queued message sent on Idle", func() bool {
		last := h.lastRow()
		return last != nil && last.kind == rowAssistant && last.msg.Text == "after idle" && !cs.busy()
	})
	if n := len(h.m.proj.of(cs.id).queue.Items); n != 0 || !h.m.proj.queueBox.Hidden {
		t.Fatalf("queue left: %d", n)
	}
}

func TestRealModelSwitchUpdatesTheMeter(t *testing.T) {
	h, r := newRealHarness(t)
	cs := h.newConversation(r.Cwd, false)
	h.typeAndSend("usage: 31000\necho: big")
	h.waitFor("the meter", func() bool { return strings.Contains(h.m.header.meterLabel.Text, "(31%)") })
	test.Tap(h.m.proj.modelBtn)
	h.waitFor("the model dialog", func() bool { return h.m.proj.modelDlg != nil })
	h.m.proj.modelEntry.SetText("qwen2.5-coder")
	h.m.proj.modelDlg.Submit()
	h.waitFor("the switch", func() bool { return cs.conv.Model == "qwen2.5-coder" })
	if cs.conv.Window() != domain.ContextWindowFor("qwen2.5-coder") || !strings.Contains(h.m.header.meterLabel.Text, "94%") {
		t.Fatalf("meter after the switch: %q (window %d)", h.m.header.meterLabel.Text, cs.conv.Window())
	}
	if h.m.header.wrapBtn.Hidden || h.m.notice.box.Hidden || !strings.Contains(h.m.notice.label.Text, "wrap up") {
		t.Fatalf("past 90%% the window does not offer the wrap-up: button hidden %v, inline %q", h.m.header.wrapBtn.Hidden, h.m.notice.label.Text)
	}
	if !strings.Contains(h.m.proj.modelBtn.Text, "qwen2.5-coder") {
		t.Fatalf("model button = %q", h.m.proj.modelBtn.Text)
	}
}
