package markdown

import (
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
	if q != v.markQ || strong != v.markStrong {
		v.markQ, v.markStrong = q, strong
		v.applyMarks()
	}
	n, _ := v.Marked()
	return n
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
		u.setMarks(Matches(u.text, v.markQ), v.markStrong)
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

// markColor is the background of a match: a wash of the warning colour, stronger for the
// current match, so that it shows in both themes without hiding the text.
func markColor(strong bool) (c fyne.ThemeColorName, alpha uint8) {
	if strong {
		return theme.ColorNameWarning, 0xb0
	}
	return theme.ColorNameWarning, 0x48
}

// drawMarks adds the match backgrounds behind the text, from rectangle nr on, and returns the
// next free rectangle.
func (r *textRenderer) drawMarks(l *textLayout, nr int) int {
	t := r.t
	for _, m := range t.marks {
		name, alpha := markColor(m.strong)
		fill := withAlpha(theme.Color(name), alpha)
		for li, ln := range l.lines {
			if ln.b <= m.a || ln.a >= m.b {
				continue
			}
			a, b := max(ln.a, m.a), min(ln.b, m.b)
			x1, x2 := t.xAt(l, li, a), t.xAt(l, li, b)
			rc := r.rect(nr)
			nr++
			rc.FillColor, rc.CornerRadius, rc.StrokeWidth = fill, 2, 0
			rc.Move(fyne.NewPos(x1, ln.y))
			rc.Resize(fyne.NewSize(max(x2-x1, 1), l.lineH))
			r.objs = append(r.objs, rc)
		}
	}
	return nr
}
