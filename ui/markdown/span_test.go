package markdown

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestTextOfIsWhatTheViewShows: the chat copies messages that are off screen with TextOf,
// and the offsets of a selection are offsets in the view's Text: the two must agree.
func TestTextOfIsWhatTheViewShows(t *testing.T) {
	for _, src := range []string{everything, issueReply, "", "one\ntwo", "> quote\n\n- a\n- b\n\n```\ncode\n```"} {
		v := NewView(Options{Do: func(f func()) { f() }})
		v.SetMarkdown(src)
		if got := TextOf(src); got != v.Text() {
			t.Errorf("TextOf(%q) = %q, the view shows %q", src, got, v.Text())
		}
	}
}

// TestSelectRangeByOffsets: SelectRange draws a range given as offsets in Text(), clamped,
// in either order, and Selection reads it back; an offset inside the break between two
// blocks is the start of the second.
func TestSelectRangeByOffsets(t *testing.T) {
	v, _, _ := render(t, "First paragraph.\n\nSecond *one* here.", 400, false)
	text := v.Text()
	i := strings.Index(text, "paragraph")
	j := strings.Index(text, " here")
	v.SelectRange(j, i)
	if got := v.SelectedText(); got != text[i:j] {
		t.Errorf("selected %q, want %q", got, text[i:j])
	}
	if a, b, ok := v.Selection(); !ok || a != i || b != j {
		t.Errorf("Selection() = %d, %d, %v; want %d, %d", a, b, ok, i, j)
	}
	v.SelectRange(3, 1<<40)
	if got := v.SelectedText(); got != text[3:] {
		t.Errorf("to the end selected %q", got)
	}
	brk := strings.Index(text, "\n\n") + 1
	v.SelectRange(brk, len(text))
	if got := v.SelectedText(); got != "Second one here." {
		t.Errorf("from inside the break selected %q", got)
	}
	v.SelectRange(4, 4)
	if _, _, ok := v.Selection(); ok || v.SelectedText() != "" {
		t.Error("an empty range left a selection")
	}
	// OffsetAt: above the view is its start, below it its end.
	if got := v.OffsetAt(fyne.NewPos(5, -50)); got != 0 {
		t.Errorf("above the view: offset %d", got)
	}
	if got := v.OffsetAt(fyne.NewPos(5, v.Size().Height+50)); got != len(text) {
		t.Errorf("below the view: offset %d, want %d", got, len(text))
	}
}

// spy is a Spanner that records what a view asked and takes over when told to.
type spy struct {
	take    bool
	presses int
	drags   []int
	text    string
}

func (s *spy) Press(*View)                { s.presses++ }
func (s *spy) ShiftPress(*View, int) bool { return s.take }
func (s *spy) DragTo(_ *View, from int, _ fyne.Position, _ bool) bool {
	s.drags = append(s.drags, from)
	return s.take
}
func (s *spy) DragEnd(*View)                 {}
func (s *spy) FocusLost(*View)               {}
func (s *spy) SpanText(*View) (string, bool) { return s.text, s.take }

// TestSpannerTakesOver: a view asks its Spanner on each drag step with the offset where the
// drag began, and leaves its own selection alone while the Spanner holds it; copying copies
// the Spanner's text then.
func TestSpannerTakesOver(t *testing.T) {
	s := &spy{}
	v, w, _ := renderWith(t, Options{Span: s}, "First paragraph with words.", 400, false)
	u := v.units[0]
	start := pointOf(t, v, u, 6)
	end := pointOf(t, v, u, 15)
	w.Canvas().Focus(v)
	dragOnce := func(take bool) string {
		s.take, s.drags = take, nil
		v.ClearSelection()
		d := &fyne.DragEvent{PointEvent: fyne.PointEvent{Position: end.Subtract(v.Position())}, Dragged: fyne.NewDelta(end.X-start.X, 0)}
		v.Dragged(d)
		v.DragEnd()
		if len(s.drags) != 1 || s.drags[0] != 6 {
			t.Errorf("the Spanner was asked %v, want one step from offset 6", s.drags)
		}
		return v.SelectedText()
	}
	if got, want := dragOnce(false), u.text[6:v.OffsetAt(end.Subtract(v.Position()))]; got != want || !strings.HasPrefix(got, "paragrap") {
		t.Errorf("on its own the view selected %q, want %q", got, want)
	}
	s.text = "across views"
	if got := dragOnce(true); got != "across views" {
		t.Errorf("with the Spanner holding the selection the view gave %q", got)
	}
	if _, _, ok := v.Selection(); ok {
		t.Error("the view selected on its own while the Spanner held the selection")
	}
}
