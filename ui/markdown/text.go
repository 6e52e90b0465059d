package markdown

import (
	"image/color"
	"math"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// textBlock draws one selectable piece of text (a paragraph, a heading, a table cell, a code
// block's code) with its own line breaking, so that it knows where each character is: the
// view maps the mouse to a byte offset in text and draws the selection behind the glyphs.
//
// Proportional text breaks between words (a word longer than the line is broken between
// characters); monospace text (code) keeps its lines and, when wrap is on, continues a long
// line under its own indentation.
type textBlock struct {
	widget.BaseWidget
	text string
	runs []run
	// size is the theme size of the text; mono lays it out in columns of one width.
	size fyne.ThemeSizeName
	mono bool
	wrap bool
	// sep is what copying puts before this block's text when the selection started earlier.
	sep string
	// quiet is Options.Quiet: caption size, placeholder colour, prose in italics.
	quiet bool

	lay        *textLayout
	nat        float32 // naturalWidth, when natOK
	natOK      bool
	selA, selB int // selected byte range; selA == selB is none
	// marks are Find's matches (find.go); markVer grows when they change.
	marks   []mark
	markVer int
}

// run is a range of text in one style.
type run struct {
	a, b   int
	style  fyne.TextStyle
	kind   spanKind
	strike bool
	url    string
	color  fyne.ThemeColorName // "" is the foreground
	tok    *tokenColor         // code highlighting, resolved against the theme when drawn
}

type textLayout struct {
	width   float32 // the width laid out for (math.MaxFloat32: unbounded)
	frags   []frag
	lines   []tline
	height  float32
	natural float32 // the widest line
	lineH   float32
	charW   float32 // mono
}

type tline struct {
	y      float32
	a, b   int     // byte range shown on the line (b excludes a newline)
	indent float32 // mono continuation lines start here
}

type frag struct {
	run  int
	a, b int
	x, w float32
	line int
	disp string // what is drawn (tabs expanded in code)
}

func newTextBlock(size fyne.ThemeSizeName) *textBlock {
	t := &textBlock{size: size}
	t.ExtendBaseWidget(t)
	return t
}

// setSpans fills the block from parsed spans with a base style.
func (t *textBlock) setSpans(spans []span, base fyne.TextStyle) {
	var sb strings.Builder
	t.runs = t.runs[:0]
	for _, s := range spans {
		st := base
		st.Bold = st.Bold || s.bold
		st.Italic = st.Italic || s.italic
		if s.kind == spanCode {
			st = fyne.TextStyle{Monospace: true}
		} else if t.quiet {
			st.Italic = true
		}
		a := sb.Len()
		sb.WriteString(s.text)
		t.runs = append(t.runs, run{a: a, b: sb.Len(), style: st, kind: s.kind, strike: s.strike, url: s.url})
	}
	t.text = sb.String()
	t.invalidate()
}

// setRuns fills the block with text whose runs were made by the caller (code).
func (t *textBlock) setRuns(text string, runs []run) {
	t.text, t.runs = text, runs
	t.invalidate()
}

func (t *textBlock) invalidate() {
	t.lay, t.natOK = nil, false
	t.selA, t.selB = 0, 0
}

func (t *textBlock) textSize() float32 {
	if t.quiet {
		return theme.Size(theme.SizeNameCaptionText)
	}
	return theme.Size(t.size)
}

// foreground is the colour of text that has no colour of its own.
func (t *textBlock) foreground() color.Color {
	if t.quiet {
		return theme.Color(theme.ColorNamePlaceHolder)
	}
	return theme.Color(theme.ColorNameForeground)
}

func measureText(s string, size float32, st fyne.TextStyle) float32 {
	return fyne.MeasureText(s, size, st).Width
}

// layoutAt lays the text out for width w (0 or less: unbounded), reusing the last layout.
func (t *textBlock) layoutAt(w float32) *textLayout {
	if w <= 0 || (t.mono && !t.wrap) {
		w = math.MaxFloat32
	}
	if t.lay != nil && t.lay.width == w {
		return t.lay
	}
	if t.mono {
		t.lay = t.layoutMono(w)
	} else {
		t.lay = t.layoutProportional(w)
	}
	return t.lay
}

func (t *textBlock) lineHeight() float32 {
	size := t.textSize()
	return fyne.MeasureText("M", size, fyne.TextStyle{}).Height
}

func (t *textBlock) layoutProportional(width float32) *textLayout {
	size := t.textSize()
	l := &textLayout{width: width, lineH: t.lineHeight()}
	x := float32(0)
	lineStart := 0
	newLine := func(at, next int) {
		l.lines = append(l.lines, tline{y: float32(len(l.lines)) * l.lineH, a: lineStart, b: at})
		l.natural = max(l.natural, x)
		x, lineStart = 0, next
	}
	// place adds text[a:b] of run ri at x; neighbours of one run on one line share a fragment.
	place := func(ri, a, b int, w float32) {
		line := len(l.lines)
		if k := len(l.frags) - 1; k >= 0 && l.frags[k].run == ri && l.frags[k].line == line && l.frags[k].b == a {
			l.frags[k].b = b
			l.frags[k].w += w
		} else {
			l.frags = append(l.frags, frag{run: ri, a: a, b: b, x: x, w: w, line: line})
		}
		x += w
	}
	for ri, r := range t.runs {
		st := r.style
		for i := r.a; i < r.b; {
			c := t.text[i]
			switch {
			case c == '\n':
				newLine(i, i+1)
				i++
			case c == ' ' || c == '\t':
				j := i
				for j < r.b && (t.text[j] == ' ' || t.text[j] == '\t') {
					j++
				}
				if x == 0 && lineStart == i && len(l.lines) > 0 && t.text[i-1] != '\n' {
					// Spaces where a line was wrapped are not drawn at the start of the next.
					lineStart = j
				} else {
					place(ri, i, j, measureText(strings.ReplaceAll(t.text[i:j], "\t", "    "), size, st))
				}
				i = j
			default:
				j := i
				for j < r.b && t.text[j] != ' ' && t.text[j] != '\t' && t.text[j] != '\n' {
					j++
				}
				w := measureText(t.text[i:j], size, st)
				if x > 0 && x+w > width && !t.glued(ri, i) {
					newLine(i, i)
				}
				for x+w > width && j-i > 1 {
					// Longer than a line: break between characters.
					k := t.fit(i, j, width-x, size, st)
					if k == i {
						if x == 0 {
							_, n := utf8.DecodeRuneInString(t.text[i:])
							k = i + n
						} else {
							newLine(i, i)
							continue
						}
					}
					place(ri, i, k, measureText(t.text[i:k], size, st))
					newLine(k, k)
					i = k
					w = measureText(t.text[i:j], size, st)
				}
				place(ri, i, j, w)
				i = j
			}
		}
	}
	newLine(len(t.text), len(t.text))
	l.height = float32(len(l.lines)) * l.lineH
	t.setDisp(l)
	return l
}

// glued says whether the word at i continues a word of the previous run (as in
// **bold**suffix), in which case the line is not broken between them.
func (t *textBlock) glued(ri, i int) bool {
	return ri > 0 && i == t.runs[ri].a && i > 0 && !strings.ContainsRune(" \t\n", rune(t.text[i-1]))
}

// fit returns the largest k in (i, j] on a character boundary whose text[i:k] fits in w, or i.
func (t *textBlock) fit(i, j int, w, size float32, st fyne.TextStyle) int {
	best := i
	lo, hi := i, j
	for lo < hi {
		mid := (lo + hi + 1) / 2
		for mid > lo && !utf8.RuneStart(t.text[mid]) && mid < j {
			mid--
		}
		if mid <= lo {
			break
		}
		if measureText(t.text[i:mid], size, st) <= w {
			best, lo = mid, mid
		} else {
			hi = mid - 1
		}
	}
	return best
}

const tabCols = 4

func (t *textBlock) monoCharWidth() float32 {
	return measureText("M", t.textSize(), fyne.TextStyle{Monospace: true})
}

func (t *textBlock) layoutMono(width float32) *textLayout {
	cw := t.monoCharWidth()
	l := &textLayout{width: width, lineH: t.lineHeight(), charW: cw,
		frags: make([]frag, 0, len(t.runs)+strings.Count(t.text, "\n"))}
	maxCols := math.MaxInt32
	if width < math.MaxFloat32 {
		maxCols = max(int(width/cw), 8)
	}
	col, indent, lineStart := 0, 0, 0
	atLineStart := true // still in the leading whitespace of a source line
	newLine := func(at, next int, wrapped bool) {
		l.lines = append(l.lines, tline{y: float32(len(l.lines)) * l.lineH, a: lineStart, b: at})
		l.natural = max(l.natural, float32(col)*cw)
		lineStart = next
		if wrapped {
			col = indent
			l.lines[len(l.lines)-1].indent = 0
		} else {
			col, indent, atLineStart = 0, 0, true
		}
	}
	for ri, r := range t.runs {
		fragStart, fragCol := r.a, col
		flush := func(end int) {
			if end > fragStart {
				l.frags = append(l.frags, frag{run: ri, a: fragStart, b: end, x: float32(fragCol) * cw,
					w: float32(col-fragCol) * cw, line: len(l.lines)})
			}
		}
		for i := r.a; i < r.b; {
			c, n := utf8.DecodeRuneInString(t.text[i:])
			if c == '\n' {
				flush(i)
				newLine(i, i+n, false)
				i += n
				fragStart, fragCol = i, col
				continue
			}
			w := 1
			if c == '\t' {
				w = tabCols
			}
			if col+w > maxCols && col > indent {
				flush(i)
				newLine(i, i, true)
				l.lines[len(l.lines)-1].indent = 0
				fragStart, fragCol = i, col
			}
			if atLineStart {
				if c == ' ' || c == '\t' {
					indent = min(col+w, maxCols/2)
				} else {
					atLineStart = false
				}
			}
			col += w
			i += n
		}
		flush(r.b)
	}
	newLine(len(t.text), len(t.text), false)
	// Continuation lines start at their indentation.
	for i := 1; i < len(l.lines); i++ {
		if l.lines[i].a > 0 && t.text[l.lines[i].a-1] != '\n' {
			if len(l.frags) > 0 {
				for _, f := range l.frags {
					if f.line == i {
						l.lines[i].indent = f.x
						break
					}
				}
			}
		}
	}
	l.height = float32(len(l.lines)) * l.lineH
	t.setDisp(l)
	return l
}

func (t *textBlock) setDisp(l *textLayout) {
	for i := range l.frags {
		s := t.text[l.frags[i].a:l.frags[i].b]
		if strings.IndexByte(s, '\t') >= 0 {
			s = strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabCols))
		}
		l.frags[i].disp = s
	}
}

// offsetAt is the byte offset nearest to p (in the block's coordinates).
func (t *textBlock) offsetAt(p fyne.Position) int {
	l := t.layoutAt(t.Size().Width)
	if len(l.lines) == 0 {
		return 0
	}
	if p.Y < 0 {
		return 0
	}
	li := int(p.Y / l.lineH)
	if li >= len(l.lines) {
		return len(t.text)
	}
	ln := l.lines[li]
	for _, f := range l.frags {
		if f.line != li || p.X >= f.x+f.w {
			continue
		}
		if p.X <= f.x {
			return f.a
		}
		return t.offsetInFrag(l, f, p.X-f.x)
	}
	return ln.b
}

func (t *textBlock) offsetInFrag(l *textLayout, f frag, x float32) int {
	size := t.textSize()
	st := t.runs[f.run].style
	prev := float32(0)
	for i := f.a; i < f.b; {
		_, n := utf8.DecodeRuneInString(t.text[i:])
		var w float32
		if t.mono {
			w = t.colsOf(f.a, i+n) * l.charW
		} else {
			w = measureText(strings.ReplaceAll(t.text[f.a:i+n], "\t", "    "), size, st)
		}
		if x < (prev+w)/2 {
			return i
		}
		prev = w
		i += n
	}
	return f.b
}

func (t *textBlock) colsOf(a, b int) float32 {
	c := 0
	for _, r := range t.text[a:b] {
		if r == '\t' {
			c += tabCols
		} else {
			c++
		}
	}
	return float32(c)
}

// xAt is the x of byte offset off on line li.
func (t *textBlock) xAt(l *textLayout, li, off int) float32 {
	ln := l.lines[li]
	x := ln.indent
	for _, f := range l.frags {
		if f.line != li {
			continue
		}
		if off <= f.a {
			return f.x
		}
		if off <= f.b {
			if t.mono {
				return f.x + t.colsOf(f.a, off)*l.charW
			}
			return f.x + measureText(strings.ReplaceAll(t.text[f.a:off], "\t", "    "), t.textSize(), t.runs[f.run].style)
		}
		x = f.x + f.w
	}
	return x
}

// naturalWidth is the width of the widest line when nothing wraps.
func (t *textBlock) naturalWidth() float32 {
	if t.mono && !t.wrap {
		return t.layoutAt(0).natural
	}
	if t.natOK {
		return t.nat
	}
	saved := t.lay
	t.nat, t.natOK = t.layoutAt(0).natural, true
	if saved != nil {
		t.lay = saved
	}
	return t.nat
}

// HeightAt is the block's height at width w.
func (t *textBlock) HeightAt(w float32) float32 { return t.layoutAt(w).height }

func (t *textBlock) setSelection(a, b int) {
	if a > b {
		a, b = b, a
	}
	if a == t.selA && b == t.selB {
		return
	}
	t.selA, t.selB = a, b
	t.Refresh()
}

func (t *textBlock) selected() string {
	if t.selA >= t.selB {
		return ""
	}
	return t.text[t.selA:t.selB]
}
