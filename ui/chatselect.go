package ui

import (
	"math"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// chatSelection is the chat list's coordinator of a selection that spans messages (issue
// 28): press in one message, drag into another (the list scrolls when the pointer leaves
// its top or bottom edge), and the end of the first, every message between and the start of
// the last are selected; Ctrl+C or the context menu's Copy copies them as plain text, one
// blank line between messages. Shift+click in another message extends a selection; a click
// anywhere else ends it.
//
// A selection inside one message is the message's own (markdown.View), exactly as before:
// the coordinator takes over only when the pointer reaches another row, and hands the
// selection back when it returns. The list builds only the rows on screen and recycles their
// widgets, so the selection lives here as two places (row index and offset in the row's
// text, see selPoint), and every row the list binds draws its part of it (bound).
//
// Only the conversation's words take part: the person's messages, the agent's replies and a
// continuation summary, as shown (Markdown as the words a reader sees). Tool rows, reasoning,
// the streaming reply and notices are passed over: they are not what was said, a tool's
// output can be megabytes that would bury the words around it, and each still copies on its
// own (a tool's output view keeps its own selection).
//
// Everything here runs on the UI goroutine.
type chatSelection struct {
	cv *chatView
	// active is whether a selection across rows exists; anchor is where it began, focus
	// where it ends now (before or after anchor).
	active        bool
	anchor, focus selPoint
	// owner is the view that has the focus while the selection exists: Ctrl+C reaches it,
	// and its losing the focus (a click elsewhere) ends the selection.
	owner *markdown.View
	// byID and ofView are the row widgets the list bound, by item id (recycled widgets move).
	byID   map[int]*rowView
	ofView map[*rowView]int
	// drawn are the views that show a part of the selection now.
	drawn map[*markdown.View]bool
	// last is the latest drag step; tick repeats it while the pointer stays beyond an edge.
	last dragStep
	tick chan struct{}
	// tops are the rows' tops in the list's content, for heights version ver (rowAtContentY).
	tops struct {
		at  []float32
		ver int
		gap float32
	}
}

// selPoint is a place in the chat: row index and byte offset in the row's text (0 in a row
// without text). r is the row at that index when the point was set: a selection whose row
// moved or went away ends.
type selPoint struct {
	row, off int
	r        *row
}

type dragStep struct {
	v    *markdown.View
	from int
	abs  fyne.Position
}

func newChatSelection(cv *chatView) *chatSelection {
	return &chatSelection{cv: cv, byID: map[int]*rowView{}, ofView: map[*rowView]int{}, drawn: map[*markdown.View]bool{}}
}

// selectableText is the text row r contributes to a selection across rows, as its view shows
// it (markdown.View.Text), and whether it takes part at all. The parts that take part say
// which view shows it (selectable); TestSelectableTextIsWhatRowsShow holds the two together.
func selectableText(r *row) (string, bool) {
	if r == nil || r.msg == nil {
		return "", false
	}
	switch r.kind {
	case rowUser:
		return r.msg.Text, true
	case rowAssistant, rowContinuation:
		return markdown.TextOf(r.msg.Text), true
	}
	return "", false
}

func (p *userPart) selectable() *markdown.View         { return p.text }
func (p *textPart) selectable() *markdown.View         { return p.text }
func (p *continuationPart) selectable() *markdown.View { return p.text }

// selectable is the view that shows the bound row's text for a selection across rows, or nil.
func (v *rowView) selectable() *markdown.View {
	if v.bound == nil {
		return nil
	}
	if p, ok := v.parts[v.bound.kind].(interface{ selectable() *markdown.View }); ok {
		return p.selectable()
	}
	return nil
}

// bound records that the list shows row id in v, and has v draw its part of the selection.
func (s *chatSelection) bound(id int, v *rowView) {
	if old, ok := s.ofView[v]; ok && s.byID[old] == v {
		delete(s.byID, old)
	}
	s.byID[id], s.ofView[v] = v, id
	if len(s.ofView) > 4*maxOnScreen {
		s.prune()
	}
	if s.active || len(s.drawn) > 0 {
		s.drawRow(id, v)
	}
}

// maxOnScreen bounds the rows a window shows at once, for pruning the widgets the list has
// dropped.
const maxOnScreen = 64

// prune forgets widgets the list no longer shows (it drops its pool on a full refresh): only
// rows near the screen are kept.
func (s *chatSelection) prune() {
	top, _ := s.rowAtContentY(s.cv.list.GetScrollOffset())
	for v, id := range s.ofView {
		if id < top-maxOnScreen || id > top+2*maxOnScreen || s.byID[id] != v {
			delete(s.ofView, v)
			if s.byID[id] == v {
				delete(s.byID, id)
			}
		}
	}
}

// shown is the widget showing row id now, if any.
func (s *chatSelection) shown(id int) *rowView {
	v := s.byID[id]
	if v == nil || v.bound == nil || v.bound != s.cv.cs.model.at(id) {
		return nil
	}
	return v
}

// rowOf is the index of the row whose text view is t.
func (s *chatSelection) rowOf(t *markdown.View) (int, bool) {
	for id, v := range s.byID {
		if s.shown(id) == v && v.selectable() == t {
			return id, true
		}
	}
	return 0, false
}

func (s *chatSelection) point(id, off int) selPoint {
	return selPoint{row: id, off: off, r: s.cv.cs.model.at(id)}
}

// valid reports whether the selection's rows are still where they were.
func (s *chatSelection) valid() bool {
	m := s.cv.cs.model
	return m.at(s.anchor.row) == s.anchor.r && m.at(s.focus.row) == s.focus.r
}

// ordered is the selection's start and end.
func (s *chatSelection) ordered() (a, b selPoint) {
	a, b = s.anchor, s.focus
	if b.row < a.row || (b.row == a.row && b.off < a.off) {
		a, b = b, a
	}
	return a, b
}

// rangeIn is the part of row id's text that is selected.
func (s *chatSelection) rangeIn(id int) (a, b int, ok bool) {
	start, end := s.ordered()
	if !s.active || id < start.row || id > end.row {
		return 0, 0, false
	}
	a, b = 0, math.MaxInt
	if id == start.row {
		a = start.off
	}
	if id == end.row {
		b = end.off
	}
	return a, b, true
}

// set makes the selection run from anchor to focus, held by owner, and draws it.
func (s *chatSelection) set(owner *markdown.View, anchor, focus selPoint) {
	s.active, s.owner, s.anchor, s.focus = true, owner, anchor, focus
	s.draw()
}

// clear ends the selection and takes its highlights away.
func (s *chatSelection) clear() {
	s.active, s.owner = false, nil
	s.autoScroll(false)
	for t := range s.drawn {
		t.ClearSelection()
	}
	clear(s.drawn)
}

// draw has every row on screen show its part of the selection.
func (s *chatSelection) draw() {
	if s.active && !s.valid() {
		s.clear()
		return
	}
	for id, v := range s.byID {
		s.drawRow(id, v)
	}
}

func (s *chatSelection) drawRow(id int, v *rowView) {
	if s.shown(id) != v {
		return
	}
	t := v.selectable()
	if t == nil {
		return
	}
	if a, b, ok := s.rangeIn(id); ok && s.valid() {
		t.SelectRange(a, b)
		s.drawn[t] = true
		return
	}
	if s.drawn[t] {
		delete(s.drawn, t)
		t.ClearSelection()
	}
}

// text is the selection as Ctrl+C copies it: each row's selected text in order, a blank line
// between rows.
func (s *chatSelection) text() string {
	start, end := s.ordered()
	var parts []string
	for id := start.row; id <= end.row; id++ {
		t, ok := selectableText(s.cv.cs.model.at(id))
		if !ok {
			continue
		}
		a, b, _ := s.rangeIn(id)
		a, b = min(a, len(t)), min(b, len(t))
		if a >= b {
			continue
		}
		// A selection that starts at the end of a block or ends at the start of the next
		// leaves out the break between them, as a view's own selection does.
		piece := t[a:b]
		if a > 0 {
			piece = strings.TrimLeft(piece, "\n")
		}
		if b < len(t) {
			piece = strings.TrimRight(piece, "\n")
		}
		if piece != "" {
			parts = append(parts, piece)
		}
	}
	return strings.Join(parts, "\n\n")
}

// The markdown.Spanner the chat's views are given (markdownView).

func (s *chatSelection) Press(*markdown.View) {
	s.cv.clearHit()
	if s.active {
		s.clear()
	}
}

func (s *chatSelection) ShiftPress(t *markdown.View, off int) bool {
	id, ok := s.rowOf(t)
	if !ok {
		return false
	}
	if s.active {
		s.set(s.owner, s.anchor, s.point(id, off))
		return true
	}
	// A selection made inside one message (the focused view's own) grows into this one.
	c := fyne.CurrentApp().Driver().CanvasForObject(t) // the main window's or a sub-agent's
	if c == nil {
		return false
	}
	f, _ := c.Focused().(*markdown.View)
	if f == nil || f == t {
		return false
	}
	a, _, ok := f.Selection()
	fid, inChat := s.rowOf(f)
	if !ok || !inChat {
		return false
	}
	s.set(f, s.point(fid, a), s.point(id, off))
	return true
}

func (s *chatSelection) DragTo(t *markdown.View, from int, abs fyne.Position, inside bool) bool {
	if inside && !s.active {
		return false // within the message where the drag began, as before
	}
	// Once the selection spans rows its anchor is kept here: the row where the drag began
	// may have scrolled away, and its view been recycled for another row.
	anchor := s.anchor
	if !s.active || s.owner != t {
		vid, ok := s.rowOf(t)
		if !ok {
			return false // a view that is not a message's text (a tool's output) selects on its own
		}
		anchor = s.point(vid, from)
	}
	s.last = dragStep{t, from, abs}
	edges := s.listEdges()
	d := edges.scrollBy(abs)
	if d != 0 {
		s.cv.follow = false
		s.cv.list.ScrollToOffset(s.cv.list.GetScrollOffset() + d)
	}
	id, at := s.rowAt(abs, edges)
	if v := s.shown(id); id == anchor.row && v != nil && v.selectable() == t {
		// Back in the message where the drag began: its view selects on its own again.
		if s.active {
			s.clear()
		}
		s.autoScroll(d != 0)
		return false
	}
	s.autoScroll(d != 0)
	off := 0
	if v := s.shown(id); v != nil {
		if tv := v.selectable(); tv != nil {
			off = tv.OffsetAt(at.Subtract(absPos(tv)))
		}
	}
	s.set(t, anchor, s.point(id, off))
	return true
}

func (s *chatSelection) DragEnd(*markdown.View) {
	s.autoScroll(false)
	dragged := s.last.v != nil
	s.last = dragStep{}
	if dragged && s.active {
		s.keepFocus()
	}
}

// FocusLost ends the selection when its owner loses the focus, except during a drag: the
// desktop driver takes the focus away when the button is released over nothing focusable
// (above the chat, where the list scrolled), before it ends the drag; DragEnd gives it back.
func (s *chatSelection) FocusLost(t *markdown.View) {
	if s.active && t == s.owner && s.last.v == nil {
		s.clear()
	}
}

// keepFocus gives the focus to a view of the selection, so that Ctrl+C reaches it: its
// owner if it still shows its row, else the view of the row where the selection ends (under
// the pointer), else any on screen.
func (s *chatSelection) keepFocus() {
	t := s.owner
	if _, shown := s.rowOf(t); !shown {
		t = nil
		if v := s.shown(s.focus.row); v != nil {
			t = v.selectable()
		}
		for id, v := range s.byID {
			if _, _, in := s.rangeIn(id); t == nil && in && s.shown(id) == v {
				t = v.selectable()
			}
		}
	}
	// The main window's canvas or a sub-agent's.
	if c := fyne.CurrentApp().Driver().CanvasForObject(s.cv.list); c != nil && t != nil && c.Focused() != t {
		s.owner = t
		c.Focus(t)
	}
	s.draw()
}

func (s *chatSelection) SpanText(*markdown.View) (string, bool) {
	if !s.active || !s.valid() {
		return "", false
	}
	return s.text(), true
}
