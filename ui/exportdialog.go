package ui

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The Export dialog (issue 41): a folder and a file name, Save and Cancel, built from our own
// fields and buttons. Fyne's save dialog focuses its file name field, which takes Escape for
// itself, so Escape did not close it, and its buttons took only Space. Here Escape closes the
// dialog from either field or from the window, Enter in a field saves, and the folder picker
// (ui/filepick, "Choose…") is one button away for browsing.

// prefExportDir is the folder the last export went to.
const prefExportDir = "export.dir"

// prefPickExport is the folder the Export dialog's folder picker last chose.
const prefPickExport = "pick.export.dir"

// exportForm is the open Export dialog.
type exportForm struct {
	dlg          *scrollingForm
	folder, name *escEntry
}

// showExportDialog asks where to save md, suggesting name in the folder of the last export
// (else the conversation's own folder on this machine, else the home folder).
func (m *MainWindow) showExportDialog(cs *convState, name, md string) {
	f := &exportForm{folder: newEscEntry(), name: newEscEntry()}
	f.folder.SetText(m.exportFolder(cs))
	f.folder.Validator = func(s string) error {
		if strings.TrimSpace(s) == "" {
			return errors.New("choose a folder")
		}
		return validDir(s)
	}
	f.name.SetText(name)
	f.name.Validator = func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" || s == "." || s == ".." || strings.ContainsRune(s, filepath.Separator) {
			return errors.New("give the file a name (without a folder)")
		}
		return nil
	}
	start := ""
	if cs != nil && cs.conv.Host == "" {
		start = cs.conv.Cwd
	}
	browse := button.NewWithIcon("Choose…", theme.FolderOpenIcon(), func() {
		m.chooseFolder("Choose where to save", f.folder, start, "Project folder", prefPickExport)
	})
	items := []*widget.FormItem{
		{Text: "Folder", Widget: container.NewBorder(nil, nil, nil, browse, f.folder)},
		{Text: "File name", Widget: f.name, HintText: "The conversation as Markdown: the messages, the tool calls and their results."},
	}
	f.dlg = newScrollingForm("Export the conversation", "Save", items, func() { m.saveExport(f.path(), md) }, m.win)
	f.dlg.Resize(m.fitDialog(fyne.NewSize(640, 300)))
	f.folder.OnSubmitted = func(string) { f.dlg.Submit() }
	f.name.OnSubmitted = func(string) { f.dlg.Submit() }
	f.folder.onEscape, f.name.onEscape = f.dlg.Hide, f.dlg.Hide
	m.exportForm = f
	m.showModal(f.dlg)
	m.win.Canvas().Focus(f.name)
}

func (f *exportForm) path() string {
	return filepath.Join(strings.TrimSpace(f.folder.Text), strings.TrimSpace(f.name.Text))
}

// exportFolder is where the Export dialog starts.
func (m *MainWindow) exportFolder(cs *convState) string {
	if d := m.app.Preferences().String(prefExportDir); d != "" && validDir(d) == nil {
		return d
	}
	if cs != nil && cs.conv.Host == "" && validDir(cs.conv.Cwd) == nil {
		return cs.conv.Cwd
	}
	home, _ := os.UserHomeDir()
	return home
}

// saveExport writes md to path, asking first when a file is there already.
func (m *MainWindow) saveExport(path, md string) {
	write := func() {
		m.app.Preferences().SetString(prefExportDir, filepath.Dir(path))
		w, err := storage.Writer(storage.NewFileURI(path))
		m.writeExport(w, err, md)
	}
	if _, err := os.Stat(path); err != nil {
		write()
		return
	}
	q := newConfirm("Replace "+filepath.Base(path)+"?", "A file of that name is already in "+filepath.Dir(path)+". Replacing it overwrites what it holds.", func(ok bool) {
		if ok {
			write()
		}
	}, m.win)
	q.SetConfirmText("Replace")
	q.SetConfirmImportance(widget.DangerImportance)
	q.SetDismissText("Cancel")
	m.showModal(q)
}
