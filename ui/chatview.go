package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// chatView shows one conversation's rows in a widget.List. Rows are measured when the list
// first shows them, and their heights are handed to the list on the next turn of the UI loop
// (never from inside the list's own update, which would re-enter it). A conversation of 10,000
// messages therefore costs only the rows on screen.
//
// Everything here runs on the UI goroutine.
type chatView struct {
	m        *MainWindow
	cs       *convState
	readOnly bool
	list     *widget.List
	// wheelCatcher lies over list and scrolls it by lines (scrolling.go).
	wheelCatcher *wheelCatcher

	// heights mirrors what the list was told with SetItemHeight; known and nKnown sum it, so
	// the content height is known without walking 10,000 rows.
	heights map[int]float32
	known   float32
	nKnown  int
	// heightsVer grows whenever heights changes (chatselect.go keeps the rows' tops by it).
	heightsVer int
	// pending heights wait for applyHeights.
	pending   map[int]float32
	fixQueued bool
	// measured caches each row's height at one width.
	measured map[*row]rowMeasure
	// follow keeps the newest row in view while the person has not scrolled up.
	follow bool
	// pinned makes the next change follow whatever the scroll position: the person has just
	// sent a message and wants to see it and its answer.
	pinned bool
	// lastGen is the window's generation this view was last drawn for.
	lastGen int
	// drawnLen is how many rows the model had at the last change: one that shrank is drawn
	// by a refresh of the whole list (changed).
	drawnLen int
	// width is the rows' width; when it changes, every row on screen is measured again.
	width         float32
	refreshQueued bool
	// findQ is what the find bar highlights in the rows, and findKey the key of the row of
	// its current match (findbar.go).
	findQ, findKey string
	// hitWords are the words of the search hit that opened this conversation, highlighted in
	// the row with key hitKey until the next click in the chat (globalsearch.go).
	hitWords []string
	hitKey   string
	// drawnAtGuess counts the rows the list laid out at a height that was not yet theirs and
	// kept so until the next turn of the UI loop: for a frame they overlapped their neighbour
	// or left a gap (chatopen.go keeps it at zero on opening).
	drawnAtGuess int
	// centring is a row kept in the middle of the view (chatcenter.go).
	centring *centring
	// sel is a selection across messages (chatselect.go).
	sel *chatSelection
}

type rowMeasure struct {
	ver, gen int
	width, h float32
}

func newChatView(m *MainWindow, cs *convState, readOnly bool) *chatView {
	cv := &chatView{m: m, cs: cs, readOnly: readOnly, heights: map[int]float32{}, pending: map[int]float32{},
		measured: map[*row]rowMeasure{}, follow: true}
	cv.sel = newChatSelection(cv)
	cv.list = widget.NewList(
		func() int { return cv.cs.model.len() },
		func() fyne.CanvasObject { return newRowView(cv) },
		cv.updateItem,
	)
	cv.list.HideSeparators = true
	cv.wheelCatcher = newWheelCatcher(cv.wheel)
	// Rows are not selectable: a tap on a row leaves the keys to the window, which scrolls
	// the chat with them (scrolling.go; the list itself would take only Up and Down); buttons
	// inside rows take their own taps.
	cv.list.OnSelected = func(id widget.ListItemID) {
		cv.list.Unselect(id)
		cv.clearHit()
		if c := fyne.CurrentApp().Driver().CanvasForObject(cv.list); c != nil && c.Focused() == fyne.Focusable(cv.list) {
			c.Unfocus()
		}
	}
	return cv
}

func (cv *chatView) updateItem(id widget.ListItemID, o fyne.CanvasObject) {
	r := cv.cs.model.at(id)
	if r == nil {
		return
	}
	v := o.(*rowView)
	v.bind(r)
	cv.sel.bound(id, v)
	w := cv.list.Size().Width
	if w <= 0 {
		return
	}
	mc, ok := cv.measured[r]
	if !ok || mc.ver != r.ver || mc.gen != cv.m.gen || mc.width != w {
		mc = rowMeasure{ver: r.ver, gen: cv.m.gen, width: w, h: v.heightAt(w)}
		cv.measured[r] = mc
	}
	if h, ok := cv.heights[id]; !ok || h != mc.h {
		cv.pending[id] = mc.h
		if !cv.fixQueued {
			cv.fixQueued = true
			cv.m.do(cv.applyHeights)
		}
	}
}

// applyHeights hands measured heights to the list.
func (cv *chatView) applyHeights() {
	cv.fixQueued = false
	if len(cv.pending) == 0 {
		return
	}
	// Keep following only if the person has not scrolled away since the last change.
	cv.follow = cv.follow && cv.atBottom(estimatedRowHeight)
	pending := cv.pending
	cv.pending = map[int]float32{}
	// The rows on screen in the frame drawn since the list laid them out.
	first, _ := cv.sel.rowAtContentY(cv.list.GetScrollOffset())
	last, _ := cv.sel.rowAtContentY(cv.list.GetScrollOffset() + cv.list.Size().Height)
	for id, h := range pending {
		if id >= cv.cs.model.len() {
			continue
		}
		if old, ok := cv.heights[id]; (!ok || old != h) && id >= first && id <= last {
			cv.drawnAtGuess++
		}
		cv.setKnown(id, h)
		cv.list.SetItemHeight(id, h)
	}
	switch {
	case cv.centring != nil:
		cv.recenter()
	case cv.follow:
		cv.list.ScrollToBottom()
	}
}

func (cv *chatView) setKnown(id int, h float32) {
	if old, had := cv.heights[id]; had {
		cv.known -= old
	} else {
		cv.nKnown++
	}
	cv.heights[id] = h
	cv.known += h
	cv.heightsVer++
}

// prune forgets heights of rows that no longer exist (a live row went away), so that the
// mirror matches the list, which ignores them too.
func (cv *chatView) prune() {
	n := cv.cs.model.len()
	for id := range cv.heights {
		if id >= n {
			cv.known -= cv.heights[id]
			cv.nKnown--
			cv.heightsVer++
			delete(cv.heights, id)
		}
	}
}

// contentHeight is the list's content height as the list computes it.
func (cv *chatView) contentHeight() float32 {
	n := cv.cs.model.len()
	if n == 0 {
		return 0
	}
	return cv.known + float32(n-cv.nKnown)*estimatedRowHeight + theme.Padding()*float32(n-1)
}

// atBottom reports whether the end of the content is in view, with slack for rounding.
func (cv *chatView) atBottom(slack float32) bool {
	view := cv.list.Size().Height
	return cv.list.GetScrollOffset()+view >= cv.contentHeight()-theme.Padding()-slack
}

// noteFollow records, before the model changes, whether the newest row is in view; only
// then does the view follow new rows.
func (cv *chatView) noteFollow() {
	cv.follow = cv.pinned || cv.atBottom(estimatedRowHeight/2)
}

// noteWidth learns the rows' width from their layout. The list re-binds only rows that come
// into view when it is resized, so a new width asks for a full refresh, which measures the
// rows on screen at the new width (the heights cache is per width).
func (cv *chatView) noteWidth(w float32) {
	if w <= 0 || w == cv.width {
		return
	}
	first := cv.width == 0
	cv.width = w
	if first || cv.refreshQueued {
		return
	}
	cv.refreshQueued = true
	cv.m.do(func() {
		cv.refreshQueued = false
		cv.list.Refresh()
	})
}

// changed re-draws after the model changed; the newest row stays in view if it was.
func (cv *chatView) changed() {
	cv.prune()
	n := cv.cs.model.len()
	grew := n >= cv.drawnLen
	cv.drawnLen = n
	if cv.follow && grew && cv.contentHeight() > cv.list.Size().Height {
		// Rows were added at the end or changed in place (a tool round) of rows taller than
		// the view: the rows on screen that changed are bound again, and the new ones come
		// into view as the list scrolls to them, when it binds only rows new to the view.
		// The list's own Refresh would rebind every row on screen and build a row widget to
		// measure, at every state change of a round (issue 39, the round in the window).
		// Rows that fit in the view do not scroll when one is added, and the list would bind
		// none: those are refreshed whole below.
		for id, v := range cv.sel.byID {
			if id < n {
				cv.updateItem(id, v)
			}
		}
		cv.list.ScrollToBottom()
		cv.pinned = false
		return
	}
	cv.list.Refresh()
	if cv.follow {
		cv.list.ScrollToBottom()
		cv.pinned = false
	}
}

// rowChanged re-draws after a row changed in place (a tool row expanded) without scrolling.
func (cv *chatView) rowChanged() {
	cv.follow = false
	cv.list.Refresh()
}

// remeasure measures the rows again after one changed its height without changing its
// content (a code block's Wrap toggle).
func (cv *chatView) remeasure() {
	cv.measured = map[*row]rowMeasure{}
	cv.rowChanged()
}

// chatFill lays the chat (or the empty state) over the whole room between the header and the
// composer. That room changes height when something below or above the chat comes or goes —
// a notice, a card, the task panel, the full-disk banner — and a chat that showed its newest
// row before goes on showing it: the list keeps its scroll offset when resized, which would
// otherwise leave the newest rows under the new neighbour (seen in the full-disk real-window
// test, where the notice of the failed save hid the turn's end).
type chatFill struct {
	m    *MainWindow
	last float32
}

func (l *chatFill) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	cv := l.m.cv
	follow := false
	for _, o := range objs {
		if cv != nil && o == cv.list && l.last > 0 && size.Height != l.last {
			// Measured with the old size, before the resize; a person who scrolled up to read
			// stays where they are.
			follow = cv.atBottom(estimatedRowHeight / 2)
		}
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	l.last = size.Height
	if follow {
		cv.follow = true
		cv.list.ScrollToBottom()
	}
}

func (l *chatFill) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var min fyne.Size
	for _, o := range objs {
		min = min.Max(o.MinSize())
	}
	return min
}
