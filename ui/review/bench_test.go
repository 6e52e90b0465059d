package review

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/review"
)

// largeChanges is files files of a hundred changed lines each (ten hunks of five removed
// and five added lines): largeChanges(200) is the target's 200 files / 20,000 lines,
// largeChanges(1) its baseline of 100 lines.
func largeChanges(files int) review.Changes {
	ch := review.Changes{Scope: review.Conversation}
	for f := range files {
		file := review.File{Path: fmt.Sprintf("d/f%03d.go", f), Status: review.Modified, Added: 50, Deleted: 50}
		for n := 1; n <= 10; n++ {
			h := review.Hunk{N: n, OldStart: n * 20, OldLines: 6, NewStart: n * 20, NewLines: 6}
			for i := range 5 {
				h.Lines = append(h.Lines, review.Line{Kind: review.Delete, Old: n*20 + i, Text: fmt.Sprintf("\tv%d := f(%d)", i, i)})
				h.Lines = append(h.Lines, review.Line{Kind: review.Add, New: n*20 + i, Text: fmt.Sprintf("\tv%d, err := g(%d)", i, i)})
			}
			file.Hunks = append(file.Hunks, h)
		}
		ch.Files = append(ch.Files, file)
	}
	return ch
}

// benchSizes are the target's change and its baseline, measured side by side in one run.
var benchSizes = []struct {
	name  string
	files int
}{{"200files_20000lines", 200}, {"1file_100lines_baseline", 1}}

// cpuTime is the CPU time this process has used, all its threads: on a machine shared with
// other work, the figure to judge the view by (wall time waits for the other work too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU milliseconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// benchView opens a view of ch in a test window of the bench window's size (1180×780).
func benchView(ch review.Changes) (*View, fyne.Window) {
	v := NewView(Options{Do: dropColours})
	w := test.NewWindow(v)
	w.Resize(fyne.NewSize(1180, 780))
	v.SetChanges(ch)
	return v, w
}

// BenchmarkChangesViewFirstPaint is the view's own cost of its first paint, without the
// renderer's: a new view made, put in a window of 1180×780, given the changes, its rows
// built and what is on screen laid out (the row cells made and filled), on Fyne's test
// driver, which draws nothing. The 200-file change beside its 100-line baseline: "only
// what is on screen is laid out" holds when the two cost about the same. rows/op is how
// many rows the diff has; cells/op how many were laid out; cpu-ms/op the CPU time, the
// figure to go by on a busy machine.
func BenchmarkChangesViewFirstPaint(b *testing.B) {
	test.NewTempApp(b)
	for _, size := range benchSizes {
		ch := largeChanges(size.files)
		b.Run(size.name, func(b *testing.B) {
			var v *View
			var w fyne.Window
			cpu := cpuTime()
			for range b.N {
				if w != nil {
					w.Close()
				}
				v, w = benchView(ch)
			}
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(v.Rows()), "rows/op")
			b.ReportMetric(float64(len(cells(v))), "cells/op")
			w.Close()
		})
	}
}

// BenchmarkChangesViewScrollStep is the view's own cost of one scroll step (three lines,
// as bench's window row scrolls): the list moved and the rows that come on screen filled,
// on the test driver (no drawing). The baseline's diff barely scrolls in 780 pixels: its
// steps go back to the top when its end is reached.
func BenchmarkChangesViewScrollStep(b *testing.B) {
	test.NewTempApp(b)
	for _, size := range benchSizes {
		ch := largeChanges(size.files)
		b.Run(size.name, func(b *testing.B) {
			v, w := benchView(ch)
			defer w.Close()
			onScreen := len(cells(v))
			last := max(v.Rows()-onScreen, 1)
			b.ResetTimer()
			cpu := cpuTime()
			for i := range b.N {
				v.ScrollToRow((i * 3) % last)
			}
			b.StopTimer()
			reportCPU(b, cpu)
			b.ReportMetric(float64(len(cells(v))), "cells/op")
		})
	}
}
