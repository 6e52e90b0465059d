package ui

import (
	"time"

	"fyne.io/fyne/v2/theme"
)

// Opening a long conversation (issue 41 item 4): it opens at its end, and the first frame that
// shows its rows shows them at their true heights. The list places rows it has not been told
// the height of at an estimate, and a row drawn in a slot shorter than itself overlaps the next
// one for a frame; so before the list first shows the history, the rows that fill the view from
// the end are measured (the rest are measured as they come into view, as always). A load that
// is quick shows no "Loading…" at all: the word appears only once a load has taken slowLoad.

// slowLoad is how long opening a conversation may take before the status bar says it is
// loading (a blink of "Loading…" on every open reads as a stutter).
const slowLoad = 400 * time.Millisecond

// measureTail measures the rows that fill the view from the end, before the list draws them.
func (cv *chatView) measureTail() {
	w, view := cv.list.Size().Width, cv.list.Size().Height
	if w <= 0 || view <= 0 {
		return
	}
	scratch := newRowView(cv)
	gap := theme.Padding()
	var sum float32
	// Twice the view: the chat may grow when the header and composer settle after the load.
	for id := cv.cs.model.len() - 1; id >= 0 && sum < 2*view; id-- {
		r := cv.cs.model.at(id)
		scratch.bind(r)
		mc := rowMeasure{ver: r.ver, gen: cv.m.gen, width: w, h: scratch.heightAt(w)}
		cv.measured[r] = mc
		if h, ok := cv.heights[id]; !ok || h != mc.h {
			cv.setKnown(id, mc.h)
			cv.list.SetItemHeight(id, mc.h)
		}
		sum += mc.h + gap
	}
}

// noteSlowLoad has the status bar say "Loading…" if cs is still loading after slowLoad.
func (m *MainWindow) noteSlowLoad(cs *convState) {
	time.AfterFunc(slowLoad, func() {
		m.do(func() {
			if cs.loading && !cs.loaded {
				cs.slowLoad = true
				if cs == m.current {
					m.status.refresh()
				}
			}
		})
	})
}
