package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/filepick"
)

const (
	modeRestrictedLabel   = "Restricted: read-only files, no network (recommended)"
	modeProjectLabel      = "Project: edits in this working directory, network only to hosts you allow"
	modeUnrestrictedLabel = "Unrestricted: the agent can write files and use the network"
)

// newConvForm is the New conversation dialog's state; tests reach its widgets.
type newConvForm struct {
	m     *MainWindow
	cwd   *escEntry
	model *escSelectEntry
	hint  *widget.Label
	mode  *widget.RadioGroup
	title *escEntry
	// worktree asks for a git worktree of the folder's repository (issue 34); enabled
	// only while the folder is in one.
	worktree *widget.Check
	dlg      *scrollingForm
}

// showNewConversation opens the New conversation dialog (Ctrl+N): working directory (the
// one the app was started in from a terminal, else the last one used), model, and mode, Restricted by default (REQ-BED-014).
func (m *MainWindow) showNewConversation() {
	p := m.app.Preferences()
	f := &newConvForm{m: m, cwd: newEscEntry(), title: newEscEntry(), hint: widget.NewLabel("")}
	home, _ := os.UserHomeDir()
	if m.deps.StartDir != "" {
		f.cwd.SetText(m.deps.StartDir)
	} else {
		f.cwd.SetText(p.StringWithFallback(prefLastCwd, home))
	}
	f.cwd.Validator = validPlace
	browse := button.NewWithIcon("Choose…", theme.FolderOpenIcon(), func() {
		m.chooseFolder("Choose the working folder", f.cwd, m.deps.StartDir, "Started in", prefPickNewConv)
	})
	f.model = newEscSelectEntry(m.modelOptions())
	f.model.SetText(p.StringWithFallback(prefLastModel, m.defaultModel()))
	f.hint.Importance = widget.LowImportance
	f.hint.SetText(m.modelHint(f.model.Text))
	f.model.OnChanged = func(s string) { f.hint.SetText(m.modelHint(s)) }
	f.model.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("choose a model")
		}
		return nil
	}
	f.mode = widget.NewRadioGroup([]string{modeRestrictedLabel, modeProjectLabel, modeUnrestrictedLabel}, nil)
	f.mode.Required = true
	modeHint := ""
	if m.sandboxStatus().Available {
		f.mode.SetSelected(modeRestrictedLabel)
		modeHint = "The agent can ask for write access later; you approve or deny."
	} else {
		f.mode.SetSelected(modeUnrestrictedLabel)
		f.mode.Disable()
		modeHint = "Landlock is unavailable here, so only Unrestricted mode exists."
	}
	f.title.SetPlaceHolder("Optional: otherwise named after your first message")
	f.worktree = widget.NewCheck(worktreeCheckLabel, nil)
	worktreeItem := &widget.FormItem{Text: "Worktree", Widget: f.worktree}
	f.cwd.OnChanged = func(string) { f.refreshWorktree(worktreeItem) }
	f.refreshWorktree(worktreeItem)
	items := []*widget.FormItem{
		{Text: "Working directory", Widget: container.NewBorder(nil, nil, nil, browse, f.cwd), HintText: "Fixed for the whole conversation. On another machine over SSH: user@host:/path."},
		{Text: "Model", Widget: container.NewVBox(f.model, f.hint)},
		{Text: "Mode", Widget: f.mode, HintText: modeHint},
		{Text: "Title", Widget: f.title},
		worktreeItem,
	}
	f.dlg = newScrollingForm("New conversation", "Create", items, func() {
		m.createConversation(f.params())
	}, m.win)
	f.dlg.Resize(fyne.NewSize(720, 420))
	// Enter in a text field creates the conversation, as the Create button does, so the whole
	// dialog works from the keyboard: Ctrl+N, (edit), Enter.
	f.cwd.OnSubmitted = func(string) { f.dlg.Submit() }
	f.title.OnSubmitted = func(string) { f.dlg.Submit() }
	// Escape cancels, from any field or from the window.
	f.cwd.onEscape, f.title.onEscape, f.model.onEscape = f.dlg.Hide, f.dlg.Hide, f.dlg.Hide
	m.newForm = f
	m.showModal(f.dlg)
	m.win.Canvas().Focus(f.cwd)
}

func (f *newConvForm) params() NewConversation {
	p := NewConversation{
		Cwd:   filepath.Clean(strings.TrimSpace(f.cwd.Text)),
		Model: strings.TrimSpace(f.model.Text),
		Title: strings.TrimSpace(f.title.Text),
		Mode:  f.selectedMode(),
		// The branch is named after the title, or "conversation" without one.
		Worktree: f.worktree.Checked && !f.worktree.Disabled(),
	}
	if host, dir, ok, err := actors.ParseRemoteLocation(f.cwd.Text); ok && err == nil {
		p.Host, p.Cwd = host, dir
	}
	return p
}

// refreshWorktree offers the worktree where the folder is in a git repository, and says
// where it goes.
func (f *newConvForm) refreshWorktree(item *widget.FormItem) {
	dir := filepath.Clean(strings.TrimSpace(f.cwd.Text))
	if actors.InRepository(dir) {
		f.worktree.Enable()
		item.HintText = "Made in a folder beside the repository (<repository>-worktrees), on a new branch phoenix/<title>; merge it from the header when you are done."
	} else {
		f.worktree.Disable()
		item.HintText = worktreeNoRepo
	}
	if f.dlg != nil {
		f.dlg.Refresh()
	}
}

// prefPickNewConv is the folder New conversation's folder picker last chose.
const prefPickNewConv = "pick.newconv.dir"

// chooseFolder opens the folder picker (ui/filepick) for a folder field: it opens at the
// field's folder and puts the chosen one there. start is offered as a place named label;
// remember keeps the last folder of this use.
func (m *MainWindow) chooseFolder(title string, field *escEntry, start, label, remember string) {
	m.showModal(filepick.New(filepick.Options{
		Mode: filepick.Folder, Title: title, Confirm: "Choose",
		Open: strings.TrimSpace(field.Text), Start: start, StartLabel: label,
		Prefs: m.app.Preferences(), Remember: remember, Do: m.do,
		OnChosen: func(path string) { field.SetText(path) },
	}, m.win))
}

// validPlace accepts an existing directory here, or user@host:/path on another machine (which
// is checked when the first tool runs there).
func validPlace(s string) error {
	if _, _, ok, err := actors.ParseRemoteLocation(s); ok {
		return err
	}
	return validDir(s)
}

// selectedMode is the mode the radio group names.
func (f *newConvForm) selectedMode() domain.Mode {
	switch f.mode.Selected {
	case modeProjectLabel:
		return domain.ModeProject
	case modeUnrestrictedLabel:
		return domain.ModeUnrestricted
	}
	return domain.ModeRestricted
}

// validDir accepts an existing directory (REQ-BED-010: the working directory is fixed at
// creation, so it must exist then).
func validDir(s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		return errors.New("choose a working directory")
	}
	st, err := os.Stat(s)
	if err != nil {
		return fmt.Errorf("%s does not exist", s)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", s)
	}
	return nil
}

// createConversation creates a conversation and opens it.
func (m *MainWindow) createConversation(p NewConversation) {
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		conv, err := m.b.Create(ctx, p)
		m.do(func() {
			if err != nil {
				m.showError(fmt.Errorf("could not create the conversation: %w", err))
				return
			}
			pr := m.app.Preferences()
			if p.Host == "" { // the last local folder: a remote path means nothing here
				pr.SetString(prefLastCwd, p.Cwd)
			}
			pr.SetString(prefLastModel, p.Model)
			m.openCreated(conv, "")
		})
	}()
}

// openCreated lists and opens a conversation the runtime has just made (New, the demo, a
// fork, continuing in a new one), whose events may not have come yet; draft, when given, is
// put in its composer unless it has one.
func (m *MainWindow) openCreated(conv domain.Conversation, draft string) {
	cs := m.conv(conv.ID)
	if !cs.hasState {
		cs.setConv(conv, conv.CreatedAt)
	}
	cs.listed = true
	if draft != "" && cs.draft.text == "" {
		cs.draft.text = draft
	}
	m.sidebar.refresh()
	m.open(conv.ID)
}
