package ui

import (
	"context"
	"fmt"
	"slices"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
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
// owned by the UI goroutine. It composes the components that own their widgets — the sidebar
// (sidebar.go), the header (header.go), the project controls (project.go), the find bar
// (findbar.go), the composer (composerbar.go, composer.go), the notice above it (notice.go)
// and the status bar (statusbar.go) — and keeps what they share: the conversations, the
// open one and the runtime.
type MainWindow struct {
	// placer reads and sets the native window's place, and placing is a restore of it under
	// way (winplace.go).
	placer  placer
	placing *placeCheck
	// guards say which dialogs ask before discarding their edits (discard.go).
	guards map[dialog.Dialog]modalGuard
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
	// small decides what the window's size leaves room for (smallscreen.go); sidebarMinW
	// is the sidebar's narrowest width, measured once.
	small         *smallScreen
	sidebarToggle *fyne.Container
	sidebarMinW   float32
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
	gen int
	// laidOut is what relayout last laid out above and below the chat; paneLook is its
	// scratch space.
	laidOut, paneLook []partLook
	focused           bool
	// sandbox is what the sandbox enforces here once sandboxKnown (sandboxstatus.go).
	sandbox      SandboxStatus
	sandboxKnown bool
	thumbs       *thumbCache

	convs      map[string]*convState
	current    *convState
	cv         *chatView
	sending    bool
	subWins    map[string]*subAgentWindow
	listLoaded bool
	newForm    *newConvForm
	settings   *settingsForm
	deleteDlg  *confirmDialog
	wrapDlg    *confirmDialog
	mcpPanel   *mcpPanel
	hooksPanel *hooksPanel

	// exportForm is the last Export dialog opened (exportdialog.go).
	exportForm *exportForm
	// recent are the conversations shown most recently, the last the newest (keeploaded.go).
	recent []string
	// sweep repaints the window once it has been quiet for a while, so that Fyne drops the
	// renderers of what it no longer shows (idlesweep.go).
	sweep idleSweep

	// The components of the window, each owning its widgets.
	sidebar  *sidebar
	header   *header
	find     *findBar
	composer *composerBar
	notice   *notice
	status   *statusBar
	// proj holds the project controls: instructions, model switch, queue, Undo and Rewind.
	proj *projectUI
	// rv holds the Changes windows and the comments for the next message (reviewpane.go).
	rv *reviewUI
	// slash is the composer's "/" menu of custom commands.
	slash *slashMenu
	// disk is the full-disk banner (diskbanner.go).
	disk *diskBanner
	// mcpCards are the MCP servers' requests for the person (mcpcards.go).
	mcpCards *mcpCards
	// hosts are Project mode's questions about new hosts (hostcard.go).
	hosts *hostCards

	// The main menu's conversation menu and its mode switches (menu.go).
	convMenu       *fyne.Menu
	menuRestricted *fyne.MenuItem
	menuWrapUp     *fyne.MenuItem
	drafts         *draftKeeper
	menuProject    *fyne.MenuItem

	// The right pane: the chat (or the empty state) between top and bottom.
	chatHolder *fyne.Container
	empty      fyne.CanvasObject
	top        *fyne.Container
	bottom     *fyne.Container
	right      *fyne.Container
}

// NewMainWindow builds the main window on the app, starts following the event stream and
// loads the conversation list in the background. Call it on the UI goroutine (before
// App.Run, or inside fyne.Do); show the window with Window().ShowAndRun() or use Run.
func NewMainWindow(a fyne.App, b Backend, events EventSource, deps Deps) *MainWindow {
	m := &MainWindow{placer: native, app: a, b: b, events: events, deps: deps, do: deps.Do, now: deps.Now,
		focused: true, thumbs: newThumbCache(), convs: map[string]*convState{}, subWins: map[string]*subAgentWindow{}}
	if m.do == nil {
		m.do = fyne.Do
	}
	if m.now == nil {
		m.now = time.Now
	}
	m.ctx, m.stop = context.WithCancel(context.Background())
	m.win = deps.Window
	if m.win == nil {
		m.win = a.NewWindow(AppTitle)
	}
	m.win.SetContent(m.build())
	m.win.SetMainMenu(m.menu())
	m.win.SetOnDropped(m.onDropped)
	m.win.Canvas().SetOnTypedKey(func(k *fyne.KeyEvent) {
		if m.chatKey(k.Name, false) {
			return
		}
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
		m.drafts.flush()
		m.shutdown()
	})

	// Desktop notifications are for when the person looks elsewhere (REQ-BED-015).
	a.Lifecycle().SetOnEnteredForeground(func() { m.focused = true; m.seen(m.current) })
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
	go m.status.clock()
	go m.watchDisk()
	go m.loadList()
	m.refreshAll()
	return m
}

// Run builds the main window and runs the app until it quits. It is what cmd/phoenix-desktop
// calls.
func Run(a fyne.App, b Backend, events EventSource, deps Deps) {
	m := NewMainWindow(a, b, events, deps)
	// What the first frame does not need waits until the window is on the screen
	// (issue 36: exec → window mapped).
	a.Lifecycle().SetOnStarted(func() {
		m.restorePlace()
		m.probeSandbox()
		if deps.AfterShow != nil {
			deps.AfterShow()
		}
	})
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
	if m.sweep.timer != nil {
		m.sweep.timer.Stop()
	}
	m.events.Close()
	for _, w := range m.subWins {
		w.win.Close()
	}
	m.rv.closeAll()
}

// build lays the window out: the sidebar on the left; on the right the header, the chat log
// and, at the bottom, the composer and the status bar.
func (m *MainWindow) build() fyne.CanvasObject {
	// The demo chips go into the header and the status bar, so they are made first.
	m.demo = newDemoChips(m)
	m.sidebar = newSidebar(m)
	m.header = newHeader(m)
	m.find = newFindBar(m)
	m.empty = m.startState()
	m.chatHolder = container.New(&chatFill{m: m}, m.empty)
	m.notice = newNotice(m.clearInline)
	m.notice.readAll = m.showNoticeWhole
	m.composer = newComposerBar(m)
	m.status = newStatusBar(m)
	m.proj = newProjectUI(m)
	m.rv = newReviewUI(m)
	// The "/" menu of commands (slashmenu.go).
	m.slash = newSlashMenu(m)
	m.composer.entry.onKey = m.slash.onKey
	m.composer.entry.onChatKey = m.composerChatKey
	m.drafts = newDraftKeeper(m)
	m.composer.entry.OnChanged = func(s string) {
		m.slash.update(s)
		m.drafts.changed(s)
	}
	m.disk = newDiskBanner()
	m.top = container.NewVBox(m.disk.box, m.withSidebarToggle(m.header.box), m.proj.row, m.header.landlockNote, m.header.meterRow, m.find.box)
	m.hosts = newHostCards(m)
	m.mcpCards = newMCPCards(m)
	m.todo = newTodoPanel(m)
	m.bottom = container.NewVBox(m.mcpCards.box, m.composer.exhaustedBox, m.notice.box, m.hosts.box, m.todo.box, m.proj.queueBox,
		m.composer.strip, m.slash.box, m.composer.box, m.status.box)
	m.right = container.NewBorder(m.top, m.bottom, nil, nil, m.chatHolder)
	var root fyne.CanvasObject
	m.small, root = m.newSmallScreen(m.sidebar.obj, container.NewPadded(m.right)) // smallscreen.go
	return root
}

func (m *MainWindow) emptyState() fyne.CanvasObject {
	hello := widget.NewLabelWithStyle("No conversation is open", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	hint := widget.NewLabelWithStyle("Start one on a working directory, or pick one on the left.", fyne.TextAlignCenter, fyne.TextStyle{})
	btn := button.NewWithIcon("New conversation (Ctrl+N)", theme.ContentAddIcon(), m.showNewConversation)
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
		m.sidebar.refresh()
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
	m.noteShown(cs)
	// The sidebar marks where the person went, also when they got there another way than
	// by the sidebar (a fork, "Continue in new conversation", a search hit).
	m.sidebar.selectCurrent(true)
	m.seen(cs)
	m.app.Preferences().SetString(prefLastConv, id)
	if cs.mainView == nil {
		cs.mainView = newChatView(m, cs, false)
		cs.views = append(cs.views, cs.mainView)
	}
	m.cv = cs.mainView
	m.chatHolder.Objects = []fyne.CanvasObject{m.cv.list, m.cv.wheelCatcher}
	m.chatHolder.Refresh()
	m.cv.follow = true
	m.cv.list.ScrollToBottom()
	m.clearInline()
	m.find.hide()
	m.loadDraft()
	m.drafts.restore(cs)
	m.rv.restoreKept(cs)
	if !cs.loaded && !cs.loading {
		m.load(cs)
	}
	m.proj.load(cs)
	m.refreshAll()
	m.jumpIfPending(cs)
	m.win.Canvas().Focus(m.composer.entry)
}

// load reads a conversation's snapshot off the UI goroutine (REQ-BED-011: current state and
// history on connect).
func (m *MainWindow) load(cs *convState) {
	cs.loading = true
	m.noteSlowLoad(cs)
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
				v.measureTail()
				v.changed()
			}
			m.refreshConv(cs)
			m.jumpIfPending(cs)
		})
	}()
}

// refreshAll re-draws the header, meter, status bar and composer for the open conversation.
func (m *MainWindow) refreshAll() {
	m.mcpCards.refresh()
	m.demo.refresh()
	m.header.refresh()
	m.proj.refresh()
	m.status.refresh()
	m.hosts.refresh()
	m.composer.refresh() // after the cards: it says whether the agent waits for the person
	m.todo.refresh()
	m.relayout()
	if m.cv != nil && m.gen != m.cv.lastGen {
		m.cv.lastGen = m.gen
		m.cv.list.Refresh()
	}
	m.sidebar.refresh() // leaves the rows alone when none would change
}

// setTitle sets the window's title when it changes: the native window's title is set on
// the main thread, at every state change otherwise.
func (m *MainWindow) setTitle(title string) {
	if m.win.Title() != title {
		m.win.SetTitle(title)
	}
}

// relayout lays the right pane out again after parts of it were shown or hidden: Show and
// Hide do not tell the containers around an object that its size changed. It does so only
// when something above or below the chat was shown, hidden or changed size since the last
// time, and then only lays the containers out again: refreshing them would refresh every
// widget in them, the chat's visible rows included, and a tool round changes the meter's
// width at every state change (issue 39, the round in the window).
func (m *MainWindow) relayout() {
	look := m.paneLook[:0]
	look = appendPaneLook(look, m.top)
	look = appendPaneLook(look, m.bottom)
	if slices.Equal(look, m.laidOut) {
		m.paneLook = look
		return
	}
	m.paneLook, m.laidOut = m.laidOut[:0], slices.Clone(look)
	layoutTree(m.right)
	if c := m.win.Canvas(); c != nil {
		c.Refresh(m.right)
	}
}

// layoutTree lays out o, when it is a shown container, and then the shown containers in it,
// outside in: each places its objects at their new sizes before those place theirs.
func layoutTree(o fyne.CanvasObject) {
	c, ok := o.(*fyne.Container)
	if !ok || !c.Visible() {
		return
	}
	if c.Layout != nil {
		c.Layout.Layout(c.Objects, c.Size())
	}
	for _, child := range c.Objects {
		layoutTree(child)
	}
}

// partLook is what relayout compares of one object above or below the chat.
type partLook struct {
	visible bool
	min     fyne.Size
}

// appendPaneLook appends the look of o and of every object in it, depth first: whether it is
// shown and its minimum size (a hidden object's insides are not looked into).
func appendPaneLook(look []partLook, o fyne.CanvasObject) []partLook {
	if !o.Visible() {
		return append(look, partLook{})
	}
	look = append(look, partLook{visible: true, min: o.MinSize()})
	if c, ok := o.(*fyne.Container); ok {
		for _, child := range c.Objects {
			look = appendPaneLook(look, child)
		}
	}
	return look
}

// notify sends a desktop notification about conversation convID when no window of the app
// has the focus and the person has not turned them off; a click on it opens the
// conversation (attention.go).
func (m *MainWindow) notify(convID, title, content string) {
	if m.focused || !m.notificationsOn() {
		return
	}
	if m.sendDesktop(convID, title, content) {
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
		m.notify(cs.id, title, "Stopped with an error: "+transcript.OneLine(st.Message, 140))
	case domain.ContextExhausted:
		m.notify(cs.id, title, "The context window is full: continue in a new conversation.")
	default:
		m.notify(cs.id, title, "The agent has finished.")
	}
}

// showModal shows a dialog that Escape closes (the window's key handler hides it). A dialog
// opened from another one (MCP servers from Settings) sits on top of it, and Escape closes
// only the topmost.
func (m *MainWindow) showModal(d dialog.Dialog) {
	m.modals = append(m.modals, d)
	d.SetOnClosed(func() {
		m.modals = slices.DeleteFunc(m.modals, func(x dialog.Dialog) bool { return x == d })
		delete(m.guards, d)
		m.focusComposer() // the next words typed go where the person left off (issue 36)
	})
	d.Show()
}

// closeTopModal hides the topmost dialog shown with showModal, and reports whether there was
// one. It is the onEscape of the fields in dialogs that can sit on top of another.
func (m *MainWindow) closeTopModal() bool {
	if len(m.modals) == 0 {
		return false
	}
	m.dismiss(m.modals[len(m.modals)-1])
	return true
}
