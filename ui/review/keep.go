package review

import (
	"fmt"
	"hash/fnv"

	"github.com/phoenix-desktop/phoenix/review"
)

// What a refresh keeps (issue 34): the view is read again whenever the conversation
// changes while it is open, and the person's place in it must survive that.

// lineKey names a row by what it shows, not by its index, so it can be found again in
// rows built from other changes: a line by its file and number (the new side's, or the
// old side's for a removed line), a header by its file (and hunk's first new line).
type lineKey struct {
	path string
	kind rowKind
	n    int
	old  bool
}

// place is the scroll place and the selection, by keys.
type place struct {
	top            lineKey
	topOK          bool
	within         float32 // how far into the top row the list was scrolled
	anchor, cursor lineKey
	selOK          bool
}

func (v *View) keyOf(id int) (lineKey, bool) {
	if id < 0 || id >= len(v.rows) {
		return lineKey{}, false
	}
	r := v.rows[id]
	f := v.ch.Files[r.file]
	switch r.kind {
	case rowLine:
		l, _ := v.lineOf(r)
		if l.Kind == review.Delete {
			return lineKey{path: f.Path, kind: rowLine, n: l.Old, old: true}, true
		}
		return lineKey{path: f.Path, kind: rowLine, n: l.New}, true
	case rowHunk:
		return lineKey{path: f.Path, kind: rowHunk, n: f.Hunks[r.hunk].NewStart}, true
	}
	return lineKey{path: f.Path, kind: r.kind}, true
}

// find is the row of k in the rows shown, or -1. A header of a hunk that moved finds the
// file's header instead.
func (v *View) find(k lineKey) int {
	fallback := -1
	for i := range v.rows {
		got, _ := v.keyOf(i)
		if got == k {
			return i
		}
		if fallback < 0 && got.path == k.path && got.kind == rowFile && k.kind != rowLine {
			fallback = i
		}
	}
	return fallback
}

// place reads where the person is.
func (v *View) place() place {
	var p place
	step := v.lineH + densePadding
	off := v.diff.GetScrollOffset()
	top := int(off / step)
	p.top, p.topOK = v.keyOf(top)
	p.within = off - float32(top)*step
	if v.cursor >= 0 && v.anchor >= 0 {
		a, okA := v.keyOf(v.anchor)
		c, okC := v.keyOf(v.cursor)
		p.anchor, p.cursor, p.selOK = a, c, okA && okC
	}
	return p
}

// restore puts the person back where p says, where those lines still are: the top row
// found again stays on top; a selection whose lines are both still shown stays selected.
func (v *View) restore(p place) {
	if p.topOK {
		if i := v.find(p.top); i >= 0 {
			v.diff.ScrollToOffset(v.rowOffset(i) + p.within)
		}
	}
	if p.selOK {
		a, c := v.find(p.anchor), v.find(p.cursor)
		if a >= 0 && c >= 0 && v.rows[a].kind == rowLine && v.rows[c].kind == rowLine && v.rows[a].file == v.rows[c].file {
			v.anchor, v.cursor = a, c
			v.diff.Refresh()
		}
	}
}

// dropChangedMarks drops the marks of files shown whose diff is no longer the one marked
// (the file changed after it), and says so through OnReviewed.
func (v *View) dropChangedMarks() {
	for _, f := range v.ch.Files {
		d, ok := v.reviewed[f.Path]
		if ok && DiffPrint(f) != d {
			delete(v.reviewed, f.Path)
			if v.opts.OnReviewed != nil {
				v.opts.OnReviewed(f.Path, "")
			}
		}
	}
}

// DiffPrint is the fingerprint of a file's diff as shown: its status, mode and every
// hunk's lines (kind and text, not numbers: lines that only moved are the same change).
// A mark is on one diff; when the file changes after it, the diff, and so the print, is
// another.
func DiffPrint(f review.File) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%t\x00", f.Path, f.Status, f.Mode, f.Binary)
	for _, hk := range f.Hunks {
		h.Write([]byte{0xff})
		for _, l := range hk.Lines {
			fmt.Fprintf(h, "%s%s\x00", l.Kind, l.Text)
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// CommentText is what the comment box holds, not yet added.
func (v *View) CommentText() string { return v.entry.Text }
