package ui

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// Find and a search hit bring a row into the middle of the chat (issue 41): the row itself
// when it fits the view, else its first highlighted line. Rows the list has not measured yet
// count at an estimated height, so the row's place moves as the rows around it are measured;
// the chat centres it again each time heights arrive, until the person scrolls (or the list is
// moved any other way).

// centring is a row kept in the middle of the chat.
type centring struct {
	id int
	// at is the scroll offset last set for it; a different offset means someone else moved
	// the list, and the row is let go.
	at float32
}

// center brings row id into the middle of the view and keeps it there while the rows around
// it are measured.
func (cv *chatView) center(id int) {
	cv.follow, cv.pinned = false, false
	cv.centring = &centring{id: id, at: cv.list.GetScrollOffset()}
	cv.list.ScrollTo(id) // the list binds the row and its neighbours, which measures them
	cv.centring.at = cv.list.GetScrollOffset()
	cv.recenter()
}

// recenter moves the list so that the row being centred sits in the middle, if any.
func (cv *chatView) recenter() {
	c := cv.centring
	if c == nil {
		return
	}
	if c.id >= cv.cs.model.len() || cv.list.GetScrollOffset() != c.at {
		cv.centring = nil
		return
	}
	top := cv.rowTop(c.id)
	h, ok := cv.heights[c.id]
	if !ok {
		h = estimatedRowHeight
	}
	view := cv.list.Size().Height
	y := top + h/2
	if h > view {
		// A tall row: its first highlight in the middle, or its top at the top.
		y = top + view/2
		if my, ok := cv.markY(c.id); ok {
			y = top + my
		}
	}
	off := min(max(y-view/2, 0), max(cv.contentHeight()-view, 0))
	cv.list.ScrollToOffset(off)
	c.at = cv.list.GetScrollOffset()
}

// rowTop is the top of row id in the list's content, as the list places it now.
func (cv *chatView) rowTop(id int) float32 {
	var top float32
	gap := theme.Padding()
	for i := range id {
		h, ok := cv.heights[i]
		if !ok {
			h = estimatedRowHeight
		}
		top += h + gap
	}
	return top
}

// markY is the top of the first highlighted line in row id, from the row's top, when the row
// is on screen and laid out.
func (cv *chatView) markY(id int) (float32, bool) {
	v := cv.sel.shown(id)
	if v == nil {
		return 0, false
	}
	d := fyne.CurrentApp().Driver()
	var y float32
	found := false
	eachTextView(v.root, func(t *markdown.View) {
		if found || t.Hidden {
			return
		}
		if my, ok := t.FirstMarkY(); ok {
			y, found = d.AbsolutePositionForObject(t).Y-d.AbsolutePositionForObject(v).Y+my, true
		}
	})
	return y, found
}

// letGo stops keeping a row in the middle: the person moved the chat.
func (cv *chatView) letGo() { cv.centring = nil }

// clearHit takes a search hit's highlights away: the next click in the chat does.
func (cv *chatView) clearHit() {
	if cv.hitKey == "" {
		return
	}
	cv.hitWords, cv.hitKey = nil, ""
	cv.list.Refresh()
}
