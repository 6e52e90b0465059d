package markdown

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
)

// How a textBlock is drawn: its laid-out fragments as canvas texts, the selection and Find
// marks as rectangles behind them, and the colour of each run.

func (t *textBlock) CreateRenderer() fyne.WidgetRenderer { return &textRenderer{t: t} }

type textRenderer struct {
	t     *textBlock
	texts []*canvas.Text
	rects []*canvas.Rectangle
	objs  []fyne.CanvasObject
	built *textLayout
	selA  int
	selB  int
	marks int // the markVer drawn
}

func (r *textRenderer) Layout(s fyne.Size) {
	l := r.t.layoutAt(s.Width)
	if l != r.built || r.selA != r.t.selA || r.selB != r.t.selB || r.marks != r.t.markVer {
		r.build(l)
	}
}

func (r *textRenderer) MinSize() fyne.Size {
	w := r.t.Size().Width
	l := r.t.layoutAt(w)
	if r.t.mono && !r.t.wrap {
		return fyne.NewSize(l.natural, l.height)
	}
	return fyne.NewSize(0, l.height)
}

func (r *textRenderer) Refresh() {
	r.build(r.t.layoutAt(r.t.Size().Width))
	canvas.Refresh(r.t)
}

func (r *textRenderer) Objects() []fyne.CanvasObject { return r.objs }
func (r *textRenderer) Destroy()                     {}

func (r *textRenderer) rect(i int) *canvas.Rectangle {
	for len(r.rects) <= i {
		r.rects = append(r.rects, canvas.NewRectangle(color.Transparent))
	}
	return r.rects[i]
}

func (r *textRenderer) build(l *textLayout) {
	t := r.t
	r.built, r.selA, r.selB, r.marks = l, t.selA, t.selB, t.markVer
	r.objs = r.objs[:0]
	nr := 0
	size := t.textSize()
	fg := t.foreground()
	// The selection, behind everything.
	if t.selA < t.selB {
		selColor := theme.Color(theme.ColorNameSelection)
		for li, ln := range l.lines {
			if ln.b < t.selA || ln.a > t.selB || (ln.b == t.selA && ln.a != ln.b) {
				continue
			}
			a, b := max(ln.a, t.selA), min(ln.b, t.selB)
			x1 := t.xAt(l, li, a)
			x2 := t.xAt(l, li, b)
			if t.selB > ln.b {
				x2 += size / 3 // the line break is selected too
			}
			rc := r.rect(nr)
			nr++
			rc.FillColor, rc.CornerRadius, rc.StrokeWidth = selColor, 0, 0
			rc.Move(fyne.NewPos(x1, ln.y))
			rc.Resize(fyne.NewSize(max(x2-x1, 1), l.lineH))
			r.objs = append(r.objs, rc)
		}
	}
	// Find's matches, over the selection and behind the text.
	nr = r.drawMarks(l, nr)
	// Inline code backgrounds.
	for _, f := range l.frags {
		if t.runs[f.run].kind != spanCode || t.mono {
			continue
		}
		rc := r.rect(nr)
		nr++
		rc.FillColor, rc.CornerRadius, rc.StrokeWidth = withAlpha(fg, 0x1a), 3, 0
		rc.Move(fyne.NewPos(f.x-2, l.lines[f.line].y+1))
		rc.Resize(fyne.NewSize(f.w+4, l.lineH-2))
		r.objs = append(r.objs, rc)
	}
	for i, f := range l.frags {
		for len(r.texts) <= i {
			r.texts = append(r.texts, canvas.NewText("", fg))
		}
		tx := r.texts[i]
		ru := t.runs[f.run]
		tx.Text, tx.TextSize, tx.TextStyle = f.disp, size, ru.style
		tx.Color = t.colorOf(ru, fg)
		y := l.lines[f.line].y
		tx.Move(fyne.NewPos(f.x, y))
		tx.Resize(fyne.NewSize(f.w, l.lineH))
		r.objs = append(r.objs, tx)
		if ru.kind == spanLink || ru.strike {
			rc := r.rect(nr)
			nr++
			rc.FillColor, rc.CornerRadius, rc.StrokeWidth = tx.Color, 0, 0
			ly := y + l.lineH*0.82
			if ru.strike {
				ly = y + l.lineH*0.52
			}
			rc.Move(fyne.NewPos(f.x, ly))
			rc.Resize(fyne.NewSize(f.w, 1))
			r.objs = append(r.objs, rc)
		}
	}
}

func (t *textBlock) colorOf(ru run, fg color.Color) color.Color {
	switch {
	case ru.tok != nil:
		return ru.tok.resolve(fg)
	case ru.kind == spanLink:
		return theme.Color(theme.ColorNameHyperlink)
	case ru.color != "":
		return theme.Color(ru.color)
	}
	return fg
}

// linkAt is the URL under p, if any.
func (t *textBlock) linkAt(p fyne.Position) string {
	l := t.layoutAt(t.Size().Width)
	li := int(p.Y / l.lineH)
	for _, f := range l.frags {
		if f.line == li && p.X >= f.x && p.X < f.x+f.w && t.runs[f.run].kind == spanLink {
			return t.runs[f.run].url
		}
	}
	return ""
}

func withAlpha(c color.Color, a uint8) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}
