package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// sideRow is one conversation in the sidebar: a state dot, the title, the time, a subtitle
// and an archive button.
type sideRow struct {
	widget.BaseWidget
	m  *MainWindow
	cs *convState
	// id is the list item the row was last bound to: a row the list pooled or gave to
	// another item is no longer the one the sidebar knew for its old item (sidebar.bound).
	id      widget.ListItemID
	dot     *canvas.Circle
	title   *widget.Label
	sub     *widget.Label
	when    *widget.Label
	archive *button.Button
	remove  *button.Button
	obj     fyne.CanvasObject
}

func newSideRow(m *MainWindow) *sideRow {
	r := &sideRow{m: m, title: widget.NewLabel(""), sub: widget.NewLabel(""), when: widget.NewLabel("")}
	r.title.Truncation = fyne.TextTruncateEllipsis
	r.title.TextStyle.Bold = true
	r.sub.Truncation = fyne.TextTruncateEllipsis
	r.sub.SizeName = theme.SizeNameCaptionText
	r.when.SizeName = theme.SizeNameCaptionText
	var dotObj fyne.CanvasObject
	r.dot, dotObj = newDot()
	r.archive = button.NewWithIcon("", archiveIcon(), func() {
		if r.cs != nil {
			m.setArchived(r.cs, !r.cs.conv.Archived)
		}
	})
	r.archive.Importance = widget.LowImportance
	r.remove = button.NewWithIcon("", theme.DeleteIcon(), func() { m.askDelete(r.cs) })
	r.remove.Importance = widget.LowImportance
	text := container.New(&column{Gap: -pad() * 2}, container.NewBorder(nil, nil, nil, r.when, r.title), r.sub)
	r.obj = container.NewBorder(nil, nil, dotObj, container.NewHBox(r.archive, r.remove), text)
	r.ExtendBaseWidget(r)
	return r
}

func (r *sideRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.obj) }

func (r *sideRow) bind(cs *convState) {
	r.cs = cs
	look := r.m.sidebar.lookOf(cs)
	setText(r.title, look.title)
	setText(r.sub, look.sub)
	setText(r.when, look.when)
	setFill(r.dot, theme.Color(look.color))
	icon := archiveIcon()
	if look.archived {
		icon = unarchiveIcon()
	}
	if r.archive.Icon != icon {
		r.archive.SetIcon(icon)
	}
}

// rowLook is everything a sidebar row shows of its conversation: the sidebar compares the
// rows' looks before and after an event, and leaves the list alone when no row would change
// (a tool round changes a conversation's state twice, and a redrawn window costs more than
// the round without a GPU).
type rowLook struct {
	title, sub, when string
	color            fyne.ThemeColorName
	archived         bool
}

// lookOf is what cs's row shows now.
func (s *sidebar) lookOf(cs *convState) rowLook {
	c := cs.conv
	sub := s.m.sideWord(cs)
	if c.Cwd != "" {
		place := shortPath(c.Cwd)
		if c.Host != "" { // a project on another machine names its host
			place = transcript.Place(c)
		}
		sub = place + " · " + sub
	}
	return rowLook{title: s.titleOf(cs), sub: sub, when: listTime(c.UpdatedAt, s.m.now()),
		color: s.m.sideColor(cs), archived: c.Archived}
}

// archiveIcon is the sidebar's Archive button: a cabinet of drawers (the theme has no box),
// not the download arrow it once was. unarchiveIcon brings an archived conversation back.
func archiveIcon() fyne.Resource   { return theme.StorageIcon() }
func unarchiveIcon() fyne.Resource { return theme.ContentUndoIcon() }

// shortPath shows the last two elements of a path, with an ellipsis only where something
// was cut: /tmp/work stays as it is.
func shortPath(p string) string {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	if len(parts) <= 2 {
		return p
	}
	return "…/" + strings.Join(parts[len(parts)-2:], "/")
}

// sidebar is the left pane: New and Settings, the search over every conversation, the list
// of conversations (or the search's hits while it holds a query) and "Show archived".
type sidebar struct {
	m   *MainWindow
	obj fyne.CanvasObject
	// convs are the listed conversations in their order (refresh).
	convs        []*convState
	list         *widget.List
	search       *globalSearch
	showArchived bool
	// titles are the rows' titles as shown, told apart where they repeat (sidebartitles.go).
	titles map[*convState]string
	// words are the last words of conversations whose titles repeat, and asking those being
	// asked for (sidebarwords.go).
	words  map[string]lastWords
	asking map[string]bool
	// selecting is set while the list marks the open conversation, so that marking it does
	// not open it again.
	selecting bool
	// shown is what the listed rows showed at the last refresh, in their order, and selected
	// the conversation marked then: a refresh that would change neither leaves the list alone.
	shown      []rowLook
	shownConvs []*convState
	selected   *convState
	// bound is the row widget the list last bound to each item, by item: the rows a look
	// change draws again. Kept by item, not as every row the list made: the list makes a row
	// to measure at each full refresh and drops rows it pooled, and a list of those grew
	// by a row a turn (the window soak held 12.6 MB of them).
	bound map[widget.ListItemID]*sideRow
	// gen is the window's generation the rows were last drawn for: a new theme recolours
	// rows whose looks are the same.
	gen int
}

func newSidebar(m *MainWindow) *sidebar {
	s := &sidebar{m: m, bound: map[widget.ListItemID]*sideRow{}}
	s.list = widget.NewList(
		func() int { return len(s.convs) },
		func() fyne.CanvasObject { return newSideRow(m) },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(s.convs) {
				r := o.(*sideRow)
				s.bound[id], r.id = r, id
				r.bind(s.convs[id])
			}
		})
	s.list.OnSelected = func(id widget.ListItemID) {
		if !s.selecting && id < len(s.convs) {
			m.open(s.convs[id].id)
		}
	}
	newBtn := button.NewWithIcon("New", theme.ContentAddIcon(), m.showNewConversation)
	newBtn.Importance = widget.HighImportance
	settingsBtn := button.NewWithIcon("", theme.SettingsIcon(), m.showSettings)
	archived := widget.NewCheck("Show archived", func(on bool) {
		s.showArchived = on
		s.refresh()
		if strings.TrimSpace(s.search.entry.Text) != "" {
			m.scheduleSearch()
		}
	})
	s.search = m.newGlobalSearch()
	s.obj = container.NewBorder(container.NewVBox(container.NewBorder(nil, nil, nil, settingsBtn, newBtn), s.search.entry),
		archived, nil, nil, container.NewStack(s.list, newWheelCatcher(s.wheel), s.search.panel))
	return s
}

// refresh rebuilds the sidebar's order: user conversations, newest first, archived ones only
// when asked for.
func (s *sidebar) refresh() {
	s.convs = s.convs[:0]
	for _, cs := range s.m.convs {
		if cs.conv.IsSubAgent() || !cs.listed {
			continue
		}
		if cs.conv.Archived && !s.showArchived {
			continue
		}
		s.convs = append(s.convs, cs)
	}
	slices.SortFunc(s.convs, func(a, b *convState) int {
		if c := b.conv.UpdatedAt.Compare(a.conv.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	titles := make([]string, len(s.convs))
	for i, cs := range s.convs {
		titles[i] = transcript.Title(cs.conv.Title, cs.conv.Cwd)
	}
	s.titles = map[*convState]string{}
	for i, t := range distinctTitles(titles) {
		s.titles[s.convs[i]] = t
	}
	s.tellRepeatsApart(titles)
	looks := make([]rowLook, len(s.convs))
	for i, cs := range s.convs {
		looks[i] = s.lookOf(cs)
	}
	if slices.Equal(s.convs, s.shownConvs) && s.selected == s.m.current && s.gen == s.m.gen {
		// The same rows in the same order: only those whose look changed are drawn again
		// (a tool round changes its conversation's state word twice), each by the row
		// widget that shows it; the list's own Refresh would rebind every row.
		for i, look := range looks {
			if r := s.bound[i]; look != s.shown[i] && r != nil && r.cs == s.convs[i] {
				r.bind(s.convs[i])
			}
		}
		s.shown = looks
		return
	}
	if len(s.convs) == len(s.shownConvs) && s.selected == s.m.current && s.gen == s.m.gen &&
		slices.Index(s.convs, s.m.current) == slices.Index(s.shownConvs, s.m.current) {
		// The same number of rows in another order, the open conversation's mark where it
		// was (nearly every turn, when conversations take turns): the rows on screen are
		// bound again in place, those whose conversation or look changed. The list's own
		// Refresh would make a row to measure (kept a minute by Fyne's renderer cache) and
		// rebind every row, shaping each text again: most of what a turn allocated in the
		// window soak. Rows off screen are bound when the list shows them (UpdateItem).
		for i, look := range looks {
			r := s.bound[i]
			if r == nil || r.id != i || (r.cs == s.convs[i] && look == s.shown[i]) {
				continue // not on screen, or showing this already
			}
			r.bind(s.convs[i])
		}
		s.shown, s.shownConvs = looks, append(s.shownConvs[:0], s.convs...)
		return
	}
	s.shown, s.shownConvs, s.selected, s.gen = looks, slices.Clone(s.convs), s.m.current, s.m.gen
	clear(s.bound) // the refresh binds again the rows it shows
	s.list.Refresh()
	s.selectCurrent(false)
}

// titleOf is a row's title as the sidebar shows it (distinctTitles).
func (s *sidebar) titleOf(cs *convState) string {
	if t, ok := s.titles[cs]; ok {
		return t
	}
	return transcript.Title(cs.conv.Title, cs.conv.Cwd)
}

// selectCurrent highlights the open conversation without re-opening it. reveal scrolls the
// list to it, for a conversation the person just went to; otherwise (a row archived, deleted
// or shown above it) the list stays where the person left it (issue 41).
func (s *sidebar) selectCurrent(reveal bool) {
	i := slices.Index(s.convs, s.m.current)
	if s.m.current == nil || i < 0 {
		s.list.UnselectAll()
		return
	}
	offset := s.list.GetScrollOffset()
	s.selecting = true
	s.list.Select(i)
	s.selecting = false
	if !reveal {
		s.list.ScrollToOffset(offset)
	}
}

// setArchived archives or restores a conversation.
func (m *MainWindow) setArchived(cs *convState, archived bool) {
	go func() {
		ctx, cancel := context.WithTimeout(m.ctx, callTimeout)
		defer cancel()
		err := m.b.SetArchived(ctx, cs.id, archived)
		m.do(func() {
			if err != nil {
				verb := "archive"
				if !archived {
					verb = "restore"
				}
				m.showInline(fmt.Sprintf("Could not %s the conversation: %v.", verb, err))
				return
			}
			cs.conv.Archived = archived
			m.sidebar.refresh()
			title := transcript.Title(cs.conv.Title, cs.conv.Cwd)
			if archived {
				m.showDoneWithAction(fmt.Sprintf("Archived “%s”: it is listed under Show archived.", title), "Undo",
					func() { m.setArchived(cs, false) })
			} else {
				m.showDone(fmt.Sprintf("“%s” is back in the list.", title))
			}
		})
	}()
}
