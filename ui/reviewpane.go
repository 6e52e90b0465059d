package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/review"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
	uireview "github.com/phoenix-desktop/phoenix/ui/review"
)

// ReviewBackend is the part of the command API the Changes view uses. *actors.Runtime
// satisfies it; a Backend without it (a test fake) offers no Changes view.
type ReviewBackend interface {
	Changes(ctx context.Context, id string, scope actors.ChangesScope) (review.Changes, error)
	Revert(ctx context.Context, id string, req actors.RevertRequest) (actors.RestoreRecord, error)
}

var _ ReviewBackend = (*actors.Runtime)(nil)

// reviewUI owns the Changes windows (one per conversation, opened from the header's
// Changes button, the conversation menu, or a turn's "Changes") and the comments waiting to
// go with each conversation's next message. Everything runs on the UI goroutine.
type reviewUI struct {
	m        *MainWindow
	b        ReviewBackend
	wins     map[string]*reviewWindow
	comments map[string][]review.Comment
	// stale are the open windows whose conversation changed since they were read: they
	// are read again once it is at rest (reloadChanged).
	stale map[string]bool
	// marks are the files marked reviewed per conversation (path → the diff's print).
	marks  map[string]map[string]string
	keeper *reviewKeeper
}

// reviewWindow is one conversation's Changes window.
type reviewWindow struct {
	win   fyne.Window
	view  *uireview.View
	cs    *convState
	scope actors.ChangesScope
	// loading counts the loads running; a newer load's answer wins.
	loads int
}

func newReviewUI(m *MainWindow) *reviewUI {
	r := &reviewUI{m: m, wins: map[string]*reviewWindow{}, comments: map[string][]review.Comment{}, stale: map[string]bool{},
		marks: map[string]map[string]string{}, keeper: newReviewKeeper(m.b)}
	r.b, _ = m.b.(ReviewBackend)
	return r
}

func (r *reviewUI) enabled() bool { return r.b != nil }

// openCurrent opens the Changes view of the open conversation, scoped to its last turn.
func (r *reviewUI) openCurrent() {
	if cs := r.m.current; cs != nil {
		r.open(cs, actors.ChangesScope{Kind: review.Turn})
	}
}

// open opens (or brings forward, rescoped) the Changes window of cs.
func (r *reviewUI) open(cs *convState, scope actors.ChangesScope) {
	if !r.enabled() {
		return
	}
	if w := r.wins[cs.id]; w != nil {
		w.scope = scope
		r.load(w)
		w.win.Show()
		w.win.RequestFocus()
		return
	}
	w := &reviewWindow{cs: cs, scope: scope}
	w.view = uireview.NewView(uireview.Options{
		OnScope: func(s review.Scope) {
			w.scope = actors.ChangesScope{Kind: s, Turn: w.scope.Turn}
			r.load(w)
		},
		OnRevert:   func(path string, hunk int) { r.revert(w, path, hunk) },
		OnComment:  func(c review.Comment) { r.addComment(w, c) },
		OnReviewed: func(path, diff string) { r.setMark(cs.id, path, diff) },
		Do:         r.m.do,
	})
	w.view.SetMarks(r.marks[cs.id])
	r.restoreKept(cs)
	w.view.SetDraft(len(r.comments[cs.id]))
	w.win = r.m.app.NewWindow("Changes — " + transcript.Title(cs.conv.Title, cs.conv.Cwd))
	refresh := button.NewWithIcon("Refresh", theme.ViewRefreshIcon(), func() { r.load(w) })
	refresh.Importance = widget.LowImportance
	w.win.SetContent(container.NewPadded(container.NewBorder(container.NewBorder(nil, nil, nil, refresh), nil, nil, nil, w.view)))
	w.win.Resize(fyne.NewSize(1100, 760))
	r.keys(w)
	w.win.SetOnClosed(func() { delete(r.wins, cs.id) })
	r.wins[cs.id] = w
	r.load(w)
	w.win.Show()
}

// keys: Up and Down move the selected line (with Shift, extend it), R reverts the hunk of
// the selected line, C writes a comment on it, Escape closes the window.
func (r *reviewUI) keys(w *reviewWindow) {
	c := w.win.Canvas()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyDown:
			w.view.MoveCursor(1, false)
		case fyne.KeyUp:
			w.view.MoveCursor(-1, false)
		case fyne.KeyEscape:
			w.win.Close()
		}
	})
	// Letters as runes: a key handler that moved the focus to the comment box would have the
	// rune that follows the key ("c") typed into it.
	c.SetOnTypedRune(func(r rune) {
		switch r {
		case 'r', 'R':
			w.view.RevertAtCursor()
		case 'c', 'C':
			w.view.FocusComment(c)
		}
	})
	for _, k := range []struct {
		key   fyne.KeyName
		delta int
	}{{fyne.KeyDown, 1}, {fyne.KeyUp, -1}} {
		delta := k.delta
		c.AddShortcut(&desktop.CustomShortcut{KeyName: k.key, Modifier: fyne.KeyModifierShift}, func(fyne.Shortcut) { w.view.MoveCursor(delta, true) })
	}
}

// load reads the window's scope and shows it.
func (r *reviewUI) load(w *reviewWindow) {
	w.loads++
	n := w.loads
	id, scope := w.cs.id, w.scope
	go func() {
		ctx, cancel := context.WithTimeout(r.m.ctx, callTimeout)
		defer cancel()
		ch, err := r.b.Changes(ctx, id, scope)
		r.m.do(func() {
			if r.m.closed || n != w.loads {
				return
			}
			if err != nil {
				w.view.SetStatus(failureText("read the changes", err))
				ch = review.Changes{Scope: scope.Kind}
			} else {
				w.view.SetStatus("")
			}
			w.view.SetChanges(ch)
		})
	}()
}

// revert reverts a file or a hunk as the view numbered it; the main window offers to undo it.
func (r *reviewUI) revert(w *reviewWindow, path string, hunk int) {
	if w.cs.busy() {
		w.view.SetStatus("The agent is working: files can be reverted once it has finished (or after Stop).")
		return
	}
	what := "all of " + path
	if hunk > 0 {
		what = fmt.Sprintf("hunk %d of %s", hunk, path)
	}
	req := actors.RevertRequest{Scope: w.scope, Path: path, Hunk: hunk, Expect: w.view.Changes().To}
	cs := w.cs
	go func() {
		ctx, cancel := context.WithTimeout(r.m.ctx, callTimeout)
		defer cancel()
		rec, err := r.b.Revert(ctx, cs.id, req)
		r.m.do(func() {
			if r.m.closed {
				return
			}
			switch {
			case errors.Is(err, actors.ErrRestoreConflict):
				w.view.SetStatus("The files changed since these changes were shown, so nothing was reverted. They are shown again as they are now.")
			case errors.Is(err, domain.ErrAgentBusy):
				w.view.SetStatus("The agent is working: files can be reverted once it has finished (or after Stop).")
			case err != nil:
				w.view.SetStatus(failureText("revert "+what, err))
			case rec.N == 0:
				w.view.SetStatus("Nothing to revert: " + path + " is already as it was.")
			default:
				text := "Reverted " + what + ". The agent was told."
				w.view.SetStatus(text)
				n := rec.N
				if r.m.proj.enabled() {
					r.m.showDoneWithAction(text, "Undo the revert", func() { r.m.proj.showUndoRestore(cs, n) })
				}
			}
			r.load(w)
		})
	}()
}

// addComment keeps a comment for the conversation's next message.
func (r *reviewUI) addComment(w *reviewWindow, c review.Comment) {
	r.comments[w.cs.id] = append(r.comments[w.cs.id], c)
	r.keep(w.cs.id)
	w.view.SetDraft(len(r.comments[w.cs.id]))
	w.view.SetStatus("Comment added on " + c.Where() + ". It goes with your next message in the chat.")
	r.m.refreshStrip()
}

// take removes the comments of cs for a message being sent; putBack returns them when the
// message could not be sent.
func (r *reviewUI) take(cs *convState) []review.Comment {
	c := r.comments[cs.id]
	delete(r.comments, cs.id)
	r.draftChanged(cs)
	return c
}

func (r *reviewUI) putBack(cs *convState, c []review.Comment) {
	if len(c) == 0 {
		return
	}
	r.comments[cs.id] = append(c, r.comments[cs.id]...)
	r.draftChanged(cs)
}

func (r *reviewUI) draftChanged(cs *convState) {
	r.keep(cs.id)
	r.showDraft(cs)
}

// showDraft shows how many comments wait, in the Changes window and the composer.
func (r *reviewUI) showDraft(cs *convState) {
	if w := r.wins[cs.id]; w != nil {
		w.view.SetDraft(len(r.comments[cs.id]))
	}
	r.m.refreshStrip()
}

// withComments is the message with the comments before the person's words: one message
// the model can act on, shown in the chat as sent.
func withComments(c []review.Comment, msg string) string {
	if len(c) == 0 {
		return msg
	}
	if strings.TrimSpace(msg) == "" {
		return review.FormatComments(c)
	}
	return review.FormatComments(c) + "\n" + msg
}

// commentChip is the composer's note that comments go with the next message, with a way to
// drop them; nil when there are none.
func (r *reviewUI) commentChip(cs *convState) fyne.CanvasObject {
	if cs == nil || len(r.comments[cs.id]) == 0 {
		return nil
	}
	n := len(r.comments[cs.id])
	text := "1 comment on the changes goes with this message"
	if n > 1 {
		text = fmt.Sprintf("%d comments on the changes go with this message", n)
	}
	label := widget.NewLabel(text)
	show := button.NewWithIcon("", theme.VisibilityIcon(), func() { r.open(cs, actors.ChangesScope{Kind: review.Turn}) })
	show.Importance = widget.LowImportance
	drop := button.NewWithIcon("", theme.CancelIcon(), func() {
		delete(r.comments, cs.id)
		r.draftChanged(cs)
	})
	drop.Importance = widget.LowImportance
	return container.NewHBox(label, show, drop)
}

// closeAll closes the Changes windows (the main window is closing).
func (r *reviewUI) closeAll() {
	for _, w := range r.wins {
		w.win.Close()
	}
}

// hasComments says whether comments wait for cs's next message.
func (r *reviewUI) hasComments(cs *convState) bool { return cs != nil && len(r.comments[cs.id]) > 0 }

// openTurn opens the Changes view of the turn of user message seq.
func (r *reviewUI) openTurn(cs *convState, seq uint64) {
	r.open(cs, actors.ChangesScope{Kind: review.Turn, Turn: seq})
}

// turnChanged says whether the turn of user message seq changed files (it has a checkpoint
// of its own), so that its row offers "Changes".
func (r *reviewUI) turnChanged(convID string, seq uint64) bool {
	if !r.enabled() || !r.m.proj.enabled() {
		return false
	}
	for _, cp := range r.m.proj.of(convID).ckpts {
		if cp.MsgSeq == seq {
			return true
		}
	}
	return false
}

// noteEvent notes that an open Changes window's conversation changed: a message committed
// (a turn's, or the notice of a revert, a Rewind or an Undo), a checkpoint saved, its state
// changed.
func (r *reviewUI) noteEvent(ev actors.Event) {
	switch ev.(type) {
	case actors.MessageCommitted, actors.CheckpointSaved, actors.StateChanged:
		if r.wins[ev.Conversation()] != nil {
			r.stale[ev.Conversation()] = true
		}
	}
}

// reloadChanged reads again the open Changes windows whose conversation changed and is at
// rest (a turn's files are read once, when it ends, not at every tool call); the view keeps
// the person's place, selection and marks where the lines still are (SetChanges).
func (r *reviewUI) reloadChanged() {
	for id := range r.stale {
		w := r.wins[id]
		if w == nil {
			delete(r.stale, id)
			continue
		}
		if w.cs.busy() {
			continue
		}
		delete(r.stale, id)
		r.load(w)
	}
}
