package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
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

// undoLastRestore is the menu's "Undo last rewind or undo…": it takes back the open
// conversation's newest restore (which may itself be the taking back of another), as the
// notice after a restore offers, after the notice is gone.
func (p *projectUI) undoLastRestore() {
	cs := p.m.current
	if cs == nil || !p.enabled() {
		return
	}
	var list []actors.RestoreRecord
	p.run("read the conversation's restores", func(ctx context.Context) (err error) {
		list, err = p.b.Restores(ctx, cs.id)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		if len(list) == 0 {
			p.m.showInline("Nothing to take back: no rewind or undo was applied in this conversation.")
			return
		}
		p.showUndoRestore(cs, list[len(list)-1].N)
	})
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
	title, confirm := undoTitle(cp.Tool), "Undo"
	if kind == actors.RestoreRewind {
		title, confirm = "Rewind to before this message", "Rewind"
	}
	p.showPlan(cs, title, confirm, callID, func(ctx context.Context) (actors.RestorePlan, error) {
		return p.b.PlanRestore(ctx, cs.id, kind, cp.ID)
	})
}

// showUndoRestore is "Undo the rewind": the files restore n changed go back to how they were
// just before it.
func (p *projectUI) showUndoRestore(cs *convState, n int) {
	p.showPlan(cs, "Undo the restore", "Undo it", "", func(ctx context.Context) (actors.RestorePlan, error) {
		return p.b.PlanUndoRestore(ctx, cs.id, n)
	})
}

// restoreNoun names a restore for the person: "rewind", "undo".
func restoreNoun(k actors.RestoreKind) string {
	switch k {
	case actors.RestoreRewind:
		return "rewind"
	case actors.RestoreUndo:
		return "undo"
	case actors.RestoreRevert:
		return "revert"
	}
	return "restore"
}

// Choices for the files changed by the person.
const (
	keepYours      = "Keep my changes"
	overwriteYours = "Overwrite my changes too"
)

func (p *projectUI) showPlan(cs *convState, title, confirm, callID string, plan func(ctx context.Context) (actors.RestorePlan, error)) {
	if cs.busy() {
		p.m.showInline("The agent is working: stop it (Esc) before restoring files.")
		return
	}
	var pl actors.RestorePlan
	p.run("prepare the restore", func(ctx context.Context) (err error) {
		pl, err = plan(ctx)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		if pl.Empty() {
			p.m.showInline("Nothing to restore: the files are already as they were.")
			return
		}
		if pl.Kind == actors.RestoreBack {
			title = "Undo the " + restoreNoun(pl.Restore.Kind)
		}
		p.restorePlan = pl
		intro := widget.NewLabel("")
		intro.Wrapping = fyne.TextWrapWord
		diff := newWrapText()
		diff.Wrapping = fyne.TextWrapOff
		show := func() {
			files, d := p.restorePlan.Chosen()
			var lines []string
			for _, f := range files {
				lines = append(lines, restoreLine(f))
			}
			if len(lines) == 0 {
				intro.SetText("Nothing changes while your own changes are kept.")
			} else {
				intro.SetText("These files change:\n" + strings.Join(lines, "\n"))
			}
			setPlain(diff, diffForPerson(d), monoStyle())
		}
		parts := []fyne.CanvasObject{intro}
		p.restoreYours = nil
		if len(pl.Yours) > 0 {
			yours := widget.NewLabel("Changed by you (between the agent's calls or since its last one), not by the agent: " +
				strings.Join(pl.Yours, ", ") + ". They are kept as you left them unless you choose to overwrite them.")
			yours.Wrapping = fyne.TextWrapWord
			yours.Importance = widget.WarningImportance
			choice := widget.NewRadioGroup([]string{keepYours, overwriteYours}, func(s string) {
				p.restorePlan.OverwriteYours = s == overwriteYours
				show()
			})
			choice.Required = true
			choice.Horizontal = true
			choice.SetSelected(keepYours)
			p.restoreYours = choice
			parts = append(parts, yours, choice)
		}
		if len(pl.Conflicts) > 0 {
			warn := widget.NewLabel("Changed by a later call of the agent; restoring overwrites those changes: " + strings.Join(pl.Conflicts, ", "))
			warn.Wrapping = fyne.TextWrapWord
			warn.Importance = widget.WarningImportance
			parts = append(parts, warn)
			confirm = "Overwrite and " + strings.ToLower(confirm)
		}
		show()
		scroll := container.NewScroll(diff)
		scroll.SetMinSize(fyne.NewSize(640, 300))
		content := container.NewBorder(container.NewVBox(parts...), nil, nil, nil, scroll)
		p.restoreDlg = newCustomConfirm(title, confirm, "Cancel", content, func(ok bool) {
			if ok {
				p.applyRestore(cs, p.restorePlan, callID)
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
	var rec actors.RestoreRecord
	p.run("restore the files", func(ctx context.Context) (err error) {
		rec, err = p.b.ApplyRestore(ctx, cs.id, plan, len(plan.Conflicts) > 0)
		return err
	}, func(err error) {
		if errors.Is(err, actors.ErrRestoreConflict) {
			p.m.showInline("The files changed while the restore was shown; nothing was restored. Try again to see the new diff.")
			return
		}
		if err != nil {
			return
		}
		if rec.N == 0 {
			p.m.showDone("Nothing was restored: your own changes were kept.")
			return
		}
		st := p.of(cs.id)
		undone := func(callID string, on bool) {
			if st.undone == nil {
				st.undone = map[string]bool{}
			}
			st.undone[callID] = on
			p.m.gen++ // the row's Undo turns disabled, or enabled again
			p.m.refreshConv(cs)
		}
		if callID != "" {
			undone(callID, true)
		}
		if plan.Kind == actors.RestoreBack && plan.Restore.Kind == actors.RestoreUndo {
			for _, c := range st.ckpts {
				if c.ID == plan.Restore.Checkpoint && c.CallID != "" {
					undone(c.CallID, false)
				}
			}
		}
		text := "Restored " + transcript.Count(len(rec.Files), "file", "files") + ". The agent was told."
		if len(rec.Kept) > 0 {
			text = fmt.Sprintf("Restored %s and kept your changes to %s. The agent was told.", transcript.Count(len(rec.Files), "file", "files"), strings.Join(rec.Kept, ", "))
		}
		n := rec.N
		p.m.showDoneWithAction(text, "Undo the "+restoreNoun(rec.Kind), func() { p.showUndoRestore(cs, n) })
	})
}

// restoreButton is the small button a row shows for Undo or Rewind.
func restoreButton(label string, tap func()) *button.Button {
	b := button.NewWithIcon(label, theme.ContentUndoIcon(), tap)
	b.Importance = widget.LowImportance
	return b
}
