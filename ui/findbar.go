package ui

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// findBar is Find in the open conversation (Ctrl+F): a field, the count of matches, next,
// previous and close. It sits under the header, hidden until asked for.
type findBar struct {
	m     *MainWindow
	box   *fyne.Container
	entry *escEntry
	count *widget.Label
	// hits are the rows that match, oldest first; pos is the one shown.
	hits []int
	pos  int
}

func newFindBar(m *MainWindow) *findBar {
	f := &findBar{m: m, entry: newEscEntry(), count: widget.NewLabel("")}
	f.entry.onEscape = f.close
	f.entry.SetPlaceHolder("Find in conversation")
	f.entry.OnChanged = func(string) { f.run() }
	f.entry.OnSubmitted = func(string) { f.step(1) }
	f.box = container.NewBorder(nil, nil, widget.NewIcon(theme.SearchIcon()), container.NewHBox(f.count,
		widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { f.step(-1) }),
		widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { f.step(1) }),
		widget.NewButtonWithIcon("", theme.CancelIcon(), f.hide)), f.entry)
	f.box.Hide()
	return f
}

// show opens the find bar (Ctrl+F).
func (f *findBar) show() {
	m := f.m
	if m.current == nil {
		return
	}
	f.box.Show()
	m.relayout()
	m.win.Canvas().Focus(f.entry)
	f.run()
}

func (f *findBar) hide() {
	if !f.box.Hidden {
		f.box.Hide()
		f.m.relayout()
	}
	f.hits, f.pos = nil, 0
	f.count.SetText("")
}

// close is Escape in the find bar: the bar closes and the focus goes back to the composer.
func (f *findBar) close() {
	f.hide()
	if e := f.m.composer.entry; !e.Disabled() {
		f.m.win.Canvas().Focus(e)
	}
}

// run searches the open conversation; the newest hit comes first.
func (f *findBar) run() {
	if f.m.current == nil {
		return
	}
	f.hits = f.m.current.model.find(f.entry.Text)
	f.pos = len(f.hits) - 1
	f.showHit()
}

// step moves to the next (1) or previous (-1) hit, wrapping around.
func (f *findBar) step(d int) {
	if len(f.hits) == 0 {
		return
	}
	f.pos = (f.pos + d + len(f.hits)) % len(f.hits)
	f.showHit()
}

func (f *findBar) showHit() {
	switch {
	case strings.TrimSpace(f.entry.Text) == "":
		f.count.SetText("")
	case len(f.hits) == 0:
		f.count.SetText("No matches")
	default:
		f.count.SetText(fmt.Sprintf("%d of %d", f.pos+1, len(f.hits)))
		if cv := f.m.cv; cv != nil {
			cv.scrollTo(f.hits[f.pos])
		}
	}
}
