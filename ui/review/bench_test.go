package review

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/review"
)

// largeChanges is files files of a hundred changed lines each.
func largeChanges(files int) review.Changes {
	ch := review.Changes{Scope: review.Conversation}
	for f := range files {
		file := review.File{Path: fmt.Sprintf("d/f%03d.go", f), Status: review.Modified}
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

// BenchmarkSetChanges200Files is the view's own cost of showing 200 files / 20,000 lines
// (rows built, headers sized, the visible rows laid out) on the test driver; the bench's
// rows measure the real window.
func BenchmarkSetChanges200Files(b *testing.B) {
	test.NewTempApp(b)
	ch := largeChanges(200)
	v := NewView(Options{Do: func(f func()) {}})
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(1180, 780))
	b.ResetTimer()
	for range b.N {
		v.SetChanges(ch)
		w.Canvas().Refresh(v)
	}
}
