package review

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/review"
)

// TestReadAgainKeepsPlaceSelectionAndMarks_Issue34: the same scope read again after the
// conversation changed — a file added before the one the person reads, another file
// changed — keeps the row on top and the selected lines where they now are, keeps the mark
// of the file that did not change and drops the mark of the one that did (saying so);
// another scope starts at the top with nothing selected.
func TestReadAgainKeepsPlaceSelectionAndMarks_Issue34(t *testing.T) {
	test.NewTempApp(t)
	var told []string
	v := NewView(Options{Do: dropColours, OnReviewed: func(path, diff string) {
		if diff == "" {
			told = append(told, path)
		}
	}})
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(1180, 780))
	before := largeChanges(5)
	v.SetChanges(before)

	v.ScrollToRow(250) // in d/f002.go
	p := v.place()
	if !p.topOK || p.top.path != "d/f002.go" {
		t.Fatalf("scrolled to %+v", p.top)
	}
	if !v.SelectLine("d/f003.go", 41, false) {
		t.Fatal("no row shows line 41 of d/f003.go")
	}
	v.MoveCursor(2, true)
	sel, _ := v.Selection()
	v.ScrollToRow(250)
	v.SetReviewed("d/f001.go", true)
	v.SetReviewed("d/f003.go", true)

	after := largeChanges(5)
	after.Files = slices.Insert(after.Files, 0, review.File{Path: "a/new.go", Status: review.Added, Added: 1,
		Hunks: []review.Hunk{{N: 1, NewStart: 1, NewLines: 1, Lines: []review.Line{{Kind: review.Add, New: 1, Text: "package a"}}}}})
	after.Files[2].Hunks[0].Lines[1].Text = "\tchanged again"
	v.SetChanges(after)

	if got := v.place(); got.top != p.top || got.within != p.within {
		t.Errorf("the top row is %+v (+%v), was %+v (+%v)", got.top, got.within, p.top, p.within)
	}
	if got, ok := v.Selection(); !ok || got.Path != sel.Path || got.Start != sel.Start || got.End != sel.End {
		t.Errorf("the selection is %+v (%v), was %+v", got, ok, sel)
	}
	if !v.Reviewed("d/f003.go") {
		t.Error("the mark of d/f003.go, unchanged, was dropped")
	}
	if v.Reviewed("d/f001.go") || !slices.Equal(told, []string{"d/f001.go"}) {
		t.Errorf("d/f001.go changed after its mark: reviewed %v, told of dropped marks %q", v.Reviewed("d/f001.go"), told)
	}

	other := after
	other.Scope = review.Turn
	v.SetChanges(other)
	if got := v.place(); got.top.kind != rowFile || got.top.path != "a/new.go" || got.within != 0 {
		t.Errorf("another scope starts at %+v (+%v), not the top", got.top, got.within)
	}
	if _, ok := v.Selection(); ok {
		t.Error("another scope kept the selection")
	}
}
