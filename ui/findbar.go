package ui

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// findBar is Find in the open conversation (Ctrl+F): a field, the count of matches, next,
// previous and close. It sits under the header, hidden until asked for. Every match in the
// rows' text is highlighted, those of the current row more strongly (markdown.View.Mark);
// Enter goes to the next row with a match, Shift+Enter to the previous one, Escape closes
// the bar and takes the highlights away.
type findBar struct {
	m     *MainWindow
	box   *fyne.Container
	entry *findEntry
	count *widget.Label
	// hits are the rows that match, oldest first; pos is the one shown.
	hits []int
	pos  int
	// marked is the chat view that shows the highlights.
	marked *chatView
}

func newFindBar(m *MainWindow) *findBar {
	f := &findBar{m: m, entry: newFindEntry(), count: widget.NewLabel("")}
	f.entry.onEscape = f.close
	f.entry.onStep = f.step
	f.entry.SetPlaceHolder("Find in conversation")
	f.entry.OnChanged = func(string) { f.run() }
	f.box = container.NewBorder(nil, nil, widget.NewIcon(theme.SearchIcon()), container.NewHBox(f.count,
		button.NewWithIcon("", theme.MoveUpIcon(), func() { f.step(-1) }),
		button.NewWithIcon("", theme.MoveDownIcon(), func() { f.step(1) }),
		button.NewWithIcon("", theme.CancelIcon(), f.hide)), f.entry)
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
	m.foldMeter() // findsmall.go
	m.relayout()
	m.win.Canvas().Focus(f.entry)
	f.run()
}

func (f *findBar) hide() {
	if !f.box.Hidden {
		f.box.Hide()
		f.m.foldMeter()
		f.m.relayout()
	}
	f.hits, f.pos = nil, 0
	f.count.SetText("")
	f.setMarks(nil, "", "")
}

// setMarks has cv highlight q, strongly in the row with key current, and takes the
// highlights away from the view that showed them before.
func (f *findBar) setMarks(cv *chatView, q, current string) {
	if old := f.marked; old != nil && old != cv {
		old.findQ, old.findKey = "", ""
		old.list.Refresh()
	}
	f.marked = cv
	if cv == nil || (cv.findQ == q && cv.findKey == current) {
		return
	}
	cv.findQ, cv.findKey = q, current
	cv.list.Refresh()
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
	q := strings.TrimSpace(f.entry.Text)
	cv := f.m.cv
	switch {
	case q == "":
		f.count.SetText("")
		f.setMarks(cv, "", "")
	case len(f.hits) == 0:
		f.count.SetText("No matches")
		f.setMarks(cv, "", "")
	default:
		f.count.SetText(fmt.Sprintf("%d of %d", f.pos+1, len(f.hits)))
		if cv != nil {
			r := f.m.current.model.at(f.hits[f.pos])
			cv.hitWords, cv.hitKey = nil, ""
			if r.unfoldFor(q) {
				cv.rowChanged()
			}
			f.setMarks(cv, q, r.key)
			cv.center(f.hits[f.pos])
		}
	}
}

// findEntry is the find bar's field: Enter goes to the next match, Shift+Enter to the
// previous one, Escape closes the bar.
type findEntry struct {
	widget.Entry
	shiftKeys
	onEscape func()
	onStep   func(int)
}

func newFindEntry() *findEntry {
	e := &findEntry{}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	return e
}

// KeyDown tracks Shift, which decides the direction of Enter.
func (e *findEntry) KeyDown(k *fyne.KeyEvent) { e.note(k, true); e.Entry.KeyDown(k) }

// KeyUp tracks Shift.
func (e *findEntry) KeyUp(k *fyne.KeyEvent) { e.note(k, false); e.Entry.KeyUp(k) }

// TypedKey steps on Enter (back with Shift) and closes on Escape.
func (e *findEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyEscape:
		e.onEscape()
		return
	case fyne.KeyReturn, fyne.KeyEnter:
		if e.shift {
			e.onStep(-1)
		} else {
			e.onStep(1)
		}
		return
	}
	e.Entry.TypedKey(k)
}

// marksFor is what row r highlights: the find bar's query, strongly in the row of the
// current match; or else the words of the search hit that opened the conversation, in the
// hit's row (until the next click in the chat).
func (cv *chatView) marksFor(r *row) (words []string, strong bool) {
	switch {
	case cv.findQ != "":
		return []string{cv.findQ}, r.key == cv.findKey
	case cv.hitKey != "" && r.key == cv.hitKey:
		return cv.hitWords, true
	}
	return nil, false
}

// mark shows the highlights in the row's text (every Markdown or plain text view of its
// parts, and the plain text lines of notices and tool rows); it does nothing when they are
// already shown.
func (v *rowView) mark(words []string, strong bool) {
	if slices.Equal(words, v.markWords) && strong == v.markStrong {
		return
	}
	v.markWords, v.markStrong = slices.Clone(words), strong
	for _, p := range v.parts {
		eachTextView(p.object(), func(t *markdown.View) { t.MarkWords(words, strong) })
		if rm, ok := p.(richMarker); ok && p == v.parts[v.bound.kind] {
			rm.markRich(words, strong)
		}
	}
	v.marked = len(words) > 0
}

// eachTextView calls f for every Markdown view in o.
func eachTextView(o fyne.CanvasObject, f func(*markdown.View)) {
	switch o := o.(type) {
	case *markdown.View:
		f(o)
	case *fyne.Container:
		for _, c := range o.Objects {
			eachTextView(c, f)
		}
	}
}
