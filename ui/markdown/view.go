package markdown

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// Options connect a View to the window around it.
type Options struct {
	// OnScroll receives vertical wheel events over code blocks and tables (which scroll only
	// sideways), so that the chat around the view keeps scrolling.
	OnScroll func(*fyne.ScrollEvent)
	// OnHeightChange is called when the view's height changed on its own (a code block's Wrap
	// toggle), so that its owner can measure it again.
	OnHeightChange func()
	// Do runs a function on the UI goroutine (code colours computed in the background are
	// applied through it); nil means fyne.Do.
	Do func(func())
	// Quiet draws an aside (a model's reasoning) so that it never competes with the text
	// around it: every block in the caption size and the placeholder colour, prose in
	// italics (code stays upright). Links keep their colour so that they still show.
	Quiet bool
	// Span, when set, carries a selection past the view into its neighbours (span.go).
	Span Spanner
}

// View shows Markdown. Any part of it can be selected by dragging (double-click selects a
// word, Shift+click extends the selection) and copied with Ctrl+C or the context menu, which
// also selects all of it. Links open in the browser when clicked.
//
// A View must be used on the UI goroutine.
type View struct {
	widget.BaseWidget
	opts    Options
	src     string
	parts   []*part
	content *fyne.Container
	units   []*textBlock
	codes   []*codeBlock
	builtFG color.Color
	// highlighting counts worker starts whose end has not reached the UI goroutine yet: zero
	// means every queued code block has its colours (tests wait for it).
	highlighting int
	hl           highlighter

	anchor, head pos
	selecting    bool
	// controlDown is whether a Control key is held while the view has the focus (see
	// KeyDown).
	controlDown bool
	dragging    bool
	// dragFrom is where the drag began (the anchor while the view selects on its own).
	dragFrom pos
	// markQ and markStrong are what Mark highlights (find.go).
	markQ      []string
	markStrong bool
}

// part is one top-level block as rendered, kept while its source stays the same.
type part struct {
	key   string
	obj   fyne.CanvasObject
	units []*textBlock
	codes []*codeBlock
}

// pos is a place in the text: a byte offset in one of the view's text blocks.
type pos struct{ unit, off int }

func (p pos) before(q pos) bool { return p.unit < q.unit || (p.unit == q.unit && p.off < q.off) }

// NewView returns an empty view.
func NewView(opts Options) *View {
	v := &View{opts: opts, content: container.New(&measure.Column{Gap: blockGap()})}
	v.ExtendBaseWidget(v)
	return v
}

// SetMarkdown shows src. Top-level blocks whose source did not change keep their objects, so
// a growing text costs only its last block. The selection is cleared.
func (v *View) SetMarkdown(src string) {
	if src == v.src && v.parts != nil {
		return
	}
	v.src = src
	v.render(false)
}

// Preformatted is monospace text shown as it is (a tool's output), wrapped at any character
// when wider than the view. Diff colours its lines as DiffLineColor says.
type Preformatted struct {
	Text string
	Diff bool
}

// SetPreformatted shows monospace texts one under the other, selectable like Markdown.
func (v *View) SetPreformatted(texts ...Preformatted) {
	v.src, v.parts = "", nil
	bd := &builder{v: v}
	objs := make([]fyne.CanvasObject, 0, len(texts))
	for _, p := range texts {
		t := bd.unit(newTextBlock(theme.SizeNameText), "\n")
		t.mono, t.wrap = true, true
		runs := []run{{a: 0, b: len(p.Text), style: fyne.TextStyle{Monospace: true}}}
		if p.Diff {
			runs = highlight(p.Text, "diff")
		}
		t.setRuns(p.Text, runs)
		objs = append(objs, t)
	}
	v.units, v.codes = bd.units, nil
	v.builtFG = theme.Color(theme.ColorNameForeground)
	v.selecting = false
	v.content.Objects = objs
	v.applyMarks()
	v.relayout()
}

// Source is the Markdown shown.
func (v *View) Source() string { return v.src }

func (v *View) render(all bool) {
	blocks := parse(v.src)
	old := map[string][]*part{}
	if !all {
		for _, p := range v.parts {
			old[p.key] = append(old[p.key], p)
		}
	}
	v.parts = v.parts[:0]
	v.units, v.codes = v.units[:0], v.codes[:0]
	objs := make([]fyne.CanvasObject, 0, len(blocks))
	var unhighlighted []*codeBlock
	for _, b := range blocks {
		var p *part
		if q := old[b.key]; b.key != "" && len(q) > 0 {
			p, old[b.key] = q[0], q[1:]
			for _, u := range p.units {
				u.setSelection(0, 0)
			}
		} else {
			bd := &builder{v: v}
			p = &part{key: b.key, obj: bd.block(b, "\n\n")}
			p.units, p.codes = bd.units, bd.codes
			unhighlighted = append(unhighlighted, bd.unhighlighted...)
			for _, c := range p.codes {
				c.relayout = v.heightChanged
			}
		}
		v.parts = append(v.parts, p)
		v.units = append(v.units, p.units...)
		objs = append(objs, p.obj)
	}
	v.codes = v.codes[:0]
	for _, p := range v.parts {
		v.codes = append(v.codes, p.codes...)
	}
	v.builtFG = theme.Color(theme.ColorNameForeground)
	v.selecting = false
	v.content.Objects = objs
	v.applyMarks()
	v.relayout()
	v.highlightLater(unhighlighted)
}

func (v *View) relayout() {
	s := v.Size()
	if s.Width <= 0 {
		return
	}
	h := v.HeightAt(s.Width)
	v.content.Resize(fyne.NewSize(s.Width, h))
	v.content.Layout.Layout(v.content.Objects, v.content.Size())
	canvas.Refresh(v.content)
}

func (v *View) heightChanged() {
	v.relayout()
	if v.opts.OnHeightChange != nil {
		v.opts.OnHeightChange()
	}
}

// HeightAt is the view's height at width w (package measure asks it).
func (v *View) HeightAt(w float32) float32 { return measure.HeightAt(v.content, w) }

// Text is all the text shown, without Markdown, as copying all of it gives.
func (v *View) Text() string {
	var sb strings.Builder
	for i, u := range v.units {
		if i > 0 {
			sb.WriteString(u.sep)
		}
		sb.WriteString(u.text)
	}
	return sb.String()
}

// SelectedText is the text selected, as Ctrl+C copies it.
func (v *View) SelectedText() string {
	if v.opts.Span != nil {
		if s, ok := v.opts.Span.SpanText(v); ok {
			return s
		}
	}
	if !v.selecting {
		return ""
	}
	var sb strings.Builder
	first := true
	for _, u := range v.units {
		s := u.selected()
		if s == "" {
			continue
		}
		if !first {
			sb.WriteString(u.sep)
		}
		first = false
		sb.WriteString(s)
	}
	return sb.String()
}

// SelectAll selects everything shown.
func (v *View) SelectAll() {
	if v.opts.Span != nil {
		v.opts.Span.Press(v)
	}
	if len(v.units) == 0 {
		return
	}
	last := len(v.units) - 1
	v.anchor, v.head = pos{0, 0}, pos{last, len(v.units[last].text)}
	v.selecting = true
	v.applySelection()
}

// ClearSelection removes the selection.
func (v *View) ClearSelection() {
	v.selecting = false
	v.applySelection()
}

func (v *View) applySelection() {
	a, b := v.anchor, v.head
	if b.before(a) {
		a, b = b, a
	}
	for i, u := range v.units {
		switch {
		case !v.selecting || i < a.unit || i > b.unit:
			u.setSelection(0, 0)
		case i == a.unit && i == b.unit:
			u.setSelection(a.off, b.off)
		case i == a.unit:
			u.setSelection(a.off, len(u.text))
		case i == b.unit:
			u.setSelection(0, b.off)
		default:
			u.setSelection(0, len(u.text))
		}
	}
}

// unitRects finds where each text block is, relative to the view.
func (v *View) unitRects() map[*textBlock]fyne.Position {
	out := make(map[*textBlock]fyne.Position, len(v.units))
	var walk func(o fyne.CanvasObject, at fyne.Position)
	walk = func(o fyne.CanvasObject, at fyne.Position) {
		if o == nil || !o.Visible() {
			return
		}
		at = at.Add(o.Position())
		switch o := o.(type) {
		case *textBlock:
			out[o] = at
		case *fyne.Container:
			for _, c := range o.Objects {
				walk(c, at)
			}
		case *hscroll:
			walk(o.content, at)
		case *tableView:
			for _, row := range o.cells {
				for _, c := range row {
					walk(c, at)
				}
			}
		}
	}
	for _, o := range v.content.Objects {
		walk(o, v.content.Position())
	}
	return out
}

// posAt is the text position nearest to p (in the view's coordinates).
func (v *View) posAt(p fyne.Position) (pos, bool) {
	if len(v.units) == 0 {
		return pos{}, false
	}
	rects := v.unitRects()
	best, bestDist := -1, float32(0)
	lastAbove := -1
	for i, u := range v.units {
		at, ok := rects[u]
		if !ok {
			continue
		}
		s := u.Size()
		if p.Y >= at.Y && p.Y < at.Y+s.Height {
			d := float32(0)
			if p.X < at.X {
				d = at.X - p.X
			} else if p.X > at.X+s.Width {
				d = p.X - at.X - s.Width
			}
			if best < 0 || d < bestDist {
				best, bestDist = i, d
			}
		}
		if at.Y <= p.Y {
			lastAbove = i
		}
	}
	if best >= 0 {
		u := v.units[best]
		at := rects[u]
		q := p.Subtract(at)
		q.X = min(max(q.X, 0), u.Size().Width)
		return pos{best, u.offsetAt(q)}, true
	}
	if lastAbove >= 0 {
		return pos{lastAbove, len(v.units[lastAbove].text)}, true
	}
	return pos{0, 0}, true
}

// linkAt is the URL of the link under p.
func (v *View) linkAt(p fyne.Position) string {
	for u, at := range v.unitRects() {
		s := u.Size()
		if p.X >= at.X && p.Y >= at.Y && p.X < at.X+s.Width && p.Y < at.Y+s.Height {
			return u.linkAt(p.Subtract(at))
		}
	}
	return ""
}
