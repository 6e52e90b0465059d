package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
)

// Undo and Rewind, the project controls' restores of checkpoints: the window shows what a
// restore will change and applies it once the person confirms.

// checkpointForCall is the checkpoint taken before a tool call, if any.
func (p *projectUI) checkpointForCall(convID, callID string) (actors.Checkpoint, bool) {
	if !p.enabled() {
		return actors.Checkpoint{}, false
	}
	for _, c := range p.of(convID).ckpts {
		if c.CallID == callID {
			return c, true
		}
	}
	return actors.Checkpoint{}, false
}

// checkpointBefore is the first checkpoint of a user message's turn or a later one.
func (p *projectUI) checkpointBefore(convID string, seq uint64) (actors.Checkpoint, bool) {
	if !p.enabled() {
		return actors.Checkpoint{}, false
	}
	for _, c := range p.of(convID).ckpts {
		if c.MsgSeq >= seq {
			return c, true
		}
	}
	return actors.Checkpoint{}, false
}

// undo is a tool row's Undo: it shows the diff it will apply, then restores.
func (p *projectUI) undo(cs *convState, callID string) {
	if cp, ok := p.checkpointForCall(cs.id, callID); ok {
		p.showRestore(cs, actors.RestoreUndo, cp, callID)
	}
}

// undoLast is the menu's "Undo last file change…" (Ctrl+Alt+Z): the Undo of the open
// conversation's newest call that changed files and is not undone yet, as its row offers it.
func (p *projectUI) undoLast() {
	cs := p.m.current
	if cs == nil || !p.enabled() {
		return
	}
	st := p.of(cs.id)
	for i := len(st.ckpts) - 1; i >= 0; i-- {
		if c := st.ckpts[i]; c.Complete() && !c.ChangedNothing() && c.CallID != "" && !st.undone[c.CallID] {
			p.showRestore(cs, actors.RestoreUndo, c, c.CallID)
			return
		}
	}
	p.m.showInline("Nothing to undo: no call of this conversation changed a file.")
}

// rewind is a user message's "Rewind to here".
func (p *projectUI) rewind(cs *convState, seq uint64) {
	if cp, ok := p.checkpointBefore(cs.id, seq); ok {
		p.showRestore(cs, actors.RestoreRewind, cp, "")
	}
}

// showRestore shows the diff a restore applies; callID is the tool call an Undo undoes ("" for
// a Rewind).
func (p *projectUI) showRestore(cs *convState, kind actors.RestoreKind, cp actors.Checkpoint, callID string) {
	if cs.busy() {
		p.m.showInline("The agent is working: stop it (Esc) before restoring files.")
		return
	}
	var plan actors.RestorePlan
	p.run("prepare the restore", func(ctx context.Context) (err error) {
		plan, err = p.b.PlanRestore(ctx, cs.id, kind, cp.ID)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		if plan.Empty() {
			p.m.showInline("Nothing to restore: the files are already as they were.")
			return
		}
		p.restorePlan = plan
		title, confirm := "Undo "+cp.Tool+" call", "Undo"
		if kind == actors.RestoreRewind {
			title, confirm = "Rewind to before this message", "Rewind"
		}
		var files []string
		for _, f := range plan.Files {
			files = append(files, restoreLine(f))
		}
		intro := widget.NewLabel("These files change:\n" + strings.Join(files, "\n"))
		intro.Wrapping = fyne.TextWrapWord
		parts := []fyne.CanvasObject{intro}
		if len(plan.Conflicts) > 0 {
			warn := widget.NewLabel("Changed since the checkpoint (by you or a later call); restoring overwrites those changes: " + strings.Join(plan.Conflicts, ", "))
			warn.Wrapping = fyne.TextWrapWord
			warn.Importance = widget.WarningImportance
			parts = append(parts, warn)
			confirm = "Overwrite and " + strings.ToLower(confirm)
		}
		diff := newWrapText()
		diff.Wrapping = fyne.TextWrapOff
		setPlain(diff, plan.Diff, monoStyle())
		scroll := container.NewScroll(diff)
		scroll.SetMinSize(fyne.NewSize(640, 300))
		content := container.NewBorder(container.NewVBox(parts...), nil, nil, nil, scroll)
		p.restoreDlg = dialog.NewCustomConfirm(title, confirm, "Cancel", content, func(ok bool) {
			if ok {
				p.applyRestore(cs, plan, callID)
			}
		}, p.m.win)
		p.restoreDlg.SetConfirmImportance(widget.DangerImportance)
		p.m.showModal(p.restoreDlg)
	})
}

func restoreLine(f actors.FileChange) string {
	return fmt.Sprintf("  %-9s %s", actors.RestoreVerb(f.Status), f.Path)
}

func (p *projectUI) applyRestore(cs *convState, plan actors.RestorePlan, callID string) {
	var changed []actors.FileChange
	p.run("restore the files", func(ctx context.Context) (err error) {
		changed, err = p.b.ApplyRestore(ctx, cs.id, plan, len(plan.Conflicts) > 0)
		return err
	}, func(err error) {
		if errors.Is(err, actors.ErrRestoreConflict) {
			p.m.showInline("The files changed while the restore was shown; nothing was restored. Try again to see the new diff.")
			return
		}
		if err != nil {
			return
		}
		if callID != "" {
			st := p.of(cs.id)
			if st.undone == nil {
				st.undone = map[string]bool{}
			}
			st.undone[callID] = true
			p.m.gen++ // the row's Undo turns disabled
			p.m.refreshConv(cs)
		}
		p.m.showDone(fmt.Sprintf("Restored %d file(s). The agent was told.", len(changed)))
	})
}

// restoreButton is the small button a row shows for Undo or Rewind.
func restoreButton(label string, tap func()) *widget.Button {
	b := widget.NewButtonWithIcon(label, theme.ContentUndoIcon(), tap)
	b.Importance = widget.LowImportance
	return b
}
