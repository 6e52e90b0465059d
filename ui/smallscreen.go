package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/button"
)

// Small screens (issue 36) and a sidebar that stays as it was left (issue 41): below
// sidebarCollapseWidth the sidebar collapses to a toggle (Ctrl+B); shown, it is never so
// narrow that titles cut below sidebarTitlePrefix characters; below shortWindowHeight the
// task list folds to its one-line summary and a notice to one line (its whole text a button
// away), so the chat keeps at least half the window; the header's two rows fold into one; the divider's place is kept across restarts.

const (
	// sidebarCollapseWidth is the window width below which the sidebar starts collapsed: at
	// 800 px it took a quarter of the width and cut titles to 2–3 letters.
	sidebarCollapseWidth = 960
	// shortWindowHeight is the window height below which the task list shows only its summary.
	shortWindowHeight = 700
	// prefSidebarOffset is where the person left the divider (container.Split's Offset).
	prefSidebarOffset = "sidebar.offset"
	// defaultSidebarOffset is the divider's place before the person moves it.
	defaultSidebarOffset = 0.27
)

// smallScreen holds the window's split and decides what the width and height leave room for.
type smallScreen struct {
	m      *MainWindow
	split  *container.Split
	frame  *fyne.Container // the sidebar, as the split holds it
	toggle *fyne.Container // the "Conversations" bar shown while the sidebar is collapsed
	// chosen is the person's Ctrl+B choice (nil: the width decides).
	chosen *bool
	size   fyne.Size
}

// newSmallScreen builds the window's root: the sidebar and the right pane in a split whose
// divider is where the person left it.
func (m *MainWindow) newSmallScreen(sidebar, right fyne.CanvasObject) (*smallScreen, fyne.CanvasObject) {
	s := &smallScreen{m: m}
	s.frame = container.New(&sidebarFrame{s: s}, sidebar)
	s.split = container.NewHSplit(s.frame, right)
	s.split.Offset = m.app.Preferences().FloatWithFallback(prefSidebarOffset, defaultSidebarOffset)
	s.toggle = m.sidebarToggle
	return s, container.New(&rootLayout{s: s}, s.split)
}

// withSidebarToggle puts the button that brings a collapsed sidebar back (the list icon, as
// GNOME's apps show it; Ctrl+B) before the header, in the same row, so it costs the chat no
// height; it is shown only while the sidebar is collapsed.
func (m *MainWindow) withSidebarToggle(header fyne.CanvasObject) fyne.CanvasObject {
	btn := button.NewWithIcon("", theme.MenuIcon(), func() { m.small.toggleSidebar() })
	btn.Importance = widget.LowImportance
	m.sidebarToggle = container.NewCenter(btn)
	m.sidebarToggle.Hide()
	return container.NewBorder(nil, nil, m.sidebarToggle, nil, header)
}

// sidebarShown is whether the sidebar is shown at the window's width.
func (s *smallScreen) sidebarShown() bool {
	if s.chosen != nil {
		return *s.chosen
	}
	return s.size.Width == 0 || s.size.Width >= sidebarCollapseWidth
}

// short is whether the window is too low for the task list's lines.
func (s *smallScreen) short() bool { return s.size.Height > 0 && s.size.Height < shortWindowHeight }

// toggleSidebar is Ctrl+B and the "Conversations" button.
func (s *smallScreen) toggleSidebar() {
	show := !s.sidebarShown()
	s.chosen = &show
	s.apply(false)
	if show {
		s.m.win.Canvas().Focus(s.m.sidebar.search.entry)
	} else {
		s.m.focusComposer()
	}
}

// apply shows or hides what the size leaves room for. resizing says the split is about to be
// given a new size (rootLayout), which lays it out again anyway: a Refresh of the split as
// well redrew the whole window, sidebar included, twice before the first frame (at the
// content's minimum size, then at the window's; issue 36, open fast).
func (s *smallScreen) apply(resizing bool) {
	show := s.sidebarShown()
	if s.frame.Visible() != show {
		s.frame.Hidden = !show
		s.toggle.Hidden = show
		if !resizing {
			s.split.Refresh()
		}
		s.m.relayout()
	}
	if s.m.todo != nil && s.m.todo.short != s.short() {
		s.m.todo.short = s.short()
		s.m.todo.show()
		s.m.header.folded = s.short()
		s.m.header.refresh()
		s.m.relayout()
	}
	if s.m.notice != nil && s.m.notice.fold(s.short()) {
		s.m.relayout()
	}
}

// rootLayout gives the split the whole window and tells smallScreen the window's size first.
type rootLayout struct{ s *smallScreen }

func (l *rootLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.s.size = size
	resizing := false
	for _, o := range objs {
		resizing = resizing || o.Size() != size
	}
	l.s.apply(resizing)
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *rootLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var min fyne.Size
	for _, o := range objs {
		min = min.Max(o.MinSize())
	}
	return min
}

// sidebarFrame keeps the sidebar wide enough for sidebarTitlePrefix characters of a title
// beside the row's time and buttons, and remembers the divider's place whenever the split
// lays the sidebar out (the split has no callback for a moved divider).
type sidebarFrame struct{ s *smallScreen }

func (l *sidebarFrame) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if p := l.s.m.app.Preferences(); size.Width > 0 && p.Float(prefSidebarOffset) != l.s.split.Offset {
		p.SetFloat(prefSidebarOffset, l.s.split.Offset)
	}
}

func (l *sidebarFrame) MinSize(objs []fyne.CanvasObject) fyne.Size {
	min := fyne.NewSize(sidebarMinWidth(l.s.m), 0)
	for _, o := range objs {
		min = min.Max(o.MinSize())
	}
	return min
}

// sidebarMinWidth is a row's own width (dot, time, buttons) plus sidebarTitlePrefix
// characters of a bold title.
func sidebarMinWidth(m *MainWindow) float32 {
	if m.sidebarMinW == 0 {
		title := fyne.MeasureText(strings.Repeat("n", sidebarTitlePrefix), theme.TextSize(), fyne.TextStyle{Bold: true})
		m.sidebarMinW = newSideRow(m).MinSize().Width + title.Width + 2*theme.InnerPadding()
	}
	return m.sidebarMinW
}
