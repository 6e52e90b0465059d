package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// The keyboard all the way (issue 36): what the shortcuts table (menu.go) adds for the
// approval card and forking, the Keyboard shortcuts sheet generated from that table, and the
// focus going back to the composer when a dialog closes.

// keyLabel is a shortcut as the person presses it: "Ctrl+Shift+F".
func keyLabel(s fyne.Shortcut) string {
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok {
		return s.ShortcutName()
	}
	var parts []string
	mod := cs.Modifier
	if mod&fyne.KeyModifierShortcutDefault != 0 {
		// ShortcutDefault is Ctrl on Linux (Super on macOS, which this app does not target).
		parts = append(parts, "Ctrl")
	}
	if mod&fyne.KeyModifierAlt != 0 {
		parts = append(parts, "Alt")
	}
	if mod&fyne.KeyModifierShift != 0 {
		parts = append(parts, "Shift")
	}
	if mod&fyne.KeyModifierSuper != 0 && fyne.KeyModifierShortcutDefault != fyne.KeyModifierSuper {
		parts = append(parts, "Super")
	}
	return strings.Join(append(parts, string(cs.KeyName)), "+")
}

// widgetKeys are the keys the window's widgets handle themselves, not the shortcuts table:
// the sheet lists them after the table's.
var widgetKeys = [][2]string{
	{"Enter", "Send the message (in the composer); press the focused button"},
	{"Shift+Enter", "A new line in the composer"},
	{"Space", "Press the focused button or tick the focused box"},
	{"Tab, Shift+Tab", "Move to the next or the previous control"},
	{"Esc", "Close the dialog; otherwise stop the agent"},
	{"Up, Down", "Choose in the / and @ menus"},
	// The file and folder pickers (ui/filepick).
	{"Tab (in a picker's path)", "Complete the file or folder name"},
	{"Backspace, Alt+Up", "In a picker's list: go to the parent folder"},
	{"Ctrl+H", "In a picker: show or hide hidden files"},
}

// showShortcutSheet is the Keyboard shortcuts sheet (Ctrl+/): every named row of the
// shortcuts table, then the keys widgets handle.
func (m *MainWindow) showShortcutSheet() {
	rows := container.New(&formGrid{})
	add := func(key, what string) {
		k := widget.NewLabel(key)
		k.TextStyle = fyne.TextStyle{Bold: true}
		w := widget.NewLabel(what)
		w.Wrapping = fyne.TextWrapWord
		rows.Add(k)
		rows.Add(w)
	}
	for _, s := range m.shortcuts() {
		if s.name != "" {
			add(keyLabel(s.shortcut), s.name)
		}
	}
	for _, k := range widgetKeys {
		add(k[0], k[1])
	}
	scroll := container.NewVScroll(rows)
	scroll.SetMinSize(fyne.NewSize(560, 420))
	m.showModal(newCloseDialog("Keyboard shortcuts", "Close", scroll, m.win))
}

// formGrid lays labels out in two columns: the key, as wide as the widest, then what it does.
type formGrid struct{}

func (formGrid) MinSize(objs []fyne.CanvasObject) fyne.Size {
	keyW, whatW, h := formGridWidths(objs)
	return fyne.NewSize(keyW+whatW+pad(), h)
}

func formGridWidths(objs []fyne.CanvasObject) (keyW, whatW, h float32) {
	for i := 0; i+1 < len(objs); i += 2 {
		k, w := objs[i].MinSize(), objs[i+1].MinSize()
		keyW, whatW = max(keyW, k.Width), max(whatW, w.Width)
		h += max(k.Height, w.Height)
	}
	return keyW, whatW, h
}

func (formGrid) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	keyW, _, _ := formGridWidths(objs)
	y := float32(0)
	for i := 0; i+1 < len(objs); i += 2 {
		whatW := max(size.Width-keyW-pad(), 0)
		objs[i+1].Resize(fyne.NewSize(whatW, objs[i+1].MinSize().Height))
		rowH := max(objs[i].MinSize().Height, objs[i+1].MinSize().Height)
		objs[i].Move(fyne.NewPos(0, y))
		objs[i].Resize(fyne.NewSize(keyW, rowH))
		objs[i+1].Move(fyne.NewPos(keyW+pad(), y))
		y += rowH
	}
}

// answerApproval is the approval card's shortcuts: the same answer as its buttons, for the
// open conversation's pending request; nothing pending says so.
func (m *MainWindow) answerApproval(grant domain.Mode) {
	cs := m.current
	if cs == nil {
		return
	}
	st, ok := cs.conv.State.(domain.AwaitingModeApproval)
	if !ok {
		m.showInline("Nothing is waiting for your approval in this conversation.")
		return
	}
	if cs.conv.Mode.Rank() >= grant.Rank() && grant != actors.DenyUpgrade {
		// The card offers no such answer (its button is hidden): edits are allowed already.
		m.showInline("Edits in this project are allowed already: press Tab to reach “" + approveFullLabel + "”, or Alt+D to deny.")
		return
	}
	m.decide(cs, st.Exec, grant, func() {})
	m.focusComposer()
}

// forkLast is "Fork" from the keyboard: the message menu's "Fork from here" on the open
// conversation's newest message.
func (m *MainWindow) forkLast() {
	cs := m.current
	if cs == nil {
		return
	}
	if _, ok := m.b.(ForkBackend); !ok {
		m.showInline("This conversation cannot be forked here.")
		return
	}
	model := cs.model
	for i := model.len() - 1; i >= 0; i-- {
		if r := model.at(i); (r.kind == rowUser || r.kind == rowAssistant) && r.msg.Seq > 0 {
			m.fork(cs, r.msg.Seq)
			return
		}
	}
	m.showInline("Nothing to fork yet: the conversation has no message.")
}

// focusComposer gives the composer the keys again (after a dialog or a card closes), so the
// next words typed land in it; a read-only composer is left alone.
func (m *MainWindow) focusComposer() {
	if m.closed || m.composer == nil || m.composer.entry.Disabled() || len(m.modals) > 0 {
		return
	}
	m.win.Canvas().Focus(m.composer.entry)
}

// noCommandsHint is what "/" shows where the conversation has no commands: where they come
// from, in the folders custom reads.
func noCommandsHint() string {
	return "No commands yet. A command is a Markdown file in the project's " + strings.Join(actors.CommandFolders()[:2], " or ") +
		" folder, or in your personal commands folder; `phoenix-desktop commands` lists what it finds."
}
