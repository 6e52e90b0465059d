package markdown

import (
	"image/color"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// mark is a highlighted byte range of a text block: a match of Find. strong marks the
// current match, which is drawn more strongly than the others.
type mark struct {
	a, b   int
	strong bool
}

// SetText shows plain text (a person's message) as one selectable block in the text size:
// words wrap, line breaks are kept, nothing is read as Markdown.
func (v *View) SetText(s string) {
	if v.parts == nil && v.src == s && len(v.units) == 1 && v.units[0].text == s && !v.units[0].mono {
		return
	}
	v.src, v.parts = s, nil
	bd := &builder{v: v}
	t := bd.unit(newTextBlock(theme.SizeNameText), "\n\n")
	t.setSpans([]span{{text: s}}, fyne.TextStyle{})
	v.units, v.codes = bd.units, nil
	v.builtFG = theme.Color(theme.ColorNameForeground)
	v.selecting = false
	v.content.Objects = []fyne.CanvasObject{t}
	v.applyMarks()
	v.relayout()
}

// Mark highlights every occurrence of q in the text shown, in any case (Find in the
// conversation); strong draws them as the current match. The marks follow later changes of
// the text until Mark is called again; an empty q removes them. It returns how many
// occurrences are marked.
func (v *View) Mark(q string, strong bool) int {
	return v.MarkWords([]string{q}, strong)
}

// MarkWords is Mark for several words at once (the words of a search hit): every occurrence of
// any of them is highlighted. An empty list, or blank words, remove the marks.
func (v *View) MarkWords(words []string, strong bool) int {
	if !slices.Equal(words, v.markQ) || strong != v.markStrong {
		v.markQ, v.markStrong = slices.Clone(words), strong
		v.applyMarks()
	}
	n, _ := v.Marked()
	return n
}

// FirstMarkY is the top of the first highlighted line, in the view's own coordinates, once the
// view has been laid out; the chat centres a match with it.
func (v *View) FirstMarkY() (float32, bool) {
	d := fyne.CurrentApp().Driver()
	for _, u := range v.units {
		if len(u.marks) == 0 || u.lay == nil {
			continue
		}
		for _, ln := range u.lay.lines {
			if ln.b > u.marks[0].a {
				return d.AbsolutePositionForObject(u).Y - d.AbsolutePositionForObject(v).Y + ln.y, true
			}
		}
	}
	return 0, false
}

// Marked is how many occurrences Mark highlighted in the text shown now, and whether they
// are drawn as the current match.
func (v *View) Marked() (n int, strong bool) {
	for _, u := range v.units {
		n += len(u.marks)
	}
	return n, n > 0 && v.markStrong
}

func (v *View) applyMarks() {
	for _, u := range v.units {
		u.setMarks(MatchesAny(u.text, v.markQ), v.markStrong)
	}
}

// Matches are the byte ranges of text where q occurs, in any case, without overlaps. An empty
// or blank q matches nothing. Where lowering a character changes its length in bytes (a few
// rare letters), only exact-case matches are found, so that the ranges stay true offsets of
// text.
func Matches(text, q string) [][2]int {
	if strings.TrimSpace(q) == "" {
		return nil
	}
	hay, needle := strings.ToLower(text), strings.ToLower(q)
	if len(hay) != len(text) || len(needle) != len(q) {
		hay, needle = text, q
	}
	var out [][2]int
	for i := 0; i <= len(hay)-len(needle); {
		j := strings.Index(hay[i:], needle)
		if j < 0 {
			break
		}
		out = append(out, [2]int{i + j, i + j + len(needle)})
		i += j + len(needle)
	}
	return out
}

// MatchesAny are the byte ranges of text where any of words occurs (Matches of each), in
// order; where one word lies inside another's match ("parse" in "parser") the ranges become
// one.
func MatchesAny(text string, words []string) [][2]int {
	var ranges [][2]int
	for _, w := range words {
		ranges = append(ranges, Matches(text, w)...)
	}
	if len(words) < 2 {
		return ranges
	}
	slices.SortFunc(ranges, func(a, b [2]int) int { return a[0] - b[0] })
	merged := ranges[:0]
	for _, r := range ranges {
		if k := len(merged) - 1; k >= 0 && r[0] <= merged[k][1] {
			merged[k][1] = max(merged[k][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

// setMarks highlights the ranges given, redrawing only when they changed.
func (t *textBlock) setMarks(ranges [][2]int, strong bool) {
	if len(ranges) == 0 && len(t.marks) == 0 {
		return
	}
	marks := make([]mark, len(ranges))
	for i, r := range ranges {
		marks[i] = mark{a: r[0], b: r[1], strong: strong}
	}
	if equalMarks(marks, t.marks) {
		return
	}
	t.marks = marks
	t.markVer++
	t.Refresh()
}

func equalMarks(a, b []mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// ColorNameFindMark and ColorNameFindMarkStrong are the backgrounds of Find's matches, and of
// the matches in the current row. The app's theme (package ui) defines them, opaque, for each
// variant, and checks every text colour drawn on them at 4.5:1 in its contrast table; under a
// theme that does not know them, a wash of the warning colour stands in.
const (
	ColorNameFindMark       fyne.ThemeColorName = "phoenixFindMark"
	ColorNameFindMarkStrong fyne.ThemeColorName = "phoenixFindMarkStrong"
)

// MarkColors are the background of a match, and the outline that marks those of the current
// row (in the warning colour, which reads on the window as text does: it need not darken the
// background to stand out).
func MarkColors(strong bool) (fill, stroke color.Color) {
	name, alpha := ColorNameFindMark, uint8(0x48)
	if strong {
		name, alpha = ColorNameFindMarkStrong, 0xb0
	}
	fill = theme.Color(name)
	if _, _, _, a := fill.RGBA(); a == 0 {
		fill = withAlpha(theme.Color(theme.ColorNameWarning), alpha)
	}
	if strong {
		stroke = theme.Color(theme.ColorNameWarning)
	}
	return fill, stroke
}

// drawMarks adds the match backgrounds behind the text, from rectangle nr on, and returns the
// next free rectangle.
func (r *textRenderer) drawMarks(l *textLayout, nr int) int {
	t := r.t
	for _, m := range t.marks {
		fill, stroke := MarkColors(m.strong)
		for li, ln := range l.lines {
			if ln.b <= m.a || ln.a >= m.b {
				continue
			}
			a, b := max(ln.a, m.a), min(ln.b, m.b)
			x1, x2 := t.xAt(l, li, a), t.xAt(l, li, b)
			rc := r.rect(nr)
			nr++
			rc.FillColor, rc.CornerRadius, rc.StrokeWidth, rc.StrokeColor = fill, 2, 0, nil
			if stroke != nil {
				rc.StrokeWidth, rc.StrokeColor = 1, stroke
			}
			rc.Move(fyne.NewPos(x1, ln.y))
			rc.Resize(fyne.NewSize(max(x2-x1, 1), l.lineH))
			r.objs = append(r.objs, rc)
		}
	}
	return nr
}
