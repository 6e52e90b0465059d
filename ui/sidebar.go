package ui

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
)

// sideRow is one conversation in the sidebar: a state dot, the title, the time, a subtitle
// and an archive button.
type sideRow struct {
	widget.BaseWidget
	m       *MainWindow
	cs      *convState
	dot     *canvas.Circle
	title   *widget.Label
	sub     *widget.Label
	when    *widget.Label
	archive *widget.Button
	remove  *widget.Button
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
	r.archive = widget.NewButtonWithIcon("", theme.DownloadIcon(), func() {
		if r.cs != nil {
			m.setArchived(r.cs, !r.cs.conv.Archived)
		}
	})
	r.archive.Importance = widget.LowImportance
	r.remove = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { m.askDelete(r.cs) })
	r.remove.Importance = widget.LowImportance
	text := container.New(&column{Gap: -pad() * 2}, container.NewBorder(nil, nil, nil, r.when, r.title), r.sub)
	r.obj = container.NewBorder(nil, nil, dotObj, container.NewHBox(r.archive, r.remove), text)
	r.ExtendBaseWidget(r)
	return r
}

func (r *sideRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.obj) }

func (r *sideRow) bind(cs *convState) {
	r.cs = cs
	c := cs.conv
	r.title.SetText(transcript.Title(c.Title, c.Cwd))
	kind := cs.stateKind(cs.listKind)
	sub := transcript.StateWord(kind)
	if c.Cwd != "" {
		sub = shortPath(c.Cwd) + " · " + sub
	}
	r.sub.SetText(sub)
	r.when.SetText(listTime(c.UpdatedAt, r.m.now()))
	r.dot.FillColor = theme.Color(stateColor(kind))
	r.dot.Refresh()
	if c.Archived {
		r.archive.SetIcon(theme.UploadIcon())
	} else {
		r.archive.SetIcon(theme.DownloadIcon())
	}
}

// shortPath shows the last two elements of a path.
func shortPath(p string) string {
	parts := strings.Split(strings.TrimRight(p, "/"), "/")
	if len(parts) <= 2 {
		return p
	}
	return "…/" + strings.Join(parts[len(parts)-2:], "/")
}

func (m *MainWindow) newSidebarList() *widget.List {
	l := widget.NewList(
		func() int { return len(m.side) },
		func() fyne.CanvasObject { return newSideRow(m) },
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < len(m.side) {
				o.(*sideRow).bind(m.side[id])
			}
		})
	l.OnSelected = func(id widget.ListItemID) {
		if !m.selecting && id < len(m.side) {
			m.open(m.side[id].id)
		}
	}
	return l
}

// refreshSidebar rebuilds the sidebar's order: user conversations, newest first, archived
// ones only when asked for.
func (m *MainWindow) refreshSidebar() {
	m.side = m.side[:0]
	for _, cs := range m.convs {
		if cs.conv.IsSubAgent() || !cs.listed {
			continue
		}
		if cs.conv.Archived && !m.showArchived {
			continue
		}
		m.side = append(m.side, cs)
	}
	slices.SortFunc(m.side, func(a, b *convState) int {
		if c := b.conv.UpdatedAt.Compare(a.conv.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	m.sideList.Refresh()
	m.selectInSidebar()
}

// selectInSidebar highlights the open conversation without re-opening it.
func (m *MainWindow) selectInSidebar() {
	if m.current == nil {
		m.sideList.UnselectAll()
		return
	}
	i := slices.Index(m.side, m.current)
	if i < 0 {
		m.sideList.UnselectAll()
		return
	}
	m.selecting = true
	m.sideList.Select(i)
	m.selecting = false
}
