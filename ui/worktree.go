package ui

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// WorktreeBackend is the part of the command API that handles a conversation's own git
// worktree (issue 34): where it stands, merge into its base, keep the branch, remove.
type WorktreeBackend interface {
	WorktreeStatus(ctx context.Context, id string) (actors.WorktreeStatus, error)
	MergeWorktree(ctx context.Context, id string) (actors.MergeResult, error)
	KeepWorktree(ctx context.Context, id string) error
	RemoveWorktree(ctx context.Context, id string, confirmed bool) error
	RestoreWorktree(ctx context.Context, id string) error
}

var _ WorktreeBackend = (*actors.Runtime)(nil)

// The New conversation dialog's choice, and the worktree menu's items.
const (
	worktreeCheckLabel = "Work in a new git worktree (a branch of its own, merged when you say)"
	worktreeNoRepo     = "The folder is not in a git repository."
	keepBranchLabel    = "Keep the branch (remove the folder)"
	removeWorktreeText = "Remove the worktree and its branch…"
	undoRemovalText    = "Undo"
)

// mergeLabel is the menu item that merges into base.
func mergeLabel(base string) string { return "Merge into " + base }

// worktreeButtonText is the header button of a conversation in a worktree: its branch.
func worktreeButtonText(w *domain.Worktree) string { return w.Branch }

// newWorktreeButton is the header's worktree button: it names the branch, and its menu
// merges, keeps or removes. Hidden for a conversation without a worktree.
func newWorktreeButton(m *MainWindow) *button.Button {
	var b *button.Button
	b = button.NewWithIcon("", theme.FolderIcon(), func() {
		cs := m.current
		if cs == nil || cs.conv.Worktree == nil {
			return
		}
		m.showWorktreeMenu(cs, b)
	})
	b.Importance = widget.LowImportance
	b.Hide()
	return b
}

// refreshWorktreeButton shows the open conversation's branch on the button.
func (m *MainWindow) refreshWorktreeButton(b *button.Button) {
	cs := m.current
	_, ok := m.b.(WorktreeBackend)
	if cs == nil || cs.conv.Worktree == nil || !ok {
		b.Hide()
		return
	}
	b.SetText(worktreeButtonText(cs.conv.Worktree))
	b.Show()
}

// worktreeMenu is the worktree button's menu for a worktree as it stands now: Merge while
// the branch is there, Keep while the folder is, Remove while either is; nothing while the
// conversation works.
func worktreeMenu(m *MainWindow, cs *convState, st actors.WorktreeStatus) *fyne.Menu {
	w := *cs.conv.Worktree
	merge := fyne.NewMenuItem(mergeLabel(w.Base), func() { m.mergeWorktree(cs) })
	keep := fyne.NewMenuItem(keepBranchLabel, func() { m.keepWorktree(cs) })
	remove := fyne.NewMenuItem(removeWorktreeText, func() { m.removeWorktree(cs, false) })
	merge.Disabled = st.BranchGone || cs.busy()
	keep.Disabled = !st.Present || cs.busy()
	remove.Disabled = (!st.Present && st.BranchGone) || cs.busy()
	where := fyne.NewMenuItem(worktreeStatusText(st), nil)
	where.Disabled = true
	return fyne.NewMenu("", where, fyne.NewMenuItemSeparator(), merge, keep, remove)
}

// worktreeStatusText says in a line where the worktree stands.
func worktreeStatusText(st actors.WorktreeStatus) string {
	switch {
	case !st.Present && st.BranchGone:
		return "Worktree and branch removed"
	case !st.Present:
		return fmt.Sprintf("Branch %s kept; folder removed", st.Branch)
	}
	s := fmt.Sprintf("%s · %s not in %s", st.Path, transcript.Count(st.Ahead, "commit", "commits"), st.Base)
	if st.Dirty {
		s += " · changes not committed"
	}
	return s
}

// showWorktreeMenu reads the worktree off the UI goroutine and shows its menu under b.
func (m *MainWindow) showWorktreeMenu(cs *convState, b *button.Button) {
	wb, ok := m.b.(WorktreeBackend)
	if !ok {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		st, err := wb.WorktreeStatus(ctx, cs.id)
		m.do(func() {
			if err != nil {
				m.showInline(fmt.Sprintf("Could not read the worktree: %v.", err))
				return
			}
			c := fyne.CurrentApp().Driver().CanvasForObject(b)
			if c == nil {
				return
			}
			pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(b).Add(fyne.NewPos(0, b.Size().Height))
			widget.ShowPopUpMenuAtPosition(worktreeMenu(m, cs, st), c, pos)
		})
	}()
}

// worktreeCall runs one worktree action off the UI goroutine and hands its error to done
// there.
func (m *MainWindow) worktreeCall(call func(ctx context.Context, wb WorktreeBackend) error, done func(error)) {
	wb, ok := m.b.(WorktreeBackend)
	if !ok {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		err := call(ctx, wb)
		m.do(func() { done(err) })
	}()
}

// mergeWorktree merges the conversation's branch into its base; a conflict is shown with its
// files, and nothing was changed.
func (m *MainWindow) mergeWorktree(cs *convState) {
	w := *cs.conv.Worktree
	var res actors.MergeResult
	m.worktreeCall(func(ctx context.Context, wb WorktreeBackend) error {
		var err error
		res, err = wb.MergeWorktree(ctx, cs.id)
		return err
	}, func(err error) {
		var conflict *actors.ConflictError
		switch {
		case errors.As(err, &conflict):
			m.showModal(newErrorDialog(fmt.Errorf("%s", conflict.Error()), m.win))
		case err != nil:
			m.showInline(fmt.Sprintf("Could not merge: %v.", err))
		default:
			m.showDone(actors.MergeText(w, res))
		}
	})
}

// keepWorktree removes the folder and keeps the branch with every change committed.
func (m *MainWindow) keepWorktree(cs *convState) {
	w := *cs.conv.Worktree
	m.worktreeCall(func(ctx context.Context, wb WorktreeBackend) error { return wb.KeepWorktree(ctx, cs.id) },
		func(err error) {
			if err != nil {
				m.showInline(fmt.Sprintf("Could not keep the branch: %v.", err))
				return
			}
			m.showDone(fmt.Sprintf("The branch %s is kept; its worktree folder is removed.", w.Branch))
		})
}

// removeWorktree removes the worktree and its branch; when that would lose work it asks
// first, naming what would be lost. The notice that says it is removed offers Undo, as a
// Rewind's does.
func (m *MainWindow) removeWorktree(cs *convState, confirmed bool) {
	w := *cs.conv.Worktree
	m.worktreeCall(func(ctx context.Context, wb WorktreeBackend) error { return wb.RemoveWorktree(ctx, cs.id, confirmed) },
		func(err error) {
			var unmerged *actors.UnmergedError
			switch {
			case errors.As(err, &unmerged) && !confirmed:
				d := newConfirm("Remove the worktree?", unmergedQuestion(unmerged), func(ok bool) {
					if ok {
						m.removeWorktree(cs, true)
					}
				}, m.win)
				d.SetConfirmText("Remove")
				d.SetDismissText("Cancel")
				m.showModal(d)
			case err != nil:
				m.showInline(fmt.Sprintf("Could not remove the worktree: %v.", err))
			default:
				m.showDoneWithAction(fmt.Sprintf("The worktree %s and the branch %s are removed.", w.Path, w.Branch),
					undoRemovalText, func() { m.restoreWorktree(cs) })
			}
		})
}

// restoreWorktree undoes the removal: the branch and the folder come back with the changes
// that were not committed.
func (m *MainWindow) restoreWorktree(cs *convState) {
	w := *cs.conv.Worktree
	m.worktreeCall(func(ctx context.Context, wb WorktreeBackend) error { return wb.RestoreWorktree(ctx, cs.id) },
		func(err error) {
			if err != nil {
				m.showInline(fmt.Sprintf("Could not bring back the worktree: %v.", err))
				return
			}
			m.showDone(fmt.Sprintf("The worktree %s on the branch %s is back.", w.Path, w.Branch))
		})
}

// unmergedQuestion is what the removal's confirmation says.
func unmergedQuestion(e *actors.UnmergedError) string {
	var lost string
	switch {
	case e.Commits > 0 && e.Dirty:
		lost = transcript.Count(e.Commits, "commit", "commits") + " that no other branch holds, and changes not committed"
	case e.Commits > 0:
		lost = transcript.Count(e.Commits, "commit", "commits") + " that no other branch holds"
	default:
		lost = "changes not committed"
	}
	return fmt.Sprintf("The branch %s has %s.\nRemoving the worktree loses them. Merge it, or keep the branch, to keep them.", e.Branch, lost)
}
