package markdown

import (
	"image/color"
	"net/url"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
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
	pressAt     fyne.Position
	// markQ and markStrong are what Mark highlights (find.go).
	markQ      string
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

// highlighter is a View's one background worker that colours its code blocks. A streaming
// reply re-renders its growing code block many times a second; highlighting each version
// would cost the whole block every time (quadratic in its length). Instead the worker takes
// the queued blocks one at a time, and every render replaces the queue with the blocks the
// view still shows, so only the newest source of a block is ever coloured and the versions in
// between are never started. A result for a block that changed meanwhile is still cached (it
// colours the beginning of the next version at once) but not applied.
type highlighter struct {
	mu      sync.Mutex
	queue   []hlJob
	running bool
	// run colours code; nil means highlight. Tests count and hold the runs with it.
	run func(code, lang string) []run
}

// hlJob is one code block to colour, with its source as it was queued.
type hlJob struct {
	c          *codeBlock
	code, lang string
}

// highlightLater queues code blocks to be coloured in the background, dropping queued blocks
// the view no longer shows, and starts the View's worker if it is not running. Results are
// applied on the UI goroutine if the block still shows the same code.
func (v *View) highlightLater(cs []*codeBlock) {
	shown := make(map[*codeBlock]bool, len(v.codes))
	for _, c := range v.codes {
		shown[c] = true
	}
	v.hl.mu.Lock()
	queue := make([]hlJob, 0, len(v.hl.queue)+len(cs))
	for _, j := range v.hl.queue {
		if shown[j.c] {
			queue = append(queue, j)
		}
	}
	for _, c := range cs {
		queue = append(queue, hlJob{c: c, code: c.code, lang: c.lang})
	}
	v.hl.queue = queue
	start := !v.hl.running && len(queue) > 0
	v.hl.running = v.hl.running || start
	v.hl.mu.Unlock()
	if !start {
		return
	}
	do := v.uiDo()
	v.highlighting++
	// The work starts after the current turn of the UI loop, so that it does not take the
	// CPU from the frame that shows the plain code.
	do(func() { go v.highlightQueued(do) })
}

// uiDo is how work reaches the UI goroutine: Options.Do, or fyne.Do.
func (v *View) uiDo() func(func()) {
	if v.opts.Do != nil {
		return v.opts.Do
	}
	return fyne.Do
}

// highlightQueued is the worker: it colours queued blocks until the queue is empty.
func (v *View) highlightQueued(do func(func())) {
	run := v.hl.run
	if run == nil {
		run = highlight
	}
	for {
		v.hl.mu.Lock()
		if len(v.hl.queue) == 0 {
			v.hl.running = false
			v.hl.mu.Unlock()
			do(func() { v.highlighting-- })
			return
		}
		j := v.hl.queue[0]
		v.hl.queue = v.hl.queue[1:]
		v.hl.mu.Unlock()
		runs, final := cachedHighlight(j.code, j.lang)
		if !final {
			runs = run(j.code, j.lang)
			storeHighlight(j.code, j.lang, runs)
		}
		do(func() {
			if j.c.text.text == j.code {
				j.c.text.runs, j.c.text.lay = runs, nil
				j.c.text.Refresh()
			}
		})
	}
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

// Mouse and keyboard.

func (v *View) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button != desktop.MouseButtonPrimary {
		return
	}
	v.pressAt = ev.Position
	v.focusSelf()
	if ev.Modifier&fyne.KeyModifierShift != 0 && v.selecting {
		if p, ok := v.posAt(ev.Position); ok {
			v.head = p
			v.applySelection()
		}
		return
	}
	if v.selecting {
		v.ClearSelection()
	}
}

func (v *View) MouseUp(*desktop.MouseEvent) {}

func (v *View) Dragged(ev *fyne.DragEvent) {
	if !v.dragging {
		v.dragging = true
		start := ev.Position.Subtract(ev.Dragged)
		if p, ok := v.posAt(start); ok {
			v.anchor = p
		}
		v.focusSelf()
	}
	if p, ok := v.posAt(ev.Position); ok {
		v.head = p
		v.selecting = v.anchor != v.head
		v.applySelection()
	}
}

func (v *View) DragEnd() { v.dragging = false }

func (v *View) Tapped(ev *fyne.PointEvent) {
	if link := v.linkAt(ev.Position); link != "" && !v.selecting {
		// The parser only makes links of openable URLs; checked again here, where it opens.
		if u, err := url.Parse(link); err == nil && openable(link) {
			_ = fyne.CurrentApp().OpenURL(u)
		}
	}
}

// DoubleTapped selects the word under the pointer; identifiers and file names count as one
// word (foo_bar.go).
func (v *View) DoubleTapped(ev *fyne.PointEvent) {
	p, ok := v.posAt(ev.Position)
	if !ok {
		return
	}
	t := v.units[p.unit].text
	a, b := p.off, p.off
	for a > 0 {
		r, n := utf8.DecodeLastRuneInString(t[:a])
		if !wordRune(r) {
			break
		}
		a -= n
	}
	for b < len(t) {
		r, n := utf8.DecodeRuneInString(t[b:])
		if !wordRune(r) {
			break
		}
		b += n
	}
	// A trailing full stop ends a sentence, not a file name.
	for b > a && (t[b-1] == '.' || t[b-1] == '/' || t[b-1] == '-') {
		b--
	}
	if a == b {
		return
	}
	v.anchor, v.head = pos{p.unit, a}, pos{p.unit, b}
	v.selecting = true
	v.applySelection()
	v.focusSelf()
}

func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '/' || r == '-'
}

func (v *View) TappedSecondary(ev *fyne.PointEvent) {
	c := fyne.CurrentApp().Driver().CanvasForObject(v)
	if c == nil {
		return
	}
	// The text is taken now: the menu may take the focus, which clears the selection.
	sel := v.SelectedText()
	copyItem := fyne.NewMenuItem("Copy", func() { fyne.CurrentApp().Clipboard().SetContent(sel) })
	copyItem.Disabled = sel == ""
	all := fyne.NewMenuItem("Select all", v.SelectAll)
	widget.ShowPopUpMenuAtPosition(fyne.NewMenu("", copyItem, all), c, ev.AbsolutePosition)
}

func (v *View) copySelection() {
	if s := v.SelectedText(); s != "" {
		fyne.CurrentApp().Clipboard().SetContent(s)
	}
}

// Cursor is the text cursor: the view's text can be selected.
func (v *View) Cursor() desktop.Cursor { return desktop.TextCursor }

func (v *View) focusSelf() {
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil && c.Focused() != v {
		c.Focus(v)
	}
}

func (v *View) FocusGained() {}

// FocusLost clears the selection, as selecting in another reply or typing in the composer
// would leave two selections otherwise.
func (v *View) FocusLost() {
	v.controlDown = false
	if v.selecting {
		v.ClearSelection()
	}
}

// KeyDown and KeyUp follow the Control keys. The desktop driver hands a view like this one
// only the Copy shortcut (see Disabled), so Ctrl+A reaches it as the A key while Control is
// down, and TypedKey selects everything then, as Ctrl+A does in any text.
func (v *View) KeyDown(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyControlLeft || ev.Name == desktop.KeyControlRight {
		v.controlDown = true
	}
}

// KeyUp: see KeyDown.
func (v *View) KeyUp(ev *fyne.KeyEvent) {
	if ev.Name == desktop.KeyControlLeft || ev.Name == desktop.KeyControlRight {
		v.controlDown = false
	}
}

func (v *View) TypedRune(rune) {}

// TypedKey selects everything on Ctrl+A and hands other keys on to the window (Escape stops
// the agent there): the view only selects.
func (v *View) TypedKey(ev *fyne.KeyEvent) {
	if v.controlDown && ev.Name == fyne.KeyA {
		v.SelectAll()
		return
	}
	if c := fyne.CurrentApp().Driver().CanvasForObject(v); c != nil && c.OnTypedKey() != nil {
		c.OnTypedKey()(ev)
	}
}

// TypedShortcut copies (Ctrl+C). (The desktop driver hands a widget like this one only the
// Copy shortcut; see Disabled.)
func (v *View) TypedShortcut(s fyne.Shortcut) {
	if _, ok := s.(*fyne.ShortcutCopy); ok {
		v.copySelection()
	}
}

// Disabled reports true so that the window's other shortcuts (Ctrl+N, Ctrl+E, …) still work
// while the view has the focus: Fyne's desktop driver gives a focused widget that is
// disabled and has SelectedText only the Copy shortcut, as it does for a read-only Entry.
// The view itself is never disabled: it keeps selecting and opening links.
func (v *View) Disabled() bool { return true }

// Enable and Disable do nothing (see Disabled).
func (v *View) Enable() {}

// Disable does nothing (see Disabled).
func (v *View) Disable() {}

func (v *View) CreateRenderer() fyne.WidgetRenderer { return &viewRenderer{v: v} }

type viewRenderer struct{ v *View }

func (r *viewRenderer) Layout(s fyne.Size) {
	r.v.content.Resize(fyne.NewSize(s.Width, r.v.HeightAt(s.Width)))
}

func (r *viewRenderer) MinSize() fyne.Size {
	return fyne.NewSize(0, r.v.HeightAt(r.v.Size().Width))
}

// Refresh redraws the view; after a theme change the blocks are built again in its colours.
func (r *viewRenderer) Refresh() {
	v := r.v
	if v.builtFG != nil && !sameColor(v.builtFG, theme.Color(theme.ColorNameForeground)) && v.parts != nil {
		v.render(true)
	}
	v.content.Refresh()
}

func (r *viewRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.v.content} }
func (r *viewRenderer) Destroy()                     {}

func sameColor(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
