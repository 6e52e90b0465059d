package ui

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// ProjectBackend is the part of the command API for working on a project: instructions,
// checkpoints with Undo and Rewind, the message queue and the model switch. *actors.Runtime
// satisfies it; a Backend without it (a test fake) shows none of these controls.
type ProjectBackend interface {
	Instructions(ctx context.Context, id string) (actors.Instructions, error)
	ReloadInstructions(ctx context.Context, id string) (actors.Instructions, error)
	Checkpoints(ctx context.Context, id string) ([]actors.Checkpoint, error)
	PlanRestore(ctx context.Context, id string, kind actors.RestoreKind, ckpt domain.ExecID) (actors.RestorePlan, error)
	PlanUndoRestore(ctx context.Context, id string, n int) (actors.RestorePlan, error)
	Restores(ctx context.Context, id string) ([]actors.RestoreRecord, error)
	ApplyRestore(ctx context.Context, id string, plan actors.RestorePlan, overwrite bool) (actors.RestoreRecord, error)
	Queue(ctx context.Context, id string) (actors.Queue, error)
	Enqueue(ctx context.Context, id, text string, images []Attachment) (actors.Queue, error)
	EditQueued(ctx context.Context, id, itemID, text string) (actors.Queue, error)
	RemoveQueued(ctx context.Context, id, itemID string) (actors.Queue, error)
	MoveQueued(ctx context.Context, id, itemID string, to int) (actors.Queue, error)
	ClearQueue(ctx context.Context, id string) (actors.Queue, error)
	ResumeQueue(ctx context.Context, id string) (actors.Queue, error)
	ChangeModel(ctx context.Context, id, model string) (actors.ModelChange, error)
}

var _ ProjectBackend = (*actors.Runtime)(nil)

// projectState is what the window knows of one conversation's project side.
type projectState struct {
	loaded bool
	instr  actors.Instructions
	ckpts  []actors.Checkpoint
	queue  actors.Queue
	// undone holds the tool calls whose Undo was applied: their button stays disabled, since
	// a second Undo has nothing left to restore.
	undone map[string]bool
}

// projectUI holds the project controls of the main window: the instructions and model row
// under the header, the queue above the composer, and the Undo / Rewind dialogs (restore.go). Everything
// runs on the UI goroutine; backend calls run off it and report back through m.do.
type projectUI struct {
	m     *MainWindow
	b     ProjectBackend
	state map[string]*projectState

	row        *fyne.Container
	instrFiles *fyne.Container
	reloadBtn  *button.Button
	modelBtn   *button.Button
	queueBox   *fyne.Container
	// shown is what the row and the queue show, as refresh compares it.
	shown string

	// The open dialogs, for tests.
	restoreDlg  *confirmDialog
	restorePlan actors.RestorePlan
	// restoreYours is the open dialog's choice for the files the person changed, nil when
	// there are none.
	restoreYours *widget.RadioGroup
	modelDlg     *scrollingForm
	modelEntry   *escSelectEntry
	editDlg      *scrollingForm
	editEntry    *escEntry
}

func newProjectUI(m *MainWindow) *projectUI {
	p := &projectUI{m: m, state: map[string]*projectState{}}
	p.b, _ = m.b.(ProjectBackend)
	p.instrFiles = container.NewHBox()
	p.reloadBtn = button.NewWithIcon("Reload instructions", theme.ViewRefreshIcon(), p.reload)
	p.reloadBtn.Importance = widget.LowImportance
	p.modelBtn = button.NewWithIcon("Model", theme.SettingsIcon(), p.showModelDialog)
	p.modelBtn.Importance = widget.LowImportance
	p.row = container.NewBorder(nil, nil, p.instrFiles, container.NewHBox(p.reloadBtn, p.modelBtn))
	p.queueBox = container.NewVBox()
	p.row.Hide()
	p.queueBox.Hide()
	return p
}

func (p *projectUI) enabled() bool { return p.b != nil }

func (p *projectUI) of(id string) *projectState {
	s := p.state[id]
	if s == nil {
		s = &projectState{}
		p.state[id] = s
	}
	return s
}

// run calls the backend off the UI goroutine and hands the result to done on it.
func (p *projectUI) run(what string, f func(ctx context.Context) error, done func(err error)) {
	go func() {
		ctx, cancel := context.WithTimeout(p.m.ctx, callTimeout)
		defer cancel()
		err := f(ctx)
		p.m.do(func() {
			if p.m.closed {
				return
			}
			if done != nil {
				done(err)
			}
			if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, actors.ErrRestoreConflict) {
				p.m.showInline(failureText(what, err))
			}
		})
	}()
}

// load reads a conversation's instructions, checkpoints and queue when it is first opened.
func (p *projectUI) load(cs *convState) {
	if !p.enabled() || p.of(cs.id).loaded {
		return
	}
	p.of(cs.id).loaded = true
	var st projectState
	p.run("read the conversation's project details", func(ctx context.Context) error {
		var err error
		if st.instr, err = p.b.Instructions(ctx, cs.id); err != nil {
			return err
		}
		if st.ckpts, err = p.b.Checkpoints(ctx, cs.id); err != nil {
			return err
		}
		st.queue, err = p.b.Queue(ctx, cs.id)
		return err
	}, func(err error) {
		if err != nil {
			p.of(cs.id).loaded = false
			return
		}
		st.loaded = true
		st.undone = p.of(cs.id).undone
		p.state[cs.id] = &st
		p.m.gen++ // rows gain Undo and Rewind buttons
		p.m.refreshConv(cs)
	})
}

// onEvent applies the project events; it reports whether the rows must be drawn again.
func (p *projectUI) onEvent(ev actors.Event) bool {
	switch e := ev.(type) {
	case actors.InstructionsChanged:
		p.of(e.ConvID).instr = e.Instructions
	case actors.QueueChanged:
		p.of(e.ConvID).queue = e.Queue
	case actors.CheckpointSaved:
		s := p.of(e.ConvID)
		replaced := false
		for i, c := range s.ckpts {
			if c.ID == e.Checkpoint.ID {
				s.ckpts[i], replaced = e.Checkpoint, true
			}
		}
		if !replaced {
			s.ckpts = append(s.ckpts, e.Checkpoint)
		}
		return true
	}
	return false
}

// refresh re-draws the instructions row and the queue for the open conversation.
func (p *projectUI) refresh() {
	cs := p.m.current
	if !p.enabled() || cs == nil {
		p.row.Hide()
		p.queueBox.Hide()
		return
	}
	s := p.of(cs.id)
	// The row and the queue are built anew only when what they show changed: a tool round
	// refreshes the window twice, and rebuilding them redraws every widget in them (issue 39).
	look := fmt.Sprintf("%s\x00%d\x00%v\x00%s\x00%s\x00%v\x00%v\x00%v", cs.id, p.m.gen, s.instr, p.m.slash.skillsText(cs.id),
		p.m.b.ModelLabel(cs.conv.Model), s.queue, cs.busy(), !cs.hasState || cs.conv.State.Kind() == domain.StateContextExhausted)
	if look == p.shown && p.row.Visible() {
		return
	}
	p.shown = look
	p.instrFiles.Objects = p.instrFiles.Objects[:0]
	label := widget.NewLabel("Instructions: none")
	label.SizeName = theme.SizeNameCaptionText
	switch {
	case s.instr.Disabled:
		label.SetText("Instructions: off")
	case len(s.instr.Files) > 0:
		label.SetText("Instructions:")
	}
	p.instrFiles.Objects = append(p.instrFiles.Objects, label)
	for _, f := range s.instr.Files {
		btn := button.New(f.Label, func() { p.openFile(f.Path) })
		btn.Importance = widget.LowImportance
		p.instrFiles.Objects = append(p.instrFiles.Objects, btn)
	}
	if l := p.m.slash.skillsLabel(cs.id); l != nil {
		p.instrFiles.Objects = append(p.instrFiles.Objects, l) // the skills, fixed like the instructions
	}
	p.instrFiles.Refresh()
	p.modelBtn.SetText("Model: " + p.m.b.ModelLabel(cs.conv.Model))
	if cs.busy() || !cs.hasState || cs.conv.State.Kind() == domain.StateContextExhausted {
		p.modelBtn.Disable()
	} else {
		p.modelBtn.Enable()
	}
	p.row.Show()
	p.row.Refresh()
	p.refreshQueue(cs, s.queue)
}

func (p *projectUI) openFile(path string) {
	u := &url.URL{Scheme: "file", Path: path}
	if err := p.m.app.OpenURL(u); err != nil {
		p.m.showInline(fmt.Sprintf("Could not open %s: %v.", path, err))
	}
}

func (p *projectUI) reload() {
	cs := p.m.current
	if cs == nil {
		return
	}
	var set actors.Instructions
	p.run("reload the instructions", func(ctx context.Context) (err error) {
		set, err = p.b.ReloadInstructions(ctx, cs.id)
		return err
	}, func(err error) {
		if err == nil {
			p.of(cs.id).instr = set
			p.m.refreshConv(cs)
		}
	})
}

// --- the queue ------------------------------------------------------------------------------

func (p *projectUI) refreshQueue(cs *convState, q actors.Queue) {
	p.queueBox.Objects = p.queueBox.Objects[:0]
	if len(q.Items) == 0 {
		p.queueBox.Hide()
		p.queueBox.Refresh()
		return
	}
	title := fmt.Sprintf("Queued (%d): sent one by one when the agent finishes", len(q.Items))
	head := widget.NewLabelWithStyle(title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.SizeName = theme.SizeNameCaptionText
	sendNext := button.NewWithIcon("Send next", theme.MailSendIcon(), func() {
		p.queueOp(cs, "send the next queued message", func(ctx context.Context) (actors.Queue, error) { return p.b.ResumeQueue(ctx, cs.id) })
	})
	clear := button.NewWithIcon("Clear", theme.DeleteIcon(), func() {
		p.queueOp(cs, "clear the queue", func(ctx context.Context) (actors.Queue, error) { return p.b.ClearQueue(ctx, cs.id) })
	})
	sendNext.Importance, clear.Importance = widget.LowImportance, widget.LowImportance
	sendNext.Hidden = q.Held == "" || cs.busy()
	p.queueBox.Add(container.NewBorder(nil, nil, nil, container.NewHBox(sendNext, clear), head))
	if q.Held != "" {
		held := widget.NewLabel(q.Held)
		held.Wrapping = fyne.TextWrapWord
		held.Importance = widget.WarningImportance
		p.queueBox.Add(held)
	}
	for i, item := range q.Items {
		text := widget.NewLabel(fmt.Sprintf("%d. %s", i+1, transcript.OneLine(item.Text, 120)))
		text.Truncation = fyne.TextTruncateEllipsis
		edit := button.NewWithIcon("", theme.DocumentCreateIcon(), func() { p.showEditDialog(cs, item) })
		up := button.NewWithIcon("", theme.MoveUpIcon(), func() {
			p.queueOp(cs, "move the queued message", func(ctx context.Context) (actors.Queue, error) { return p.b.MoveQueued(ctx, cs.id, item.ID, i-1) })
		})
		remove := button.NewWithIcon("", theme.CancelIcon(), func() {
			p.queueOp(cs, "remove the queued message", func(ctx context.Context) (actors.Queue, error) { return p.b.RemoveQueued(ctx, cs.id, item.ID) })
		})
		for _, b := range []*button.Button{edit, up, remove} {
			b.Importance = widget.LowImportance
		}
		if i == 0 {
			up.Disable()
		}
		p.queueBox.Add(container.NewBorder(nil, nil, nil, container.NewHBox(edit, up, remove), text))
	}
	p.queueBox.Show()
	p.queueBox.Refresh()
}

func (p *projectUI) queueOp(cs *convState, what string, f func(ctx context.Context) (actors.Queue, error)) {
	var q actors.Queue
	p.run(what, func(ctx context.Context) (err error) {
		q, err = f(ctx)
		return err
	}, func(err error) {
		if err == nil {
			p.of(cs.id).queue = q
			p.m.refreshConv(cs)
		}
	})
}

// enqueue is Send while the agent works: the draft goes to the queue (REQ-BED-002: the core
// itself still refuses it), with what a custom command asks of its turn (turn, nil for
// none). The composer is cleared; on failure the words come back.
func (p *projectUI) enqueue(cs *convState, text string, atts []*attachment, turn *actors.TurnOptions) {
	images := make([]Attachment, len(atts))
	for i, a := range atts {
		images[i] = Attachment{Name: a.name, Data: a.data}
	}
	m := p.m
	m.clearInline()
	m.composer.entry.SetText("")
	cs.draft = draft{}
	m.refreshStrip()
	var q actors.Queue
	p.run("queue the message", func(ctx context.Context) (err error) {
		if cmd, ok := m.b.(CommandSender); ok && turn != nil {
			q, err = cmd.EnqueueCommand(ctx, cs.id, text, images, *turn)
			return err
		}
		q, err = p.b.Enqueue(ctx, cs.id, text, images)
		return err
	}, func(err error) {
		if err != nil {
			if cs.draft.text == "" && len(cs.draft.atts) == 0 {
				cs.draft = draft{text: text, atts: atts}
				if m.current == cs {
					m.loadDraft()
				}
			}
			return
		}
		p.of(cs.id).queue = q
		m.refreshConv(cs)
	})
}

func (p *projectUI) showEditDialog(cs *convState, item actors.QueuedMessage) {
	p.editEntry = newEscMultiLineEntry()
	p.editEntry.SetText(item.Text)
	p.editEntry.SetMinRowsVisible(4)
	p.editDlg = newScrollingForm("Edit queued message", "Save",
		[]*widget.FormItem{widget.NewFormItem("", p.editEntry)}, func() {
			text := p.editEntry.Text
			p.queueOp(cs, "edit the queued message", func(ctx context.Context) (actors.Queue, error) {
				return p.b.EditQueued(ctx, cs.id, item.ID, text)
			})
		}, p.m.win)
	p.editDlg.Resize(fyne.NewSize(560, 240))
	// Escape cancels, from the field or from the window.
	p.editEntry.onEscape = p.editDlg.Hide
	p.m.showModal(p.editDlg)
}

// --- the model switch -----------------------------------------------------------------------

func (p *projectUI) showModelDialog() {
	cs := p.m.current
	if cs == nil {
		return
	}
	p.modelEntry = newEscSelectEntry(p.m.modelOptions())
	p.modelEntry.SetText(cs.conv.Model)
	hint := widget.NewLabel(p.m.modelHint(cs.conv.Model))
	hint.Wrapping = fyne.TextWrapWord
	hint.Importance = widget.LowImportance
	p.modelEntry.OnChanged = func(s string) { hint.SetText(p.m.modelHint(s)) }
	p.modelDlg = newScrollingForm("Switch model", "Switch", []*widget.FormItem{
		widget.NewFormItem("Model", p.modelEntry),
		widget.NewFormItem("", widget.NewLabel("The next request uses it; the history stays.")),
		widget.NewFormItem("", hint),
	}, func() {
		p.changeModel(cs, p.modelEntry.Text)
	}, p.m.win)
	p.modelDlg.Resize(fyne.NewSize(520, 260))
	p.modelEntry.onEscape = p.modelDlg.Hide
	p.m.showModal(p.modelDlg)
}

func (p *projectUI) changeModel(cs *convState, model string) {
	var ch actors.ModelChange
	p.run("switch the model", func(ctx context.Context) (err error) {
		ch, err = p.b.ChangeModel(ctx, cs.id, model)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		// The meter follows at once, before the StateChanged arrives.
		cs.setConv(ch.Conv, ch.Conv.UpdatedAt)
		if ch.AtContinuation {
			p.m.showInline(fmt.Sprintf("%s's context window is already %d%% used: wrap up now and continue in a new conversation before sending more.",
				p.m.b.ModelLabel(ch.Conv.Model), domain.UsagePercent(ch.Conv.Usage, ch.Conv.Window())))
		} else if ch.TextOnly {
			p.m.showInline(p.m.b.ModelLabel(ch.Conv.Model) + " cannot read images: images in this conversation reach it as placeholders.")
		}
		p.m.refreshConv(cs)
	})
}

// --- Undo and Rewind ------------------------------------------------------------------------
