package markdown

import (
	"image/color"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	east "github.com/yuin/goldmark/extension/ast"

	"github.com/phoenix-desktop/phoenix/ui/button"
	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// builder turns blocks into Fyne objects and collects their selectable text blocks in
// reading order.
type builder struct {
	v     *View
	units []*textBlock
	codes []*codeBlock
	// unhighlighted code blocks wait for their colours (highlightLater).
	unhighlighted []*codeBlock
	depth         int // of list nesting
}

func blockGap() float32 { return theme.Padding() * 2 }

func (bd *builder) unit(t *textBlock, sep string) *textBlock {
	t.sep = sep
	t.quiet = bd.v.opts.Quiet
	bd.units = append(bd.units, t)
	return t
}

// blocks renders a sequence of blocks in a stack; sep goes before the first one's text.
func (bd *builder) blocks(bs []*block, gap float32, sep string) fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 0, len(bs))
	for i, b := range bs {
		s := "\n\n"
		if i == 0 {
			s = sep
		}
		objs = append(objs, bd.block(b, s))
	}
	return container.New(&measure.Column{Gap: gap}, objs...)
}

func (bd *builder) block(b *block, sep string) fyne.CanvasObject {
	switch b.kind {
	case blockParagraph:
		t := bd.unit(newTextBlock(theme.SizeNameText), sep)
		t.setSpans(b.spans, fyne.TextStyle{})
		return t
	case blockHeading:
		size := theme.SizeNameText
		switch b.level {
		case 1:
			size = theme.SizeNameHeadingText
		case 2:
			size = theme.SizeNameSubHeadingText
		}
		t := bd.unit(newTextBlock(size), sep)
		t.setSpans(b.spans, fyne.TextStyle{Bold: true})
		return t
	case blockHTML:
		t := bd.unit(newTextBlock(theme.SizeNameText), sep)
		t.mono, t.wrap = true, true
		t.setRuns(plainText(b.spans), []run{{a: 0, b: len(plainText(b.spans)), style: fyne.TextStyle{Monospace: true}, color: theme.ColorNamePlaceHolder}})
		return t
	case blockCode:
		return bd.code(b, sep)
	case blockRule:
		r := canvas.NewRectangle(theme.Color(theme.ColorNameSeparator))
		return container.New(&fixed{h: theme.Padding() * 3}, r)
	case blockQuote:
		stripe := canvas.NewRectangle(withAlpha(theme.Color(theme.ColorNameForeground), 0x40))
		p := theme.Padding()
		return container.New(&measure.Inset{Left: p * 3, Stripe: 3}, canvas.NewRectangle(color.Transparent), stripe,
			bd.blocks(b.children, blockGap(), sep))
	case blockList:
		return bd.list(b, sep)
	case blockTable:
		return bd.table(b, sep)
	}
	return canvas.NewRectangle(color.Transparent)
}

// code renders a fenced or indented code block: a tinted card with the language, a Wrap
// toggle and a Copy button over highlighted code that scrolls sideways unless wrapped.
func (bd *builder) code(b *block, sep string) fyne.CanvasObject {
	code := strings.TrimSuffix(b.code, "\n")
	t := bd.unit(newTextBlock(theme.SizeNameText), sep)
	t.mono = true
	runs, final := cachedHighlight(code, b.lang)
	t.setRuns(code, runs)
	c := &codeBlock{code: code, lang: b.lang, text: t, bg: canvas.NewRectangle(nil)}
	if !final {
		bd.unhighlighted = append(bd.unhighlighted, c)
	}
	c.scroll = newHScroll(t, t.naturalWidth, bd.v.opts.OnScroll)
	label := canvas.NewText(b.lang, theme.Color(theme.ColorNamePlaceHolder))
	label.TextSize = theme.CaptionTextSize()
	label.TextStyle = fyne.TextStyle{Monospace: true}
	do := bd.v.uiDo()
	c.copyBtn = button.NewWithIcon(copyLabel, theme.ContentCopyIcon(), func() {
		fyne.CurrentApp().Clipboard().SetContent(c.code)
		c.copyBtn.SetText(copiedLabel)
		// "Copied" answers this click only; a timer (not an animation, which would draw
		// frames all along) puts the label back unless another click came since.
		c.copies++
		n := c.copies
		time.AfterFunc(copiedFor, func() {
			do(func() {
				if c.copies == n {
					c.copyBtn.SetText(copyLabel)
				}
			})
		})
	})
	c.copyBtn.Importance = widget.LowImportance
	c.wrapBtn = button.New("Wrap", c.toggleWrap)
	c.wrapBtn.Importance = widget.LowImportance
	header := container.New(&bar{gap: 0}, label, c.wrapBtn, c.copyBtn)
	c.body = container.New(&measure.Column{}, c.scroll)
	p := theme.Padding()
	c.obj = container.New(&measure.Inset{Left: p * 2, Right: p, Bottom: p * 2}, c.bg, container.New(&measure.Column{}, header, c.body))
	c.restyle()
	bd.codes = append(bd.codes, c)
	return c.obj
}

// The Copy button's labels, and how long it says "Copied" after a click (a variable for tests).
const copyLabel, copiedLabel = "Copy", "Copied"

var copiedFor = 1500 * time.Millisecond

type codeBlock struct {
	// copies counts the Copy clicks, so that only the last one's timer resets the label.
	copies  int
	code    string
	lang    string
	text    *textBlock
	scroll  *hscroll
	body    *fyne.Container
	bg      *canvas.Rectangle
	copyBtn *button.Button
	wrapBtn *button.Button
	obj     *fyne.Container
	// relayout asks the view's owner to measure the view again (wrapping changes its height).
	relayout func()
}

func (c *codeBlock) restyle() {
	c.bg.FillColor = withAlpha(theme.Color(theme.ColorNameForeground), 0x0f)
	c.bg.CornerRadius = theme.SelectionRadiusSize() * 2
	c.bg.Refresh()
}

func (c *codeBlock) toggleWrap() {
	c.text.wrap = !c.text.wrap
	c.text.lay = nil
	if c.text.wrap {
		c.wrapBtn.SetText("No wrap")
		c.body.Objects = []fyne.CanvasObject{c.text}
	} else {
		c.wrapBtn.SetText("Wrap")
		c.scroll.offset = 0
		c.body.Objects = []fyne.CanvasObject{c.scroll}
	}
	c.body.Refresh()
	if c.relayout != nil {
		c.relayout()
	}
}

// list renders a list: a marker (bullet, number or check box) in a gutter beside each item.
func (bd *builder) list(b *block, sep string) fyne.CanvasObject {
	objs := make([]fyne.CanvasObject, 0, 2*len(b.items))
	gap := theme.Padding() / 2
	if !b.tight {
		gap = blockGap()
	}
	for i, it := range b.items {
		var marker fyne.CanvasObject
		switch {
		case it.task != taskNone:
			icon := theme.CheckButtonIcon()
			if it.task == taskDone {
				icon = theme.CheckButtonCheckedIcon()
			}
			marker = widget.NewIcon(icon)
		case b.ordered:
			marker = canvas.NewText(strconv.Itoa(b.start+i)+".", theme.Color(theme.ColorNameForeground))
		default:
			marker = canvas.NewText(bullet(bd.depth), theme.Color(theme.ColorNameForeground))
		}
		if tx, ok := marker.(*canvas.Text); ok {
			tx.Alignment = fyne.TextAlignTrailing
			if bd.v.opts.Quiet {
				tx.Color, tx.TextSize = theme.Color(theme.ColorNamePlaceHolder), theme.Size(theme.SizeNameCaptionText)
			}
		}
		s := "\n"
		if i == 0 {
			s = sep
		}
		bd.depth++
		content := bd.blocks(it.content, gap, s)
		bd.depth--
		objs = append(objs, marker, content)
	}
	return container.New(&listLayout{gap: gap}, objs...)
}

func bullet(depth int) string {
	return []string{"•", "◦", "▪"}[depth%3]
}

// listLayout places pairs of (marker, content): the markers right-aligned in a gutter as wide
// as the widest one, the content beside it.
type listLayout struct {
	gap   float32
	width float32
}

func (l *listLayout) gutter(objs []fyne.CanvasObject) float32 {
	g := float32(0)
	for i := 0; i < len(objs); i += 2 {
		g = max(g, objs[i].MinSize().Width)
	}
	return max(g, theme.IconInlineSize()) + theme.Padding()*2
}

func (l *listLayout) HeightFor(objs []fyne.CanvasObject, w float32) float32 {
	g := l.gutter(objs)
	h := float32(0)
	for i := 0; i+1 < len(objs); i += 2 {
		if i > 0 {
			h += l.gap
		}
		h += max(measure.HeightAt(objs[i+1], w-g), objs[i].MinSize().Height)
	}
	return h
}

func (l *listLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	g := l.gutter(objs)
	y := float32(0)
	lineH := fyne.MeasureText("M", theme.TextSize(), fyne.TextStyle{}).Height
	for i := 0; i+1 < len(objs); i += 2 {
		m, c := objs[i], objs[i+1]
		ch := measure.HeightAt(c, size.Width-g)
		ms := m.MinSize()
		mw := g - theme.Padding()*1.5
		if _, ok := m.(*widget.Icon); ok {
			ms = fyne.NewSquareSize(theme.IconInlineSize())
			m.Move(fyne.NewPos(mw-ms.Width, y+(lineH-ms.Height)/2))
			m.Resize(ms)
		} else {
			m.Move(fyne.NewPos(0, y))
			m.Resize(fyne.NewSize(mw, lineH))
		}
		c.Move(fyne.NewPos(g, y))
		c.Resize(fyne.NewSize(size.Width-g, ch))
		y += max(ch, ms.Height) + l.gap
	}
}

func (l *listLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	return fyne.NewSize(0, l.HeightFor(objs, l.width))
}

// table renders a GFM table as a grid in a sideways scroller.
func (bd *builder) table(b *block, sep string) fyne.CanvasObject {
	ncol := len(b.align)
	tv := &tableView{align: b.align, headerBg: canvas.NewRectangle(nil), border: canvas.NewRectangle(nil)}
	addRow := func(cells [][]span, header bool, first bool) {
		row := make([]*textBlock, ncol)
		for c := 0; c < ncol; c++ {
			s := "\t"
			if c == 0 {
				s = "\n"
				if first {
					s = sep
				}
			}
			t := bd.unit(newTextBlock(theme.SizeNameText), s)
			var sp []span
			if c < len(cells) {
				sp = cells[c]
			}
			t.setSpans(sp, fyne.TextStyle{Bold: header})
			row[c] = t
		}
		tv.cells = append(tv.cells, row)
	}
	addRow(b.header, true, true)
	for _, r := range b.rows {
		addRow(r, false, false)
	}
	tv.ExtendBaseWidget(tv)
	return newHScroll(tv, tv.naturalWidth, bd.v.opts.OnScroll)
}

type tableView struct {
	widget.BaseWidget
	align    []east.Alignment
	cells    [][]*textBlock // row 0 is the header
	headerBg *canvas.Rectangle
	border   *canvas.Rectangle
	lines    []*canvas.Rectangle
}

// maxColumn caps a column's width; longer cells wrap within it.
const maxColumn = 420

func cellPad() fyne.Size { return fyne.NewSize(theme.Padding()*2, theme.Padding()) }

func (tv *tableView) columnWidths() []float32 {
	p := cellPad()
	ws := make([]float32, len(tv.align))
	for _, row := range tv.cells {
		for c, t := range row {
			ws[c] = max(ws[c], min(t.naturalWidth(), maxColumn)+2*p.Width)
		}
	}
	return ws
}

func (tv *tableView) naturalWidth() float32 {
	w := float32(0)
	for _, c := range tv.columnWidths() {
		w += c
	}
	return w
}

func (tv *tableView) rowHeights(ws []float32) []float32 {
	p := cellPad()
	hs := make([]float32, len(tv.cells))
	for r, row := range tv.cells {
		for c, t := range row {
			hs[r] = max(hs[r], t.HeightAt(ws[c]-2*p.Width)+2*p.Height)
		}
	}
	return hs
}

func (tv *tableView) HeightAt(float32) float32 {
	h := float32(0)
	for _, rh := range tv.rowHeights(tv.columnWidths()) {
		h += rh
	}
	return h
}

func (tv *tableView) CreateRenderer() fyne.WidgetRenderer { return &tableRenderer{tv: tv} }

type tableRenderer struct {
	tv   *tableView
	objs []fyne.CanvasObject
}

func (r *tableRenderer) Layout(size fyne.Size) {
	tv := r.tv
	ws := tv.columnWidths()
	hs := tv.rowHeights(ws)
	p := cellPad()
	fg := theme.Color(theme.ColorNameForeground)
	r.objs = append(r.objs[:0], tv.headerBg, tv.border)
	total := float32(0)
	for _, w := range ws {
		total += w
	}
	tv.headerBg.FillColor = withAlpha(fg, 0x14)
	tv.headerBg.Move(fyne.NewPos(0, 0))
	tv.headerBg.Resize(fyne.NewSize(total, hs[0]))
	tv.border.FillColor = color.Transparent
	tv.border.StrokeColor = withAlpha(fg, 0x30)
	tv.border.StrokeWidth = 1
	tv.border.Resize(fyne.NewSize(total, tv.HeightAt(0)))
	nl := 0
	line := func(x, y, w, h float32) {
		for len(tv.lines) <= nl {
			tv.lines = append(tv.lines, canvas.NewRectangle(nil))
		}
		l := tv.lines[nl]
		nl++
		l.FillColor = withAlpha(fg, 0x30)
		l.Move(fyne.NewPos(x, y))
		l.Resize(fyne.NewSize(w, h))
		r.objs = append(r.objs, l)
	}
	y := float32(0)
	for ri, row := range tv.cells {
		if ri > 0 {
			line(0, y, total, 1)
		}
		x := float32(0)
		for c, t := range row {
			if ri == 0 && c > 0 {
				line(x, 0, 1, tv.HeightAt(0))
			}
			cw := ws[c] - 2*p.Width
			tw := min(t.naturalWidth(), cw)
			dx := float32(0)
			switch tv.align[c] {
			case east.AlignRight:
				dx = cw - tw
			case east.AlignCenter:
				dx = (cw - tw) / 2
			}
			t.Move(fyne.NewPos(x+p.Width+dx, y+p.Height))
			t.Resize(fyne.NewSize(cw-dx, t.HeightAt(cw-dx)))
			r.objs = append(r.objs, t)
			x += ws[c]
		}
		y += hs[ri]
	}
}

func (r *tableRenderer) MinSize() fyne.Size {
	return fyne.NewSize(r.tv.naturalWidth(), r.tv.HeightAt(0))
}

func (r *tableRenderer) Refresh() {
	r.Layout(r.tv.Size())
	for _, o := range r.objs {
		o.Refresh()
	}
}

func (r *tableRenderer) Objects() []fyne.CanvasObject {
	if len(r.objs) == 0 {
		r.Layout(r.tv.Size())
	}
	return r.objs
}
func (r *tableRenderer) Destroy() {}
