package review

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/review"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// rowCell is the diff list's template: a file header, a hunk header, a line or a note,
// whichever its row is. Every row is one line high, headers too (their controls are links
// of text), so the list keeps its fast path of uniform rows: no per-row height to sum.
type rowCell struct {
	widget.BaseWidget
	v  *View
	id int

	fileBar    *fyne.Container
	fileLabel  *canvas.Text
	reviewed   *textLink
	revertFile *textLink

	hunkBar    *fyne.Container
	hunkLabel  *canvas.Text
	revertHunk *textLink

	line *lineView
	note *canvas.Text
	all  *fyne.Container
}

func newRowCell(v *View) *rowCell {
	c := &rowCell{v: v, id: -1}
	c.ExtendBaseWidget(c)
	c.fileLabel = canvas.NewText("", theme.Color(theme.ColorNameForeground))
	c.fileLabel.TextStyle = fyne.TextStyle{Bold: true}
	c.reviewed = newTextLink("Mark reviewed")
	c.revertFile = newTextLink("Revert file")
	c.fileBar = container.New(barLayout{}, c.fileLabel, c.reviewed, c.revertFile)
	c.hunkLabel = canvas.NewText("", theme.Color(theme.ColorNamePlaceHolder))
	c.hunkLabel.TextStyle = fyne.TextStyle{Monospace: true}
	c.revertHunk = newTextLink("Revert hunk")
	c.hunkBar = container.New(barLayout{}, c.hunkLabel, c.revertHunk)
	c.line = newLineView(v)
	c.note = canvas.NewText("", theme.Color(theme.ColorNamePlaceHolder))
	c.all = container.New(steadyStack{}, c.fileBar, c.hunkBar, c.line, c.note)
	return c
}

// The row's layouts move an object only when its place changes. fyne.Container.Move asks
// for a new frame even when the place is the same, and while a frame is drawn Fyne lays out
// again every container a child of which has a new minimum size — the bars whose text a
// scroll step rebinds — so Fyne's own stack and border layouts here made every scroll step
// draw a second frame identical to the first, as costly (a whole window in software OpenGL).

// moveTo moves o to pos unless it is there.
func moveTo(o fyne.CanvasObject, pos fyne.Position) {
	if o.Position() != pos {
		o.Move(pos)
	}
}

// steadyStack lays its objects over each other, each the container's size (Fyne's stack).
type steadyStack struct{}

func (steadyStack) Layout(objs []fyne.CanvasObject, s fyne.Size) {
	for _, o := range objs {
		o.Resize(s)
		moveTo(o, fyne.Position{})
	}
}

func (steadyStack) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objs {
		if o.Visible() {
			m = m.Max(o.MinSize())
		}
	}
	return m
}

// barLayout is a header row: its first object (the text) from the left edge, the others
// (its controls) at their own widths at the right end, a padding apart, as a Border with an
// HBox on the right lays them out.
type barLayout struct{}

func (barLayout) Layout(objs []fyne.CanvasObject, s fyne.Size) {
	if len(objs) == 0 {
		return
	}
	pad := theme.Padding()
	x := s.Width
	for i := len(objs) - 1; i >= 1; i-- {
		o := objs[i]
		if !o.Visible() {
			continue
		}
		w := o.MinSize().Width
		x -= w
		o.Resize(fyne.NewSize(w, s.Height))
		moveTo(o, fyne.NewPos(x, 0))
		x -= pad
	}
	objs[0].Resize(fyne.NewSize(max(x, 0), s.Height))
	moveTo(objs[0], fyne.Position{})
}

func (barLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for i, o := range objs {
		if !o.Visible() {
			continue
		}
		ms := o.MinSize()
		if i > 0 {
			m.Width += theme.Padding()
		}
		m.Width += ms.Width
		m.Height = max(m.Height, ms.Height)
	}
	return m
}

func (c *rowCell) CreateRenderer() fyne.WidgetRenderer { return &cellRenderer{c: c} }

type cellRenderer struct{ c *rowCell }

func (r *cellRenderer) Layout(s fyne.Size)           { r.c.all.Resize(s) }
func (r *cellRenderer) MinSize() fyne.Size           { return fyne.NewSize(200, r.c.v.lineH) }
func (r *cellRenderer) Refresh()                     { r.c.all.Refresh() }
func (r *cellRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.all} }
func (r *cellRenderer) Destroy()                     {}

// textLink is a control one line of text high: a word in the theme's primary colour that
// does something when tapped.
type textLink struct {
	widget.BaseWidget
	text     *canvas.Text
	OnTapped func()
}

func newTextLink(label string) *textLink {
	l := &textLink{text: canvas.NewText(label, theme.Color(theme.ColorNamePrimary))}
	l.ExtendBaseWidget(l)
	return l
}

func (l *textLink) SetText(s string) {
	l.text.Text = s
	l.text.Refresh()
	l.Refresh()
}

func (l *textLink) Tapped(*fyne.PointEvent) {
	if l.OnTapped != nil {
		l.OnTapped()
	}
}

func (l *textLink) Cursor() desktop.Cursor { return desktop.PointerCursor }

func (l *textLink) CreateRenderer() fyne.WidgetRenderer {
	return &linkRenderer{l: l}
}

type linkRenderer struct{ l *textLink }

func (r *linkRenderer) Layout(s fyne.Size) {
	r.l.text.Move(fyne.NewPos(theme.InnerPadding()/2, 0))
	r.l.text.Resize(fyne.NewSize(s.Width-theme.InnerPadding(), s.Height))
}
func (r *linkRenderer) MinSize() fyne.Size {
	m := r.l.text.MinSize()
	return fyne.NewSize(m.Width+theme.InnerPadding(), m.Height)
}
func (r *linkRenderer) Refresh() {
	r.l.text.Color = theme.Color(theme.ColorNamePrimary)
	r.l.text.Refresh()
}
func (r *linkRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.l.text} }
func (r *linkRenderer) Destroy()                     {}

// show makes the cell show row id.
func (c *rowCell) show(id int) {
	v := c.v
	if id >= len(v.rows) {
		return
	}
	c.id = id
	r := v.rows[id]
	f := v.ch.Files[r.file]
	c.fileBar.Hidden, c.hunkBar.Hidden, c.line.Hidden, c.note.Hidden = r.kind != rowFile, r.kind != rowHunk, r.kind != rowLine, r.kind != rowNote
	switch r.kind {
	case rowFile:
		text := fmt.Sprintf("%s  %s  +%d −%d", f.Path, f.Status, f.Added, f.Deleted)
		if f.Mode != "" {
			text += "  mode " + f.Mode
		}
		c.fileLabel.Text = text
		c.fileLabel.Color = theme.Color(theme.ColorNameForeground)
		path := f.Path
		if v.Reviewed(path) {
			c.reviewed.SetText("✓ Reviewed")
		} else {
			c.reviewed.SetText("Mark reviewed")
		}
		c.reviewed.OnTapped = func() { v.SetReviewed(path, !v.Reviewed(path)) }
		file := r.file
		c.revertFile.OnTapped = func() { v.revert(file, 0) }
	case rowHunk:
		h := f.Hunks[r.hunk]
		c.hunkLabel.Text = fmt.Sprintf("Hunk %d  %s", h.N, h.Header())
		c.hunkLabel.Color = theme.Color(theme.ColorNamePlaceHolder)
		file, n := r.file, h.N
		c.revertHunk.OnTapped = func() { v.revert(file, n) }
	case rowNote:
		c.note.Color = theme.Color(theme.ColorNamePlaceHolder)
		switch {
		case f.Binary:
			c.note.Text = "Binary file: no lines to show."
		case f.Mode != "":
			c.note.Text = "Only the file's mode changed."
		default:
			c.note.Text = "An empty file."
		}
	case rowLine:
		c.line.show(id)
	}
	c.all.Refresh()
}

// lineView draws one row of code: line numbers, the +/- sign and the coloured text, one
// side or, side by side, old and new. Tapping it selects the line for a comment; with
// Shift, it extends the selection.
type lineView struct {
	widget.BaseWidget
	v     *View
	id    int
	shift bool
	r     *lineRenderer
}

func newLineView(v *View) *lineView {
	l := &lineView{v: v, id: -1}
	l.ExtendBaseWidget(l)
	return l
}

func (l *lineView) show(id int) {
	l.id = id
	if l.r != nil {
		l.r.Refresh()
	}
}

func (l *lineView) Tapped(*fyne.PointEvent) {
	if l.id < 0 {
		return
	}
	anchor := l.id
	if l.shift {
		anchor = l.v.anchor
	}
	l.v.Select(anchor, l.id)
}

func (l *lineView) MouseDown(ev *desktop.MouseEvent) {
	l.shift = ev.Modifier&fyne.KeyModifierShift != 0
}
func (l *lineView) MouseUp(*desktop.MouseEvent) {}

func (l *lineView) CreateRenderer() fyne.WidgetRenderer {
	l.r = &lineRenderer{l: l, bg: [2]*canvas.Rectangle{canvas.NewRectangle(color.Transparent), canvas.NewRectangle(color.Transparent)}, sel: canvas.NewRectangle(color.Transparent)}
	l.r.Refresh()
	return l.r
}

type lineRenderer struct {
	l    *lineView
	bg   [2]*canvas.Rectangle
	sel  *canvas.Rectangle
	nums []*canvas.Text
	code []*canvas.Text
	objs []fyne.CanvasObject
	// placed are where the texts go, in columns of the monospace grid, per side.
	placed []placedText
	size   fyne.Size
}

type placedText struct {
	t    *canvas.Text
	side int
	col  int
	num  bool // a line number: right-aligned in the gutter
}

const gutterCols = 5

func (r *lineRenderer) MinSize() fyne.Size           { return fyne.NewSize(100, r.l.v.lineH) }
func (r *lineRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *lineRenderer) Destroy()                     {}

func (r *lineRenderer) Layout(s fyne.Size) {
	r.size = s
	v := r.l.v
	cw := charWidth()
	sides := 1
	if v.split {
		sides = 2
	}
	sideW := s.Width / float32(sides)
	for i := 0; i < 2; i++ {
		r.bg[i].Move(fyne.NewPos(float32(i)*sideW, 0))
		r.bg[i].Resize(fyne.NewSize(sideW, s.Height))
		r.bg[i].Hidden = i >= sides
	}
	r.sel.Resize(fyne.NewSize(3, s.Height))
	numCols := gutterCols
	if !v.split {
		numCols = 2 * gutterCols
	}
	for _, p := range r.placed {
		x := float32(p.side)*sideW + float32(p.col)*cw
		if !p.num {
			x += float32(numCols+2) * cw
		}
		if p.num {
			// Right-aligned in its column of gutterCols characters.
			x += float32(gutterCols-1-utf8.RuneCountInString(p.t.Text)) * cw
		}
		p.t.Move(fyne.NewPos(x, 1))
		p.t.Resize(fyne.NewSize(float32(utf8.RuneCountInString(p.t.Text))*cw, s.Height-2))
	}
}

func (r *lineRenderer) Refresh() {
	l, v := r.l, r.l.v
	r.placed = r.placed[:0]
	nNums, nCode := 0, 0
	text := func(pool *[]*canvas.Text, n *int) *canvas.Text {
		if *n == len(*pool) {
			t := canvas.NewText("", color.Black)
			t.TextStyle = fyne.TextStyle{Monospace: true}
			*pool = append(*pool, t)
		}
		t := (*pool)[*n]
		*n++
		t.TextSize = theme.TextSize()
		return t
	}
	r.bg[0].FillColor, r.bg[1].FillColor = color.Transparent, color.Transparent
	r.sel.FillColor = color.Transparent
	if l.id >= 0 && l.id < len(v.rows) && v.rows[l.id].kind == rowLine {
		rw := v.rows[l.id]
		h := v.ch.Files[rw.file].Hunks[rw.hunk]
		toks := v.hl.tokens(rw.file, rw.hunk)
		a, b := min(v.anchor, v.cursor), max(v.anchor, v.cursor)
		if v.cursor >= 0 && l.id >= a && l.id <= b {
			r.sel.FillColor = theme.Color(theme.ColorNamePrimary)
		}
		muted := theme.Color(theme.ColorNamePlaceHolder)
		put := func(side int, li int, showOld, showNew bool) {
			if li < 0 {
				return
			}
			ln := h.Lines[li]
			r.bg[side].FillColor = lineBackground(ln.Kind)
			col := 0
			for _, n := range []struct {
				on bool
				n  int
			}{{showOld, ln.Old}, {showNew, ln.New}} {
				if !n.on {
					continue
				}
				if n.n > 0 {
					t := text(&r.nums, &nNums)
					t.Text, t.Color = strconv.Itoa(n.n), muted
					r.placed = append(r.placed, placedText{t: t, side: side, col: col, num: true})
				}
				col += gutterCols
			}
			sign := text(&r.code, &nCode)
			sign.Text, sign.Color = string(ln.Kind), signColor(ln.Kind)
			r.placed = append(r.placed, placedText{t: sign, side: side, col: -2})
			var lt []markdown.Token
			if toks != nil && li < len(toks) {
				lt = toks[li]
			}
			if len(lt) == 0 {
				lt = []markdown.Token{{A: 0, B: len(ln.Text)}}
			}
			c := 0
			for _, tk := range lt {
				s := expandTabs(ln.Text[tk.A:tk.B], c)
				if strings.TrimSpace(s) != "" {
					t := text(&r.code, &nCode)
					t.Text, t.Color = s, tk.Color()
					r.placed = append(r.placed, placedText{t: t, side: side, col: c})
				}
				c += utf8.RuneCountInString(s)
			}
		}
		if v.split {
			put(0, rw.left, true, false)
			put(1, rw.right, false, true)
		} else {
			put(0, rw.left, true, true)
		}
	}
	r.objs = append(r.objs[:0], r.bg[0], r.bg[1], r.sel)
	for _, t := range r.nums[:nNums] {
		r.objs = append(r.objs, t)
	}
	for _, t := range r.code[:nCode] {
		r.objs = append(r.objs, t)
	}
	r.Layout(r.size)
	for _, o := range r.objs {
		o.Refresh()
	}
}

// expandTabs turns tabs into spaces up to the next stop of four columns, from column col.
func expandTabs(s string, col int) string {
	if !strings.Contains(s, "\t") {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		if c == '\t' {
			n := 4 - col%4
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(c)
		col++
	}
	return b.String()
}

var (
	cwMu   sync.Mutex
	cwSize float32
	cwVal  float32
)

// charWidth is the width of one monospace character at the theme's text size.
func charWidth() float32 {
	cwMu.Lock()
	defer cwMu.Unlock()
	if s := theme.TextSize(); s != cwSize {
		cwSize = s
		cwVal = fyne.MeasureText("0123456789", s, fyne.TextStyle{Monospace: true}).Width / 10
	}
	return cwVal
}

func lineBackground(k review.Kind) color.Color {
	var c color.Color
	switch k {
	case review.Add:
		c = theme.Color(theme.ColorNameSuccess)
	case review.Delete:
		c = theme.Color(theme.ColorNameError)
	default:
		return color.Transparent
	}
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x30}
}

func signColor(k review.Kind) color.Color {
	switch k {
	case review.Add:
		return theme.Color(theme.ColorNameSuccess)
	case review.Delete:
		return theme.Color(theme.ColorNameError)
	}
	return theme.Color(theme.ColorNamePlaceHolder)
}

// hunkColors colours hunks in the background, one at a time, as their rows first show:
// chroma takes about a third of a millisecond a line, too much for the UI goroutine when a
// long new file scrolls into view. A row shows plain text until its hunk is coloured.
type hunkColors struct {
	v       *View
	mu      sync.Mutex
	done    map[[2]int][][]markdown.Token
	queue   []hunkJob
	queued  map[[2]int]bool
	running bool
	gen     int
}

func newHunkColors(v *View) *hunkColors {
	return &hunkColors{v: v, done: map[[2]int][][]markdown.Token{}, queued: map[[2]int]bool{}}
}

func (hc *hunkColors) reset() {
	hc.mu.Lock()
	defer hc.mu.Unlock()
	hc.gen++
	hc.done = map[[2]int][][]markdown.Token{}
	hc.queue = nil
	hc.queued = map[[2]int]bool{}
}

// tokens returns a hunk's tokens per line, or nil while they are not known (it queues the
// hunk then).
func (hc *hunkColors) tokens(file, hunk int) [][]markdown.Token {
	k := [2]int{file, hunk}
	hc.mu.Lock()
	defer hc.mu.Unlock()
	if t, ok := hc.done[k]; ok {
		return t
	}
	if hc.queued[k] {
		return nil
	}
	f := hc.v.ch.Files[file]
	lang := markdown.LanguageOf(f.Path)
	if lang == "" {
		hc.done[k] = nil
		return nil
	}
	hc.queued[k] = true
	hc.queue = append(hc.queue, hunkJob{k: k, h: f.Hunks[hunk], lang: lang})
	if !hc.running {
		hc.running = true
		go hc.work(hc.gen)
	}
	return nil
}

// hunkJob is a hunk to colour, copied when queued: the worker never reads the view.
type hunkJob struct {
	k    [2]int
	h    review.Hunk
	lang string
}

// work colours queued hunks until none is left; results reach the view on its goroutine.
func (hc *hunkColors) work(gen int) {
	for {
		hc.mu.Lock()
		if len(hc.queue) == 0 || gen != hc.gen {
			hc.running = false
			hc.mu.Unlock()
			return
		}
		j := hc.queue[0]
		hc.queue = hc.queue[1:]
		hc.mu.Unlock()
		k, toks := j.k, colourHunk(j.h, j.lang)
		hc.v.opts.Do(func() {
			hc.mu.Lock()
			stale := gen != hc.gen
			if !stale {
				hc.done[k] = toks
			}
			hc.mu.Unlock()
			if !stale {
				hc.v.diff.Refresh()
			}
		})
	}
}

// colourHunk lexes a hunk's old side and new side each as one piece of code and gives each
// line its tokens (a removed line its old side's, the others their new side's).
func colourHunk(h review.Hunk, lang string) [][]markdown.Token {
	var oldL, newL []string
	var oldAt, newAt []int
	for i, l := range h.Lines {
		if l.Kind != review.Add {
			oldAt = append(oldAt, i)
			oldL = append(oldL, l.Text)
		}
		if l.Kind != review.Delete {
			newAt = append(newAt, i)
			newL = append(newL, l.Text)
		}
	}
	out := make([][]markdown.Token, len(h.Lines))
	if ot := markdown.HighlightLines(oldL, lang); ot != nil {
		for j, i := range oldAt {
			out[i] = ot[j]
		}
	}
	if nt := markdown.HighlightLines(newL, lang); nt != nil {
		for j, i := range newAt {
			out[i] = nt[j]
		}
	}
	return out
}

// fileCell is a row of the file list: one line of text, cut off by the list's edge. A
// label truncated with an ellipsis would shape its text again and again to find where to
// cut, for every file that comes on screen: that was most of a first paint of 200 files
// (BenchmarkChangesViewFirstPaint), where this measures no text at all.
type fileCell struct {
	widget.BaseWidget
	text *canvas.Text
}

func newFileCell() *fileCell {
	c := &fileCell{text: canvas.NewText("", theme.Color(theme.ColorNameForeground))}
	c.ExtendBaseWidget(c)
	return c
}

func (c *fileCell) setText(s string) {
	if c.text.Text == s {
		return
	}
	c.text.Text = s
	c.text.Refresh()
}

func (c *fileCell) CreateRenderer() fyne.WidgetRenderer { return &fileCellRenderer{c: c} }

type fileCellRenderer struct{ c *fileCell }

func (r *fileCellRenderer) Layout(s fyne.Size) {
	p := theme.InnerPadding()
	r.c.text.Move(fyne.NewPos(p, p))
	r.c.text.Resize(fyne.NewSize(max(s.Width-2*p, 0), s.Height-2*p))
}

// MinSize is a line of the theme's text high, measured once per text size, never per file.
func (r *fileCellRenderer) MinSize() fyne.Size {
	p := theme.InnerPadding()
	return fyne.NewSize(4*p, lineHeight()+2*p)
}
func (r *fileCellRenderer) Refresh() {
	r.c.text.Color = theme.Color(theme.ColorNameForeground)
	r.c.text.TextSize = theme.TextSize()
	r.c.text.Refresh()
}
func (r *fileCellRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.c.text} }
func (r *fileCellRenderer) Destroy()                     {}

var (
	lhMu   sync.Mutex
	lhSize float32
	lhVal  float32
)

// lineHeight is the height of a line of the theme's regular text.
func lineHeight() float32 {
	lhMu.Lock()
	defer lhMu.Unlock()
	if s := theme.TextSize(); s != lhSize {
		lhSize = s
		lhVal = fyne.MeasureText("Mg", s, fyne.TextStyle{}).Height
	}
	return lhVal
}
