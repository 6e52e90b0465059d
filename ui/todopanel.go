package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The task list panel (issue 27): the model's todo list as a checklist above the composer,
// updated as each todo call's result is committed. The list is read from the open
// conversation's messages (domain.TodoList, its one home), so a restart, a fork or another
// window shows the same list. The panel is hidden while there is no list, and folds to its
// one-line header with the arrow, a choice that holds for every conversation of the window.

// todoVisibleLines is how many tasks the open panel shows before it scrolls, so that a long
// list never pushes the chat out of the window.
const todoVisibleLines = 8

type todoPanel struct {
	m *MainWindow
	// box is the whole panel, hidden when the open conversation has no list.
	box     *fyne.Container
	summary *widget.Label
	toggle  *button.Button
	list    *fyne.Container
	scroll  *container.Scroll
	lines   []*todoLine
	// collapsed is the person's choice to see only the header; short is a window too low
	// for the lines (smallscreen.go), which folds it too.
	collapsed bool
	short     bool
	// items is the list shown, read from conversation convID when it had seen messages: a
	// history only grows, so the list is read again only when the count changes.
	items  []domain.TodoItem
	convID string
	seen   int
}

type todoLine struct {
	icon *widget.Icon
	text *widget.RichText
	obj  fyne.CanvasObject
}

func newTodoPanel(m *MainWindow) *todoPanel {
	p := &todoPanel{m: m, summary: widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}),
		list: container.NewVBox()}
	p.summary.Truncation = fyne.TextTruncateEllipsis
	p.toggle = button.NewWithIcon("", theme.MenuDropUpIcon(), func() {
		p.collapsed = !p.collapsed
		p.show()
		m.relayout()
	})
	p.toggle.Importance = widget.LowImportance
	p.scroll = container.NewVScroll(p.list)
	header := container.NewBorder(nil, nil, widget.NewIcon(theme.ListIcon()), p.toggle, p.summary)
	p.box = container.NewVBox(header, p.scroll)
	p.box.Hide()
	return p
}

// refresh shows the open conversation's list.
func (p *todoPanel) refresh() {
	cs := p.m.current
	if cs == nil {
		p.items, p.convID, p.seen = nil, "", 0
		p.box.Hide()
		return
	}
	if cs.id != p.convID || len(cs.msgs) != p.seen {
		p.items, p.convID, p.seen = domain.TodoList(cs.msgs), cs.id, len(cs.msgs)
		p.show()
	}
}

// show draws p.items. The panel's height changes with it, and so does the chat's above it,
// whose holder keeps a chat that followed its newest row at its end (chatFill).
func (p *todoPanel) show() {
	if len(p.items) == 0 {
		p.box.Hide()
		return
	}
	p.summary.SetText("Tasks: " + transcript.TodoSummary(p.items))
	if p.collapsed || p.short {
		p.toggle.SetIcon(theme.MenuDropDownIcon())
		p.scroll.Hide()
		p.box.Show()
		return
	}
	p.toggle.SetIcon(theme.MenuDropUpIcon())
	for len(p.lines) < len(p.items) {
		p.lines = append(p.lines, newTodoLine())
	}
	p.list.Objects = p.list.Objects[:0]
	for i, it := range p.items {
		l := p.lines[i]
		l.set(it)
		p.list.Objects = append(p.list.Objects, l.obj)
	}
	p.list.Refresh()
	// As tall as the tasks, up to todoVisibleLines of them; the rest scroll.
	h := float32(0)
	for i, o := range p.list.Objects {
		if i == todoVisibleLines {
			break
		}
		h += o.MinSize().Height + theme.Padding()
	}
	p.scroll.SetMinSize(fyne.NewSize(0, h))
	p.scroll.Show()
	p.box.Show()
}

func newTodoLine() *todoLine {
	l := &todoLine{icon: widget.NewIcon(nil), text: widget.NewRichText()}
	l.text.Truncation = fyne.TextTruncateEllipsis
	l.obj = container.NewBorder(nil, nil, l.icon, nil, l.text)
	return l
}

// set shows one task: a ticked box and dimmed words when done, the play mark and bold words
// while in progress, an empty box before.
func (l *todoLine) set(it domain.TodoItem) {
	style := widget.RichTextStyle{Inline: true}
	switch it.Status {
	case domain.TodoDone:
		l.icon.SetResource(theme.CheckButtonCheckedIcon())
		style.ColorName = theme.ColorNamePlaceHolder
	case domain.TodoInProgress:
		l.icon.SetResource(theme.MediaPlayIcon())
		style.TextStyle.Bold = true
	default:
		l.icon.SetResource(theme.CheckButtonIcon())
	}
	setPlain(l.text, it.Content, style)
}
