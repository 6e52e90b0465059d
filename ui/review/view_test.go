package review

import (
	"fmt"
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/review"
)

// sample is two changed files: a.go with two hunks, and an added b.txt.
func sample() review.Changes {
	hunk := func(n, at int, old, new string) review.Hunk {
		return review.Hunk{N: n, OldStart: at - 1, OldLines: 3, NewStart: at - 1, NewLines: 3, Lines: []review.Line{
			{Kind: review.Context, Old: at - 1, New: at - 1, Text: "\tx := 1"},
			{Kind: review.Delete, Old: at, Text: old},
			{Kind: review.Add, New: at, Text: new},
			{Kind: review.Context, Old: at + 1, New: at + 1, Text: "}"},
		}}
	}
	return review.Changes{Scope: review.Turn, Turn: 3, From: "a", To: "b", Files: []review.File{
		{Path: "a.go", Status: review.Modified, Added: 2, Deleted: 2, Hunks: []review.Hunk{hunk(1, 5, "\treturn 1", "\treturn 2"), hunk(2, 40, "// old", "// new")}},
		{Path: "b.txt", Status: review.Added, Added: 1, Hunks: []review.Hunk{{N: 1, NewStart: 1, NewLines: 1, Lines: []review.Line{{Kind: review.Add, New: 1, Text: "hello"}}}}},
	}}
}

// cells finds the diff's row cells on screen.
func cells(v *View) []*rowCell {
	var out []*rowCell
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if c, ok := o.(*rowCell); ok && c.id >= 0 && c.Visible() {
			out = append(out, c)
			return
		}
		if c, ok := o.(*fyne.Container); ok {
			for _, ch := range c.Objects {
				walk(ch)
			}
			return
		}
		if w, ok := o.(fyne.Widget); ok {
			for _, ch := range test.WidgetRenderer(w).Objects() {
				walk(ch)
			}
		}
	}
	walk(v.diff)
	return out
}

// TestChangesViewRevertsCommentsAndMarks: the rows are the files' headers, hunk headers and
// lines; a hunk's Revert and a file's Revert say which; a line selected by a tap and a range
// by Shift+tap get a comment with the path, the lines as numbered now and their text; Mark
// reviewed shows in the file list.
func TestChangesViewRevertsCommentsAndMarks(t *testing.T) {
	test.NewTempApp(t)
	var reverted []string
	var comments []review.Comment
	v := NewView(Options{
		OnRevert:  func(path string, hunk int) { reverted = append(reverted, fmt.Sprintf("%s#%d", path, hunk)) },
		OnComment: func(c review.Comment) { comments = append(comments, c) },
		Do:        dropColours,
	})
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(800, 700))
	v.SetChanges(sample())
	// 2 file rows + 3 hunk rows + 4+4+1 lines.
	if v.Rows() != 14 {
		t.Fatalf("%d rows, want 14", v.Rows())
	}
	var hunk2, fileB *rowCell
	for _, c := range cells(v) {
		r := v.rows[c.id]
		if r.kind == rowHunk && r.file == 0 && r.hunk == 1 {
			hunk2 = c
		}
		if r.kind == rowFile && r.file == 1 {
			fileB = c
		}
	}
	if hunk2 == nil || fileB == nil {
		t.Fatal("the header rows are not on screen")
	}
	test.Tap(hunk2.revertHunk)
	test.Tap(fileB.revertFile)
	if strings.Join(reverted, " ") != "a.go#2 b.txt#0" {
		t.Fatalf("reverted %q", reverted)
	}

	// Tap line 5 (the added one), Shift+tap line 6: a range of the new side.
	if !v.SelectLine("a.go", 5, false) {
		t.Fatal("line 5 of a.go has no row")
	}
	var six *lineView
	for _, c := range cells(v) {
		if l, ok := v.lineOf(v.rows[c.id]); ok && v.rows[c.id].file == 0 && l.New == 6 {
			six = c.line
		}
	}
	if six == nil {
		t.Fatal("line 6 is not on screen")
	}
	six.MouseDown(&desktopShift)
	test.Tap(six)
	if !strings.Contains(v.selLabel.Text, "a.go, lines 5–6") {
		t.Fatalf("selection label %q", v.selLabel.Text)
	}
	test.Type(v.entry, "return what the caller expects")
	test.Tap(v.commentBtn)
	if len(comments) != 1 {
		t.Fatalf("comments: %+v", comments)
	}
	c := comments[0]
	if c.Path != "a.go" || c.Start != 5 || c.End != 6 || c.Old || strings.Join(c.Lines, "|") != "\treturn 2|}" || c.Text != "return what the caller expects" {
		t.Fatalf("comment %+v", c)
	}
	if v.entry.Text != "" {
		t.Fatal("the comment box was not emptied")
	}

	v.SetReviewed("b.txt", true)
	if !v.Reviewed("b.txt") {
		t.Fatal("b.txt is not marked reviewed")
	}
}

// TestSideBySideOnlyWhenWide: the toggle is offered from SplitMinWidth; side by side, a
// removed line and the added line after it share a row; a narrower window goes back to one
// column.
func TestSideBySideOnlyWhenWide(t *testing.T) {
	test.NewTempApp(t)
	v := NewView(Options{Do: dropColours})
	w := test.NewWindow(v)
	defer w.Close()
	v.SetChanges(sample())
	w.Resize(fyne.NewSize(600, 600))
	if !v.splitCheck.Disabled() {
		t.Fatal("side by side is offered in a narrow window")
	}
	w.Resize(fyne.NewSize(SplitMinWidth+100, 600))
	if v.splitCheck.Disabled() {
		t.Fatal("side by side is not offered in a wide window")
	}
	v.splitCheck.SetChecked(true)
	// Each hunk's four lines become three rows: context, removed|added, context.
	if v.Rows() != 2+3+3+3+1 {
		t.Fatalf("%d rows side by side", v.Rows())
	}
	w.Resize(fyne.NewSize(600, 600))
	if v.split || v.Rows() != 14 {
		t.Fatalf("a narrow window kept side by side (%v, %d rows)", v.split, v.Rows())
	}
}

var desktopShift = shiftDown()

// dropColours is the tests' Options.Do: the highlighter's results come from its goroutine
// and would be applied beside the test's own UI calls; these tests do not look at colours.
func dropColours(func()) {}

// TestLinesAreColouredAsTheChatsCode: the rows on screen have their hunks coloured in the
// background by ui/markdown's lexers; once the results are applied (on the test's goroutine,
// as Options.Do would on the UI's), a Go line is drawn in more than one colour.
func TestLinesAreColouredAsTheChatsCode(t *testing.T) {
	test.NewTempApp(t)
	results := make(chan func(), 8)
	v := NewView(Options{Do: func(f func()) { results <- f }})
	w := test.NewWindow(v)
	defer w.Close()
	w.Resize(fyne.NewSize(800, 700))
	v.SetChanges(sample())
	for range 2 { // a.go's two hunks; b.txt is not highlighted
		select {
		case f := <-results:
			f()
		case <-time.After(30 * time.Second):
			t.Fatal("no hunk was coloured")
		}
	}
	toks := v.hl.tokens(0, 0)
	if len(toks) != 4 || len(toks[2]) < 2 {
		t.Fatalf("hunk 1's tokens: %+v", toks)
	}
	for _, c := range cells(v) {
		r := v.rows[c.id]
		if r.kind != rowLine || r.file != 0 || c.line.r == nil {
			continue
		}
		colours := map[color.Color]bool{}
		for _, p := range c.line.r.placed {
			if !p.num && strings.TrimSpace(p.t.Text) != "" && p.t.Text != string(review.Add) && p.t.Text != string(review.Delete) {
				colours[p.t.Color] = true
			}
		}
		if len(colours) >= 2 {
			return
		}
	}
	t.Fatal("no line of a.go is drawn in more than one colour")
}
