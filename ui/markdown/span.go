package markdown

import (
	"fyne.io/fyne/v2"
)

// A selection that runs past one view: the chat lets a person drag from one message into the
// next, as in any desktop chat. The views do not know their neighbours; a Spanner (the chat
// list's coordinator) does. A view hands it the pointer while dragging and asks it before
// pressing, copying and losing the focus; the Spanner answers whether it took over, and draws
// its part of a selection in each view with SelectRange. Places in a view's text are byte
// offsets in Text() ("flat" offsets), which stay the same whenever the same text is shown
// again, so a selection can outlive the views that showed it (a virtualized list recycles
// them).

// Spanner carries a selection across views; see Options.Span. Every method runs on the UI
// goroutine.
type Spanner interface {
	// Press is a plain press (or Select all) in v: a selection across views ends.
	Press(v *View)
	// ShiftPress is Shift+press at offset off of v; it reports whether it extended a
	// selection that began in another view (v then leaves its own selection alone).
	ShiftPress(v *View, off int) bool
	// DragTo is each step of a drag that began in v at offset from, with the pointer at abs
	// (absolute, possibly outside v; inside says it is over v); it reports whether it took
	// the selection over (the pointer is over another view), and v then leaves its own
	// selection alone.
	DragTo(v *View, from int, abs fyne.Position, inside bool) bool
	// DragEnd ends the drag that began in v.
	DragEnd(v *View)
	// FocusLost is v losing the focus: a click somewhere else, which ends the selection.
	FocusLost(v *View)
	// SpanText is the text of the selection across views, if there is one (Ctrl+C and the
	// context menu in v copy it).
	SpanText(v *View) (string, bool)
}

// TextOf is the text a View shows for Markdown src (its Text()), built without drawing it:
// the chat copies messages scrolled out of view with it.
func TextOf(src string) string {
	v := NewView(Options{})
	bd := &builder{v: v}
	for _, b := range parse(src) {
		bd.block(b, "\n\n")
	}
	v.units = bd.units
	return v.Text()
}

// flat is p as an offset in Text().
func (v *View) flat(p pos) int {
	n := 0
	for i, u := range v.units {
		if i > 0 {
			n += len(u.sep)
		}
		if i == p.unit {
			return n + min(p.off, len(u.text))
		}
		n += len(u.text)
	}
	return n
}

// unflat is the place of offset o of Text(); an offset inside a separator is the start of
// the block after it.
func (v *View) unflat(o int) pos {
	n := 0
	for i, u := range v.units {
		if i > 0 {
			n += len(u.sep)
		}
		if o <= n+len(u.text) {
			return pos{i, max(o-n, 0)}
		}
		n += len(u.text)
	}
	if len(v.units) == 0 {
		return pos{}
	}
	last := len(v.units) - 1
	return pos{last, len(v.units[last].text)}
}

// OffsetAt is the offset in Text() nearest to p (in the view's coordinates, possibly outside
// it: above is the start, below the end).
func (v *View) OffsetAt(p fyne.Position) int {
	q, ok := v.posAt(p)
	if !ok {
		return 0
	}
	return v.flat(q)
}

// SelectRange selects Text()[a:b] (clamped to the text; a > b selects the same as b, a)
// without taking the focus: a Spanner draws its part of a selection with it. An empty
// range clears the selection.
func (v *View) SelectRange(a, b int) {
	if a > b {
		a, b = b, a
	}
	v.anchor, v.head = v.unflat(max(a, 0)), v.unflat(b)
	v.selecting = v.anchor != v.head
	v.applySelection()
}

// Selection is the view's own selection as offsets in Text(): where it began (anchor) and
// where it ends (head, possibly before anchor).
func (v *View) Selection() (anchor, head int, ok bool) {
	if !v.selecting {
		return 0, 0, false
	}
	return v.flat(v.anchor), v.flat(v.head), true
}
