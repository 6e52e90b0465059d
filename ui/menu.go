package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// shortcut is one row of the one table of the window's shortcuts: the menus show them, the
// Keyboard shortcuts sheet (Ctrl+/) lists every row with a name, and the canvas binds them.
type shortcut struct {
	shortcut fyne.Shortcut
	run      func()
	// name says what it does, for the sheet; "" leaves it out (a key the sheet lists with the
	// widgets' keys).
	name string
}

func (m *MainWindow) shortcuts() []shortcut {
	ctrl := func(k fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
	}
	ctrlShift := func(k fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	}
	alt := func(k fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierAlt}
	}
	return []shortcut{
		{ctrl(fyne.KeyN), m.showNewConversation, "New conversation"},
		{ctrl(fyne.KeyF), m.find.show, "Find in this conversation"},
		{ctrl(fyne.KeyE), m.exportCurrent, "Export this conversation as Markdown"},
		{ctrlShift(fyne.KeyF), m.showGlobalSearch, "Search all conversations"},
		// Ctrl+Z alone is the composer's own undo of typing.
		{&desktop.CustomShortcut{KeyName: fyne.KeyZ, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierAlt}, m.proj.undoLast, "Undo the last file change"},
		// The chat's ends when nothing else has the focus (scrolling.go); not in the menus.
		{ctrl(fyne.KeyHome), func() { m.chatKey(fyne.KeyHome, true) }, "Go to the start of the conversation"},
		{ctrl(fyne.KeyEnd), func() { m.chatKey(fyne.KeyEnd, true) }, "Go to the end of the conversation"},
		// The approval card's answers (keyboard.go). "Allow everything" has no shortcut on
		// purpose: it lifts the sandbox, so it takes a deliberate Tab to its button.
		{alt(fyne.KeyA), func() { m.answerApproval(domain.ModeProject) }, "Allow edits in this project (when the agent asks)"},
		{alt(fyne.KeyD), func() { m.answerApproval(actors.DenyUpgrade) }, "Deny the agent's request"},
		{ctrlShift(fyne.KeyN), m.forkLast, "Fork: continue from the last message in a new conversation"},
		{ctrl(fyne.KeySlash), m.showShortcutSheet, "Keyboard shortcuts"},
		{ctrl(fyne.KeyB), func() { m.small.toggleSidebar() }, "Show or hide the list of conversations"},
		{ctrlShift(fyne.KeyD), func() { m.rv.openCurrent() }, "Show the changes of this conversation"},
		{ctrlShift(fyne.KeyA), m.showAttachDialog, "Attach an image"},
	}
}

func (m *MainWindow) menu() *fyne.MainMenu {
	sc := m.shortcuts()
	item := func(label string, s shortcut) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, s.run)
		it.Shortcut = s.shortcut
		return it
	}
	// The geometry is saved before quitting: Fyne writes the preferences file one last time
	// when the app stops, and values set after that (in a window's OnClosed) could be lost.
	quit := fyne.NewMenuItem("Quit", func() {
		m.saveWindow()
		m.drafts.flush()
		m.saved = true
		m.app.Quit()
	})
	quit.IsQuit = true
	quit.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	file := fyne.NewMenu("File",
		item("New conversation…", sc[0]),
		item("Export as Markdown…", sc[2]),
		fyne.NewMenuItemSeparator(),
		fyne.NewMenuItem("Settings…", m.showSettings),
		fyne.NewMenuItemSeparator(),
		quit,
	)
	m.menuWrapUp = fyne.NewMenuItem("Wrap up now…", m.wrapUp)
	m.menuWrapUp.Disabled = !wrapUpOffered(m.current)
	m.menuRestricted = fyne.NewMenuItem("Switch to Restricted", func() { m.downgrade(domain.ModeRestricted) })
	m.menuProject = fyne.NewMenuItem("Switch to Project", func() { m.downgrade(domain.ModeProject) })
	conv := fyne.NewMenu("Conversation",
		item("Find…", sc[1]),
		item("Search all conversations…", sc[3]),
		item("Attach image…", sc[len(sc)-1]),
		fyne.NewMenuItem("Stop (Esc)", m.stopAgent),
		m.menuWrapUp,
		item("Show changes…", sc[12]),
		item("Undo last file change…", sc[4]),
		item("Allow edits in this project", sc[7]),
		item("Deny the request", sc[8]),
		item("Fork from the last message", sc[9]),
		fyne.NewMenuItem("Undo last rewind or undo…", m.proj.undoLastRestore),
		m.menuRestricted,
		m.menuProject,
		fyne.NewMenuItem("Archive or restore", func() {
			if m.current != nil {
				m.setArchived(m.current, !m.current.conv.Archived)
			}
		}),
		fyne.NewMenuItem("Delete…", func() { m.askDelete(m.current) }),
	)
	m.convMenu = conv
	m.refreshModeMenu()
	view := fyne.NewMenu("View", item("Conversations list", sc[11]))
	help := fyne.NewMenu("Help", item("Keyboard shortcuts", sc[10]))
	return fyne.NewMainMenu(file, conv, view, help)
}

// refreshModeMenu offers the menu's mode switches only where they switch down, as the header's
// buttons do: never "Switch to Restricted" in a Restricted conversation.
func (m *MainWindow) refreshModeMenu() {
	if m.convMenu == nil {
		return
	}
	offered := func(to domain.Mode) bool {
		return m.current != nil && m.sandboxKnownAvailable() && m.current.conv.Mode.Rank() > to.Rank()
	}
	changed := false
	for _, it := range []struct {
		item *fyne.MenuItem
		to   domain.Mode
	}{{m.menuRestricted, domain.ModeRestricted}, {m.menuProject, domain.ModeProject}} {
		if off := !offered(it.to); it.item.Disabled != off {
			it.item.Disabled, changed = off, true
		}
	}
	if changed {
		m.convMenu.Refresh()
	}
	m.refreshWrapUpMenu()
}

// refreshWrapUpMenu offers the menu's "Wrap up now…" where the header offers its button.
func (m *MainWindow) refreshWrapUpMenu() {
	if m.convMenu == nil || m.menuWrapUp == nil {
		return
	}
	if off := !wrapUpOffered(m.current) || m.current.busy(); m.menuWrapUp.Disabled != off {
		m.menuWrapUp.Disabled = off
		m.convMenu.Refresh()
	}
}
