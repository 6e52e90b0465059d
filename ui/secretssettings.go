package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// HiddenPathsBackend keeps the person's own places no sandboxed command may read, on top of
// the sandbox's secrets table (*actors.Runtime offers it).
type HiddenPathsBackend interface {
	HiddenPathsFile() string
	HiddenPaths() ([]string, error)
	SetHiddenPaths(paths []string) error
}

var _ HiddenPathsBackend = (*actors.Runtime)(nil)

// hiddenPathsSettingsItem is Settings' row for the person's hidden paths.
func (m *MainWindow) hiddenPathsSettingsItem() *widget.FormItem {
	open := button.New("Hidden from commands…", m.showHiddenPaths)
	hint := "Your keys, tokens and browser profiles are hidden already; add more places here"
	if b, ok := m.b.(HiddenPathsBackend); !ok || b.HiddenPathsFile() == "" {
		open.Disable()
		hint = "Unavailable"
	}
	return &widget.FormItem{Text: "Secrets", Widget: open, HintText: hint}
}

// showHiddenPaths edits the list: one path a line, applied to the next command at once.
func (m *MainWindow) showHiddenPaths() {
	b, ok := m.b.(HiddenPathsBackend)
	if !ok {
		return
	}
	text := newEscMultiLineEntry()
	text.SetMinRowsVisible(8)
	text.SetPlaceHolder("~/work/.env\n/srv/secrets")
	text.onEscape = func() { m.closeTopModal() }
	message := widget.NewLabel("")
	message.Wrapping = fyne.TextWrapWord
	var table []string
	for _, s := range m.sandboxStatus().Secrets {
		if s.Present {
			table = append(table, s.Path)
		}
	}
	head := widget.NewLabel(fmt.Sprintf("Hidden already: %s.\nAdd more, one absolute path (or ~/path) a line; they are kept in %s.",
		strings.Join(table, ", "), b.HiddenPathsFile()))
	head.Wrapping = fyne.TextWrapWord
	save := button.New("Save", func() {
		paths := actors.ParseHiddenPaths(text.Text)
		go func() {
			err := b.SetHiddenPaths(paths)
			m.do(func() {
				if err != nil {
					message.SetText(err.Error() + ". Nothing was changed; your text is still here.")
					return
				}
				places := fmt.Sprintf("these %d places", len(paths))
				if len(paths) == 1 {
					places = "this place"
				}
				message.SetText("Saved: the next command cannot read " + places + ".")
			})
		}()
	})
	save.Importance = widget.HighImportance
	content := container.NewVBox(head, text, container.NewBorder(nil, nil, nil, save, message))
	dlg := newCloseDialog("Hidden from commands", "Close", content, m.win)
	dlg.Resize(fyne.NewSize(640, 420))
	go func() {
		paths, err := b.HiddenPaths()
		m.do(func() {
			if err != nil {
				message.SetText("Could not read the list: " + err.Error())
			}
			text.SetText(strings.Join(paths, "\n"))
		})
	}()
	m.showModal(dlg)
}
