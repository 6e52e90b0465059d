package review

import (
	"github.com/phoenix-desktop/phoenix/review"
)

// rowKind is what one row of the diff list shows.
type rowKind uint8

const (
	rowFile rowKind = iota
	rowHunk
	rowLine
	rowNote // a binary file, or a file with no line changes (its mode)
)

// row is one row of the diff list. For a line, left and right are indices into the hunk's
// lines: in the unified layout left only; side by side, left is the old side and right the
// new (-1 where a side has no line in this row).
type row struct {
	kind        rowKind
	file, hunk  int
	left, right int
}

// buildRows lays the files out as rows, unified or side by side. Side by side, a run of
// removed lines and the run of added lines after it share rows, as in every split diff.
func buildRows(files []review.File, split bool) (rows []row, fileRow []int) {
	fileRow = make([]int, len(files))
	for fi, f := range files {
		fileRow[fi] = len(rows)
		rows = append(rows, row{kind: rowFile, file: fi, left: -1, right: -1})
		if f.Binary || len(f.Hunks) == 0 {
			rows = append(rows, row{kind: rowNote, file: fi, left: -1, right: -1})
			continue
		}
		for hi, h := range f.Hunks {
			rows = append(rows, row{kind: rowHunk, file: fi, hunk: hi, left: -1, right: -1})
			if !split {
				for li := range h.Lines {
					rows = append(rows, row{kind: rowLine, file: fi, hunk: hi, left: li, right: -1})
				}
				continue
			}
			for li := 0; li < len(h.Lines); {
				if h.Lines[li].Kind == review.Context {
					rows = append(rows, row{kind: rowLine, file: fi, hunk: hi, left: li, right: li})
					li++
					continue
				}
				var dels, adds []int
				for li < len(h.Lines) && h.Lines[li].Kind == review.Delete {
					dels = append(dels, li)
					li++
				}
				for li < len(h.Lines) && h.Lines[li].Kind == review.Add {
					adds = append(adds, li)
					li++
				}
				for k := 0; k < max(len(dels), len(adds)); k++ {
					r := row{kind: rowLine, file: fi, hunk: hi, left: -1, right: -1}
					if k < len(dels) {
						r.left = dels[k]
					}
					if k < len(adds) {
						r.right = adds[k]
					}
					rows = append(rows, r)
				}
			}
		}
	}
	return rows, fileRow
}
