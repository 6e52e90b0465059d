package ui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// AppTitle is the main window's title; the Xvfb smoke test finds the window by it.
const AppTitle = "Phoenix Desktop"

// Preference keys.
const (
	prefGeometry  = "window.geometry"
	prefLastConv  = "conversation.last"
	prefLastCwd   = "conversation.cwd"
	prefLastModel = "conversation.model"
)

// callTimeout bounds one command to the runtime; commands return after a commit, so this is
// only a guard against a wedged store.
const callTimeout = 30 * time.Second

// MainWindow is the app's main window. Create it with NewMainWindow; all of its fields are
// owned by the UI goroutine.
type MainWindow struct {
	// disk is the full-disk banner (diskbanner.go).
	disk *diskBanner
	// mcpCards are the MCP servers' requests for the person (mcpcards.go).
	mcpCards *mcpCards
	// welcome is the first-run card while it is shown, demo the "Demo (offline)" chips
	// (welcome.go).
	welcome *welcomeCard
	demo    *demoChips
	// todo is the model's task list above the composer (todopanel.go).
	todo *todoPanel

	app    fyne.App
	win    fyne.Window
	b      Backend
	events EventSource
	deps   Deps
	do     func(func())
	// modals are the dialogs shown with showModal that are open, the topmost last.
	modals []dialog.Dialog
	now    func() time.Time
	ctx    context.Context
	stop   context.CancelFunc
	pump   *pump
	closed bool
	saved  bool

	// gen grows when everything drawn must be drawn again: the theme changed, or thumbnails
	// arrived.
	gen     int
	focused bool
	sandbox SandboxStatus
	thumbs  *thumbCache
	// ticking is read by the clock goroutine: the status bar shows a running clock.
	ticking atomic.Bool

	convs        map[string]*convState
	side         []*convState
	current      *convState
	cv           *chatView
	showArchived bool
	selecting    bool
	sending      bool
	subWins      map[string]*subAgentWindow
	listLoaded   bool
	newForm      *newConvForm
	settings     *settingsForm
	search       *globalSearch
	deleteDlg    *dialog.ConfirmDialog
	mcpPanel     *mcpPanel
	hooksPanel   *hooksPanel
	// proj holds the project controls: instructions, model switch, queue, Undo and Rewind.
	proj *projectUI
	// slash is the composer's "/" menu of custom commands.
	slash *slashMenu

	// Widgets of the main window.
	sideList        *widget.List
	title           *widget.Label
	subtitle        *widget.Label
	mode            *badge
	switchBtn       *widget.Button
	projectBtn      *widget.Button
	hosts           *hostCards
	switchBox       *fyne.Container
	landlockNote    *widget.Label
	meter           *meter
	meterLabel      *widget.Label
	wrapBtn         *widget.Button
	meterRow        *fyne.Container
	header          *fyne.Container
	chatHolder      *fyne.Container
	empty           fyne.CanvasObject
	findBar         *fyne.Container
	findEntry       *escEntry
	findCount       *widget.Label
	findHits        []int
	findPos         int
	exhaustedBox    *fyne.Container
	exhaustedText   *widget.RichText
	continueBtn     *widget.Button
	inline          *widget.Label
	inlineBox       *fyne.Container
	inlineIcon      *widget.Icon
	convMenu        *fyne.Menu
	menuRestricted  *fyne.MenuItem
	menuProject     *fyne.MenuItem
	strip           *fyne.Container
	entry           *composerEntry
	attachBtn       *widget.Button
	sendBtn         *widget.Button
	statusDot       fyne.CanvasObject
	statusDotCircle *canvas.Circle
	statusLabel     *widget.Label
	stopBtn         *widget.Button
	bottom          *fyne.Container
	top             *fyne.Container
	right           *fyne.Container
}

// NewMainWindow builds the main window on the app, starts following the event stream and
// loads the conversation list in the background. Call it on the UI goroutine (before
// App.Run, or inside fyne.Do); show the window with Window().ShowAndRun() or use Run.
func NewMainWindow(a fyne.App, b Backend, events EventSource, deps Deps) *MainWindow {
	m := &MainWindow{app: a, b: b, events: events, deps: deps, do: deps.Do, now: deps.Now,
		focused: true, thumbs: newThumbCache(), convs: map[string]*convState{}, subWins: map[string]*subAgentWindow{}}
	if m.do == nil {
		m.do = fyne.Do
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.ctx, m.stop = context.WithCancel(context.Background())
	m.sandbox = b.Sandbox()
	m.win = a.NewWindow(AppTitle)
	m.win.SetContent(m.build())
	m.win.SetMainMenu(m.menu())
	m.win.SetOnDropped(m.onDropped)
	m.win.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if k.Name == fyne.KeyEscape {
			// Escape closes the topmost open dialog first; otherwise it stops the agent.
			if m.closeTopModal() {
				return
			}
			m.stopAgent()
		}
	})
	for _, s := range m.shortcuts() {
		m.win.Canvas().AddShortcut(s.shortcut, func(fyne.Shortcut) { s.run() })
	}
	m.restoreWindow()
	// The size and position are saved before the window goes (the close button, Quit) and,
	// when it goes another way, as it goes.
	m.win.SetCloseIntercept(func() {
		m.saveWindow()
		m.saved = true
		m.win.Close()
	})
	m.win.SetOnClosed(func() {
		if !m.saved {
			m.saveWindow()
		}
		m.shutdown()
	})

	// Desktop notifications are for when the person looks elsewhere (REQ-BED-015).
	a.Lifecycle().SetOnEnteredForeground(func() { m.focused = true })
	a.Lifecycle().SetOnExitedForeground(func() { m.focused = false })
	// Light and dark follow the system through Fyne's default theme; when it changes, the
	// colours the rows computed themselves are computed again.
	a.Settings().AddListener(func(fyne.Settings) {
		m.do(func() {
			if m.closed {
				return
			}
			m.redrawRows()
			m.refreshAll()
		})
	})

	m.pump = newPump(events, m.do, m.applyBatch)
	go m.pump.run()
	go m.clock()
	go m.watchDisk()
	go m.loadList()
	m.refreshAll()
	return m
}

// Run builds the main window and runs the app until it quits. It is what cmd/phoenix-desktop
// calls.
func Run(a fyne.App, b Backend, events EventSource, deps Deps) {
	m := NewMainWindow(a, b, events, deps)
	a.Lifecycle().SetOnStarted(m.restorePlace)
	m.win.ShowAndRun()
}

// Window is the main window.
func (m *MainWindow) Window() fyne.Window { return m.win }

// shutdown stops the background goroutines and the event subscription.
func (m *MainWindow) shutdown() {
	if m.closed {
		return
	}
	m.closed = true
	m.stop()
	m.events.Close()
	for _, w := range m.subWins {
		w.win.Close()
	}
}

type shortcut struct {
	shortcut fyne.Shortcut
	run      func()
}

func (m *MainWindow) shortcuts() []shortcut {
	ctrl := func(k fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
	}
	return []shortcut{
		{ctrl(fyne.KeyN), m.showNewConversation},
		{ctrl(fyne.KeyF), m.showFind},
		{ctrl(fyne.KeyE), m.exportCurrent},
		{&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}, m.showGlobalSearch},
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
	m.menuRestricted = fyne.NewMenuItem("Switch to Restricted", func() { m.downgrade(domain.ModeRestricted) })
	m.menuProject = fyne.NewMenuItem("Switch to Project", func() { m.downgrade(domain.ModeProject) })
	conv := fyne.NewMenu("Conversation",
		item("Find…", sc[1]),
		item("Search all conversations…", sc[3]),
		fyne.NewMenuItem("Attach image…", m.showAttachDialog),
		fyne.NewMenuItem("Stop (Esc)", m.stopAgent),
		fyne.NewMenuItem("Wrap up now", m.wrapUp),
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
	return fyne.NewMainMenu(file, conv)
}

// refreshModeMenu offers the menu's mode switches only where they switch down, as the header's
// buttons do: never "Switch to Restricted" in a Restricted conversation.
func (m *MainWindow) refreshModeMenu() {
	if m.convMenu == nil {
		return
	}
	offered := func(to domain.Mode) bool {
		return m.current != nil && m.sandbox.Available && m.current.conv.Mode.Rank() > to.Rank()
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
}

// build lays the window out: the sidebar on the left; on the right the header, the chat log
// and, at the bottom, the composer and the status bar.
func (m *MainWindow) build() fyne.CanvasObject {
	m.sideList = m.newSidebarList()
	newBtn := widget.NewButtonWithIcon("New", theme.ContentAddIcon(), m.showNewConversation)
	newBtn.Importance = widget.HighImportance
	settingsBtn := widget.NewButtonWithIcon("", theme.SettingsIcon(), m.showSettings)
	archived := widget.NewCheck("Show archived", func(on bool) {
		m.showArchived = on
		m.refreshSidebar()
		if strings.TrimSpace(m.search.entry.Text) != "" {
			m.scheduleSearch()
		}
	})
	m.search = m.newGlobalSearch()
	sidebar := container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, settingsBtn, newBtn), m.search.entry),
		archived, nil, nil, container.NewStack(m.sideList, m.search.panel))

	m.title = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	m.title.Truncation = fyne.TextTruncateEllipsis
	m.subtitle = widget.NewLabel("")
	m.subtitle.Truncation = fyne.TextTruncateEllipsis
	m.subtitle.SizeName = theme.SizeNameCaptionText
	m.mode = newBadge()
	m.mode.onTap = m.showSandboxDetails
	m.demo = newDemoChips(m)
	m.switchBtn = widget.NewButton("Switch to Restricted", func() { m.downgrade(domain.ModeRestricted) })
	m.projectBtn = widget.NewButton("Switch to Project", func() { m.downgrade(domain.ModeProject) })
	m.switchBox = container.NewCenter(container.NewHBox(m.projectBtn, m.switchBtn))
	m.header = container.NewBorder(nil, nil, nil, container.NewHBox(container.NewCenter(m.demo.header), container.NewCenter(m.mode), m.switchBox),
		container.New(&column{Gap: -pad() * 2}, m.title, m.subtitle))
	m.landlockNote = widget.NewLabel("")
	m.landlockNote.Wrapping = fyne.TextWrapWord
	m.landlockNote.Importance = widget.WarningImportance
	m.meter = newMeter()
	m.meterLabel = widget.NewLabel("")
	m.meterLabel.SizeName = theme.SizeNameCaptionText
	m.wrapBtn = widget.NewButtonWithIcon("Wrap up now", theme.MailForwardIcon(), m.wrapUp)
	m.wrapBtn.Importance = widget.WarningImportance
	m.meterRow = container.NewBorder(nil, nil, nil, container.NewHBox(m.meterLabel, m.wrapBtn), m.meter)

	m.findEntry = newEscEntry()
	m.findEntry.onEscape = m.closeFind
	m.findEntry.SetPlaceHolder("Find in conversation")
	m.findEntry.OnChanged = func(string) { m.runFind() }
	m.findEntry.OnSubmitted = func(string) { m.findStep(1) }
	m.findCount = widget.NewLabel("")
	m.findBar = container.NewBorder(nil, nil, widget.NewIcon(theme.SearchIcon()), container.NewHBox(m.findCount,
		widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { m.findStep(-1) }),
		widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { m.findStep(1) }),
		widget.NewButtonWithIcon("", theme.CancelIcon(), m.hideFind)), m.findEntry)
	m.findBar.Hide()

	m.empty = m.startState()
	m.chatHolder = container.NewStack(m.empty)

	m.exhaustedText = newWrapText()
	setPlain(m.exhaustedText, "The agent's summary of the work is the last entry above. A new conversation starts on the same working directory with that summary in its draft, linked back to this one.", widget.RichTextStyleParagraph)
	m.continueBtn = widget.NewButtonWithIcon("Continue in new conversation", theme.MailForwardIcon(), m.continueInNew)
	m.continueBtn.Importance = widget.HighImportance
	exhaustedTitle := widget.NewLabelWithStyle("Context exhausted: this conversation is read-only now", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	exhaustedTitle.Importance = widget.DangerImportance
	m.exhaustedBox = container.NewVBox(exhaustedTitle, m.exhaustedText, container.NewHBox(m.continueBtn))
	m.exhaustedBox.Hide()

	m.inline = widget.NewLabel("")
	m.inline.Wrapping = fyne.TextWrapWord
	m.inline.Importance = widget.DangerImportance
	m.inlineIcon = widget.NewIcon(theme.WarningIcon()) // a check mark instead for showDone
	m.inlineBox = container.NewBorder(nil, nil, m.inlineIcon,
		widget.NewButtonWithIcon("", theme.CancelIcon(), m.clearInline), m.inline)
	m.inlineBox.Hide()
	m.strip = container.New(&flow{gap: pad()})
	m.strip.Hide()

	m.entry = newComposerEntry()
	m.entry.onSend = m.send
	m.entry.onStop = m.stopAgent
	m.entry.onPaste = newPaster(m, m.deps.Clipboard).paste
	m.attachBtn = widget.NewButtonWithIcon("", theme.FileImageIcon(), m.showAttachDialog)
	m.sendBtn = widget.NewButtonWithIcon("Send", theme.MailSendIcon(), m.send)
	m.sendBtn.Importance = widget.HighImportance
	composer := container.NewBorder(nil, nil, container.NewVBox(m.attachBtn), container.NewVBox(m.sendBtn), m.entry)

	var dot fyne.CanvasObject
	m.statusDotCircle, dot = newDot()
	m.statusDot = dot
	m.statusLabel = widget.NewLabel("")
	m.statusLabel.Truncation = fyne.TextTruncateEllipsis
	m.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), m.stopAgent)
	m.stopBtn.Importance = widget.DangerImportance
	status := container.NewBorder(nil, nil, dot, container.NewHBox(container.NewCenter(m.demo.status), m.stopBtn), m.statusLabel)

	m.proj = newProjectUI(m)
	// The "/" menu of commands (slashmenu.go).
	m.slash = newSlashMenu(m)
	m.entry.onKey = m.slash.onKey
	m.entry.OnChanged = m.slash.update
	m.disk = newDiskBanner()
	m.top = container.NewVBox(m.disk.box, m.header, m.proj.row, m.landlockNote, m.meterRow, m.findBar)
	m.hosts = newHostCards(m)
	m.mcpCards = newMCPCards(m)
	m.todo = newTodoPanel(m)
	m.bottom = container.NewVBox(m.mcpCards.box, m.exhaustedBox, m.inlineBox, m.hosts.box, m.todo.box, m.proj.queueBox, m.strip, m.slash.box, composer, status)
	m.right = container.NewBorder(m.top, m.bottom, nil, nil, m.chatHolder)
	split := container.NewHSplit(sidebar, container.NewPadded(m.right))
	split.Offset = 0.27
	return split
}

func (m *MainWindow) emptyState() fyne.CanvasObject {
	hello := widget.NewLabelWithStyle("No conversation is open", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := widget.NewLabelWithStyle("Start one on a working directory, or pick one on the left.", fyne.TextAlignCenter, fyne.TextStyle{})
	btn := widget.NewButtonWithIcon("New conversation (Ctrl+N)", theme.ContentAddIcon(), m.showNewConversation)
	btn.Importance = widget.HighImportance
	return container.NewCenter(container.NewVBox(hello, hint, container.NewCenter(btn)))
}

// conv returns the state of conversation id, creating it when unknown.
func (m *MainWindow) conv(id string) *convState {
	cs := m.convs[id]
	if cs == nil {
		cs = newConvState(id, m.now)
		m.convs[id] = cs
	}
	return cs
}

// loadList fills the sidebar and re-opens the last open conversation. It runs on its own
// goroutine: the window shows at once even with a long history.
func (m *MainWindow) loadList() {
	ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
	defer cancel()
	sums, err := m.b.List(ctx, true)
	m.do(func() {
		if m.closed {
			return
		}
		m.listLoaded = true
		if err != nil {
			m.showInline(fmt.Sprintf("Could not list the conversations: %v. Restart the app; if it persists, check the data directory.", err))
			return
		}
		for _, s := range sums {
			cs := m.conv(s.ID)
			cs.listed = true
			if !cs.hasState {
				cs.conv = summaryConv(s)
				cs.listKind = s.State
			}
		}
		m.refreshSidebar()
		if last := m.app.Preferences().String(prefLastConv); last != "" && m.current == nil {
			if cs := m.convs[last]; cs != nil && cs.listed {
				m.open(last)
			}
		}
	})
}

// open shows conversation id in the main window, loading its history if needed.
func (m *MainWindow) open(id string) {
	cs := m.convs[id]
	if cs == nil || cs == m.current {
		return
	}
	m.saveDraft()
	m.current = cs
	m.app.Preferences().SetString(prefLastConv, id)
	if cs.mainView == nil {
		cs.mainView = newChatView(m, cs, false)
		cs.views = append(cs.views, cs.mainView)
	}
	m.cv = cs.mainView
	m.chatHolder.Objects = []fyne.CanvasObject{m.cv.list}
	m.chatHolder.Refresh()
	m.cv.follow = true
	m.cv.list.ScrollToBottom()
	m.clearInline()
	m.hideFind()
	m.loadDraft()
	if !cs.loaded && !cs.loading {
		m.load(cs)
	}
	m.proj.load(cs)
	m.refreshAll()
	m.jumpIfPending(cs)
	m.win.Canvas().Focus(m.entry)
}

// load reads a conversation's snapshot off the UI goroutine (REQ-BED-011: current state and
// history on connect).
func (m *MainWindow) load(cs *convState) {
	cs.loading = true
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		snap, err := m.b.Snapshot(ctx, cs.id)
		m.do(func() {
			if err != nil {
				cs.loading = false
				cs.early = nil
				m.showInline(fmt.Sprintf("Could not open the conversation: %v.", err))
				return
			}
			cs.applySnapshot(snap, time.Time{})
			for _, v := range cs.views {
				v.follow = true
				v.changed()
			}
			m.refreshConv(cs)
			m.jumpIfPending(cs)
		})
	}()
}

// applyBatch applies a batch of events from the pump, then re-draws what they changed once.
func (m *MainWindow) applyBatch(evs []actors.Event) {
	if m.closed {
		return
	}
	// Whether each view follows new rows is decided before the rows arrive.
	touched := map[string]bool{}
	for _, ev := range evs {
		touched[ev.Conversation()] = true
	}
	for id := range touched {
		if cs := m.convs[id]; cs != nil {
			for _, v := range cs.views {
				v.noteFollow()
			}
		}
	}

	rows := map[*convState]bool{}
	states := map[*convState]bool{}
	deltas := map[*convState]bool{}
	sidebar := false
	for _, ev := range evs {
		if id, ok := isDeleted(ev); ok {
			m.forgetConv(id)
			continue
		}
		if m.mcpCards.onEvent(ev) {
			continue
		}
		cs := m.conv(ev.Conversation())
		switch e := ev.(type) {
		case actors.ConversationCreated:
			if !cs.hasState {
				cs.setConv(e.Conv, e.Conv.CreatedAt)
			}
			if e.Conv.UserInitiated() {
				cs.listed, sidebar = true, true
			}
			continue
		case actors.StateChanged:
			if e.Conv.UserInitiated() {
				cs.listed, sidebar = true, true
			}
		case actors.ApprovalRequested:
			m.notify(transcript.Title(cs.conv.Title, cs.conv.Cwd), "The agent asks for write access: "+transcript.OneLine(e.Reason, 160))
		case actors.ToolProgress:
			states[cs] = true
		case actors.HostApprovalRequested, actors.HostApprovalAnswered:
			m.hosts.onEvent(ev)
			continue
		}
		if e, ok := ev.(actors.CustomChanged); ok {
			m.slash.onCustomChanged(e)
			states[cs] = true
			continue
		}
		switch ev.(type) {
		case actors.QueueChanged, actors.InstructionsChanged, actors.CheckpointSaved:
			if m.proj.onEvent(ev) {
				m.gen++ // rows gain Undo and Rewind buttons
			}
			states[cs] = true
			continue
		}
		wasBusy := cs.busy()
		if cs.applyEvent(ev) {
			rows[cs] = true
		}
		if _, ok := ev.(actors.TextDelta); ok {
			// The status counts the reasoning while the model thinks (cs.status).
			deltas[cs] = true
		}
		if _, ok := ev.(actors.StateChanged); ok {
			states[cs] = true
			if wasBusy && !cs.busy() && cs.conv.UserInitiated() {
				m.notifyFinished(cs)
			}
		}
	}
	for cs := range rows {
		for _, v := range cs.views {
			v.changed()
		}
	}
	if sidebar {
		m.refreshSidebar()
	}
	for cs := range states {
		m.refreshConv(cs)
	}
	for cs := range deltas {
		if states[cs] {
			continue // refreshed above
		}
		if cs == m.current {
			m.refreshStatus()
		}
		if w := m.subWins[cs.id]; w != nil {
			w.refresh()
		}
	}
}

// refreshConv re-draws the parts of the window that show cs.
func (m *MainWindow) refreshConv(cs *convState) {
	if cs == m.current {
		m.refreshAll()
	}
	if w := m.subWins[cs.id]; w != nil {
		w.refresh()
	}
}

// refreshAll re-draws the header, meter, status bar and composer for the open conversation.
func (m *MainWindow) refreshAll() {
	m.mcpCards.refresh()
	m.demo.refresh()
	m.refreshHeader()
	m.proj.refresh()
	m.refreshStatus()
	m.refreshComposer()
	m.hosts.refresh()
	m.todo.refresh()
	m.relayout()
	if m.cv != nil && m.gen != m.cv.lastGen {
		m.cv.lastGen = m.gen
		m.cv.list.Refresh()
	}
	m.sideList.Refresh()
}

func (m *MainWindow) refreshHeader() {
	m.refreshModeMenu()
	if !m.sandbox.Available {
		reason := m.sandbox.Reason
		if reason == "" {
			reason = "this kernel does not support it"
		}
		m.landlockNote.SetText("Landlock is unavailable (" + strings.TrimSuffix(reason, ".") + "): Restricted mode cannot be enforced, so conversations run Unrestricted.")
		m.landlockNote.Show()
	} else {
		m.landlockNote.Hide()
	}
	cs := m.current
	if cs == nil {
		m.win.SetTitle(AppTitle)
		m.header.Hide()
		m.meterRow.Hide()
		return
	}
	c := cs.conv
	m.header.Show()
	m.win.SetTitle(AppTitle + " — " + transcript.Title(c.Title, c.Cwd))
	m.title.SetText(transcript.Title(c.Title, c.Cwd))
	sub := c.Cwd + " · " + m.b.ModelLabel(c.Model)
	if c.ContinuedFrom != "" {
		if from := m.convs[c.ContinuedFrom]; from != nil {
			sub += " · continues “" + transcript.Title(from.conv.Title, from.conv.Cwd) + "”"
		} else {
			sub += " · continues an earlier conversation"
		}
	}
	m.subtitle.SetText(sub)
	m.mode.set(c.Mode.Title(), modeColor(c.Mode))
	// Switching down is offered from any mode above Restricted, to every mode below it.
	m.switchBox.Hidden = !m.sandbox.Available || c.Mode.Rank() == domain.ModeRestricted.Rank()
	m.projectBtn.Hidden = c.Mode.Rank() <= domain.ModeProject.Rank()
	m.header.Refresh()

	window := c.ContextWindow
	if window <= 0 {
		window = domain.ContextWindowFor(c.Model)
	}
	m.meter.set(c.Usage, window)
	label := meterText(c.Usage, window) + costText(c.Usage, c.Spent)
	_, exhausted := cs.exhausted()
	warn := domain.AtWarning(c.Usage, window) && !exhausted
	if warn {
		label = "Context nearly full: " + label
	}
	m.meterLabel.SetText(label)
	m.meterLabel.Importance = widget.MediumImportance
	if warn {
		m.meterLabel.Importance = widget.WarningImportance
	}
	m.meterLabel.Refresh()
	_, continuing := cs.conv.State.(domain.AwaitingContinuation)
	m.wrapBtn.Hidden = !warn || continuing
	if cs.busy() {
		m.wrapBtn.Disable()
	} else {
		m.wrapBtn.Enable()
	}
	m.meterRow.Show()
	m.meterRow.Refresh()
}

func (m *MainWindow) refreshStatus() {
	cs := m.current
	if cs == nil || !cs.hasState {
		m.statusLabel.SetText("")
		m.stopBtn.Hide()
		m.statusDotCircle.FillColor = theme.Color(theme.ColorNameDisabled)
		m.statusDotCircle.Refresh()
		m.ticking.Store(false)
		if cs != nil && cs.loading {
			m.statusLabel.SetText("Loading…")
		}
		return
	}
	m.statusLabel.SetText(cs.status(m.now()) + cs.progressNote())
	m.statusDotCircle.FillColor = theme.Color(stateColor(cs.conv.State.Kind()))
	m.statusDotCircle.Refresh()
	if cs.busy() {
		m.stopBtn.Show()
	} else {
		m.stopBtn.Hide()
	}
	m.ticking.Store(needsClock(cs.conv.State) || m.anySubWindowTicking())
}

// needsClock reports whether the status text of s changes with time.
func needsClock(s domain.State) bool {
	switch st := s.(type) {
	case domain.ToolExecuting, domain.AwaitingSubAgents:
		return true
	case domain.LLMRequesting:
		return st.RetryPending
	case domain.AwaitingContinuation:
		return st.RetryPending
	}
	return false
}

// clock re-draws the status bar every second while it shows a running time.
func (m *MainWindow) clock() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-m.ctx.Done():
			return
		case <-t.C:
			if m.ticking.Load() {
				m.do(m.tick)
			}
		}
	}
}

func (m *MainWindow) tick() {
	if m.closed {
		return
	}
	m.refreshStatus()
	for _, w := range m.subWins {
		w.refresh()
	}
}

// busyWords is what the composer says of a conversation that is not at rest: an approval card
// waits for the person, not for the agent.
func busyWords(cs *convState) string {
	if _, ok := cs.conv.State.(domain.AwaitingModeApproval); ok {
		return "The agent waits for your answer to its request above."
	}
	return "The agent is working."
}

func (m *MainWindow) refreshComposer() {
	cs := m.current
	if m.isExhausted() {
		m.exhaustedBox.Show()
	} else {
		m.exhaustedBox.Hide()
	}
	switch {
	case cs == nil:
		m.entry.SetPlaceHolder("Create or open a conversation to start (Ctrl+N).")
		m.entry.Disable()
		m.sendBtn.Disable()
		m.attachBtn.Disable()
	case m.isExhausted():
		// REQ-BED-021: the composer says why it is disabled.
		m.entry.SetPlaceHolder("This conversation is read-only: its context window is full. Use “Continue in new conversation” above.")
		m.entry.Disable()
		m.sendBtn.Disable()
		m.attachBtn.Disable()
	case cs.busy() && m.proj.enabled():
		m.entry.SetPlaceHolder(busyWords(cs) + " Send queues your next message for when it finishes; Stop (Esc) interrupts.")
		m.entry.Enable()
		m.sendBtn.Enable()
		m.attachBtn.Enable()
	case cs.busy():
		m.entry.SetPlaceHolder(busyWords(cs) + " Write your next message here; press Stop (Esc) to interrupt.")
		m.entry.Enable()
		m.sendBtn.Disable()
		m.attachBtn.Enable()
	default:
		m.entry.SetPlaceHolder("Message the agent. Enter sends, Shift+Enter adds a line; drop images anywhere to attach them.")
		m.entry.Enable()
		m.attachBtn.Enable()
		if m.sending {
			m.sendBtn.Disable()
		} else {
			m.sendBtn.Enable()
		}
	}
	m.bottom.Refresh()
}

func (m *MainWindow) exhaustedState() (domain.ContextExhausted, bool) {
	if m.current == nil {
		return domain.ContextExhausted{}, false
	}
	return m.current.exhausted()
}

func (m *MainWindow) isExhausted() bool {
	_, ok := m.exhaustedState()
	return ok
}

// relayout lays the right pane out again after parts of it were shown or hidden: Show and
// Hide do not tell the containers around an object that its size changed.
func (m *MainWindow) relayout() {
	m.top.Refresh()
	m.bottom.Refresh()
	m.right.Refresh()
}

// showInline shows a problem above the composer until dismissed or replaced.
func (m *MainWindow) showInline(text string) {
	m.setInline(text, widget.DangerImportance, theme.WarningIcon())
}

// showDone shows news of something that worked (a restore) in the same place, without the
// warning's red and sign.
func (m *MainWindow) showDone(text string) {
	m.setInline(text, widget.SuccessImportance, theme.ConfirmIcon())
}

func (m *MainWindow) setInline(text string, imp widget.Importance, icon fyne.Resource) {
	m.inline.Importance = imp
	m.inlineIcon.SetResource(icon)
	m.inline.SetText(text)
	m.inlineBox.Show()
	m.relayout()
}

func (m *MainWindow) clearInline() {
	if m.inlineBox.Hidden {
		return
	}
	m.inline.SetText("")
	m.inlineBox.Hide()
	m.relayout()
}

// call runs a runtime command off the UI goroutine and reports its error there.
func (m *MainWindow) call(what string, f func(ctx context.Context) error, onErr func(error)) {
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		err := f(ctx)
		if err == nil {
			return
		}
		m.do(func() {
			if onErr != nil {
				onErr(err)
			}
			if !errors.Is(err, context.Canceled) {
				m.showInline(fmt.Sprintf("Could not %s: %v.", what, err))
			}
		})
	}()
}

// stopAgent is Stop and Esc (REQ-BED-005).
func (m *MainWindow) stopAgent() {
	cs := m.current
	if cs == nil || !cs.busy() {
		return
	}
	m.call("stop the agent", func(ctx context.Context) error {
		err := m.b.Cancel(ctx, cs.id)
		// The turn ended by itself just before the click, or an earlier click is being
		// handled: either way the agent stops, and nothing needs saying.
		if errors.Is(err, domain.ErrNothingToStop) || errors.Is(err, actors.ErrAlreadyStopping) {
			return nil
		}
		return err
	}, nil)
}

// decide answers a mode-upgrade request (REQ-BED-015) with the mode granted, or
// actors.DenyUpgrade.
func (m *MainWindow) decide(cs *convState, exec domain.ExecID, grant domain.Mode, onErr func()) {
	m.call("send your decision", func(ctx context.Context) error {
		return m.b.DecideUpgrade(ctx, cs.id, exec, grant)
	}, func(error) { onErr() })
}

// downgrade is "Switch to Restricted" and "Switch to Project" (REQ-BED-016): offered from
// any higher mode, and at once.
func (m *MainWindow) downgrade(to domain.Mode) {
	cs := m.current
	if cs == nil || cs.conv.Mode.Rank() <= to.Rank() {
		return
	}
	m.call("switch to "+to.Title()+" mode", func(ctx context.Context) error { return m.b.Downgrade(ctx, cs.id, to) }, nil)
}

// modeColor is the badge's colour: calm for Restricted, the primary colour for Project, a
// warning for Unrestricted.
func modeColor(mode domain.Mode) fyne.ThemeColorName {
	switch mode {
	case domain.ModeUnrestricted:
		return theme.ColorNameWarning
	case domain.ModeProject:
		return theme.ColorNamePrimary
	}
	return theme.ColorNameSuccess
}

// wrapUp triggers the continuation by hand (REQ-BED-023).
func (m *MainWindow) wrapUp() {
	cs := m.current
	if cs == nil {
		return
	}
	m.call("wrap up", func(ctx context.Context) error { return m.b.WrapUp(ctx, cs.id) }, nil)
}

// continueInNew opens a new conversation linked to the exhausted one, with the summary in its
// draft (REQ-BED-021).
func (m *MainWindow) continueInNew() {
	cs := m.current
	if cs == nil {
		return
	}
	m.continueBtn.Disable()
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		conv, summary, err := m.b.ContinueInNew(ctx, cs.id)
		m.do(func() {
			m.continueBtn.Enable()
			if err != nil {
				m.showInline(fmt.Sprintf("Could not start the new conversation: %v.", err))
				return
			}
			nc := m.conv(conv.ID)
			if !nc.hasState {
				nc.setConv(conv, conv.CreatedAt)
			}
			nc.listed = true
			if nc.draft.text == "" {
				nc.draft.text = summary
			}
			m.refreshSidebar()
			m.open(conv.ID)
		})
	}()
}

// setArchived archives or restores a conversation.
func (m *MainWindow) setArchived(cs *convState, archived bool) {
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		err := m.b.SetArchived(ctx, cs.id, archived)
		m.do(func() {
			if err != nil {
				m.showInline(fmt.Sprintf("Could not archive the conversation: %v.", err))
				return
			}
			cs.conv.Archived = archived
			m.refreshSidebar()
		})
	}()
}

// notify sends a desktop notification when no window of the app has the focus.
func (m *MainWindow) notify(title, content string) {
	if m.focused {
		return
	}
	n := fyne.NewNotification(title, content)
	if m.deps.Notify != nil {
		m.deps.Notify(n)
		return
	}
	m.app.SendNotification(n)
}

// notifyFinished says that a turn ended, and how.
func (m *MainWindow) notifyFinished(cs *convState) {
	title := transcript.Title(cs.conv.Title, cs.conv.Cwd)
	switch st := cs.conv.State.(type) {
	case domain.Error:
		m.notify(title, "Stopped with an error: "+transcript.OneLine(st.Message, 140))
	case domain.ContextExhausted:
		m.notify(title, "The context window is full: continue in a new conversation.")
	default:
		m.notify(title, "The agent has finished.")
	}
}

// sandboxDetails is what the mode badge's details say: the conversation's mode, then which
// layers of the sandbox this machine has and why any is missing (the same report as
// `phoenix-desktop doctor`).
func (m *MainWindow) sandboxDetails() string {
	head := "This conversation is Restricted: its commands can read your files but change nothing outside their private temp dir, and reach no network."
	if m.current != nil && m.current.conv.Mode == domain.ModeUnrestricted {
		head = "This conversation is Unrestricted: its commands run without the sandbox (a supervisor still ends every process they start)."
	}
	if m.current != nil && m.current.conv.Mode == domain.ModeProject {
		var hosts []string
		if m.deps.Hosts != nil {
			hosts = m.deps.Hosts.AllowedHosts(m.current.conv.Cwd)
		}
		head = "This conversation is in Project mode. " + actors.ProjectSummary(len(hosts))
		if len(hosts) > 0 {
			head += "\nAllowed hosts: " + strings.Join(hosts, ", ")
		}
	}
	return head + "\n\n" + m.sandbox.String()
}

func (m *MainWindow) showSandboxDetails() {
	text := widget.NewLabel(m.sandboxDetails())
	text.Wrapping = fyne.TextWrapWord
	scroll := container.NewVScroll(text)
	scroll.SetMinSize(fyne.NewSize(560, 360))
	m.showModal(dialog.NewCustom("Sandbox on this machine", "Close", scroll, m.win))
}

// showModal shows a dialog that Escape closes (the window's key handler hides it). A dialog
// opened from another one (MCP servers from Settings) sits on top of it, and Escape closes
// only the topmost.
func (m *MainWindow) showModal(d dialog.Dialog) {
	m.modals = append(m.modals, d)
	d.SetOnClosed(func() {
		m.modals = slices.DeleteFunc(m.modals, func(x dialog.Dialog) bool { return x == d })
	})
	d.Show()
}

// closeTopModal hides the topmost dialog shown with showModal, and reports whether there was
// one. It is the onEscape of the fields in dialogs that can sit on top of another.
func (m *MainWindow) closeTopModal() bool {
	if len(m.modals) == 0 {
		return false
	}
	m.modals[len(m.modals)-1].Hide()
	return true
}
