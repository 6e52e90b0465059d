package ui

import (
	"slices"
	"sort"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// The geometry of a selection across messages (chatselect.go): which row is under the
// pointer, and the list's scrolling while a drag holds the pointer beyond its edges.

// autoScrollEvery is how often the list scrolls on its own while a drag holds the pointer
// beyond its edge; autoScrollMax is the most it moves in one step.
const (
	autoScrollEvery = 50 * time.Millisecond
	autoScrollMax   = 48
)

// Where the pointer is: the list's rows are placed as widget.List places them, from the
// heights it was told (chatView.heights) and the template's for the others.

func absPos(o fyne.CanvasObject) fyne.Position {
	return fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
}

// edges are the list's top and bottom, in absolute coordinates.
type edges struct{ top, bottom float32 }

func (s *chatSelection) listEdges() edges {
	top := absPos(s.cv.list).Y
	return edges{top, top + s.cv.list.Size().Height}
}

// rowAt is the row under the absolute position abs, with abs moved inside the list.
func (s *chatSelection) rowAt(abs fyne.Position, e edges) (int, fyne.Position) {
	abs.Y = min(max(abs.Y, e.top), max(e.bottom-1, e.top))
	id, _ := s.rowAtContentY(abs.Y - e.top + s.cv.list.GetScrollOffset())
	return id, abs
}

// rowAtContentY is the row at y in the list's content, and the row's top; the gap under a
// row belongs to it. The rows' tops are summed again only when the heights or the number of
// rows changed, so a drag step over 10,000 rows is a binary search.
func (s *chatSelection) rowAtContentY(y float32) (id int, rowTop float32) {
	cv := s.cv
	n := cv.cs.model.len()
	if n == 0 {
		return 0, 0
	}
	gap := theme.Padding()
	c := &s.tops
	if len(c.at) != n || c.ver != cv.heightsVer || c.gap != gap {
		c.at, c.ver, c.gap = slices.Grow(c.at[:0], n)[:n], cv.heightsVer, gap
		var top float32
		for i := range n {
			c.at[i] = top
			h, ok := cv.heights[i]
			if !ok {
				h = estimatedRowHeight
			}
			top += h + gap
		}
	}
	id = max(sort.Search(n, func(i int) bool { return c.at[i] > y })-1, 0)
	return id, c.at[id]
}

// scrollBy is how far the list scrolls for a pointer at abs while dragging: up (negative)
// above its top edge, down below its bottom edge, the further the faster.
func (e edges) scrollBy(abs fyne.Position) float32 {
	switch {
	case abs.Y < e.top:
		return -min(e.top-abs.Y, autoScrollMax)
	case abs.Y > e.bottom:
		return min(abs.Y-e.bottom, autoScrollMax)
	}
	return 0
}

// autoScroll starts (on) or stops the steps that keep the list scrolling while the pointer
// stays beyond its edge, where no drag events arrive.
func (s *chatSelection) autoScroll(on bool) {
	if !on {
		if s.tick != nil {
			close(s.tick)
			s.tick = nil
		}
		return
	}
	if s.tick != nil {
		return
	}
	stop := make(chan struct{})
	s.tick = stop
	do := s.cv.m.do
	go func() {
		t := time.NewTicker(autoScrollEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				do(func() { s.repeat(stop) })
			}
		}
	}()
}

// repeat is one step of autoScroll: the latest drag step again. Once the list cannot
// scroll further the steps stop (the next drag event starts them again if need be), so
// they never outlive a drag whose end never came (a window closed during it).
func (s *chatSelection) repeat(stop chan struct{}) {
	if s.tick != stop || s.last.v == nil {
		return
	}
	before := s.cv.list.GetScrollOffset()
	s.DragTo(s.last.v, s.last.from, s.last.abs, false)
	if s.cv.list.GetScrollOffset() == before {
		s.autoScroll(false)
	}
}
