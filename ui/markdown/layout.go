package markdown

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"sync"

	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// Layouts here measure with an explicit width (package measure) rather than trusting
// MinSize before the width is known.

// bar lays out a header: objs[0] on the left, the rest on the right, at their minimum sizes,
// centred vertically.
type bar struct{ gap float32 }

func (l *bar) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	x := size.Width
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if !o.Visible() {
			continue
		}
		m := o.MinSize()
		if i == 0 {
			o.Move(fyne.NewPos(0, (size.Height-m.Height)/2))
		} else {
			x -= m.Width
			o.Move(fyne.NewPos(x, (size.Height-m.Height)/2))
			x -= l.gap
		}
		o.Resize(m)
	}
}

func (l *bar) MinSize(objs []fyne.CanvasObject) fyne.Size {
	var w, h float32
	for _, o := range objs {
		if o.Visible() {
			m := o.MinSize()
			w += m.Width + l.gap
			h = max(h, m.Height)
		}
	}
	return fyne.NewSize(w, h)
}

// hscroll shows content at its natural width and scrolls it sideways when that is wider
// than the view: with a horizontal wheel or touchpad, or by dragging the thumb under it. A
// vertical wheel goes to onVertical (the chat), so that code blocks and tables do not stop
// the chat from scrolling.
type hscroll struct {
	widget.BaseWidget
	content    fyne.CanvasObject
	natural    func() float32
	offset     float32
	thumb      *thumb
	track      *canvas.Rectangle
	onVertical func(*fyne.ScrollEvent)
}

func newHScroll(content fyne.CanvasObject, natural func() float32, onVertical func(*fyne.ScrollEvent)) *hscroll {
	s := &hscroll{content: content, natural: natural, onVertical: onVertical, track: canvas.NewRectangle(nil)}
	s.thumb = &thumb{s: s, rect: canvas.NewRectangle(nil)}
	s.thumb.ExtendBaseWidget(s.thumb)
	s.ExtendBaseWidget(s)
	return s
}

const barHeight = 6

func (s *hscroll) contentWidth(w float32) float32 { return max(s.natural(), w) }

func (s *hscroll) overflows(w float32) bool { return s.natural() > w+0.5 }

func (s *hscroll) HeightAt(w float32) float32 {
	h := measure.HeightAt(s.content, s.contentWidth(w))
	if s.overflows(w) {
		h += barHeight + 2
	}
	return h
}

func (s *hscroll) Scrolled(ev *fyne.ScrollEvent) {
	if ev.Scrolled.DX == 0 {
		if s.onVertical != nil {
			s.onVertical(ev)
		}
		return
	}
	s.scrollTo(s.offset - ev.Scrolled.DX)
}

func (s *hscroll) scrollTo(off float32) {
	w := s.Size().Width
	off = min(off, s.contentWidth(w)-w)
	off = max(off, 0)
	if off != s.offset {
		s.offset = off
		s.Refresh()
	}
}

func (s *hscroll) CreateRenderer() fyne.WidgetRenderer {
	liveScrolls.Lock()
	liveScrolls.set[s] = struct{}{}
	liveScrolls.Unlock()
	return &hscrollRenderer{s: s}
}

// liveScrolls are the hscrolls that have a renderer: a layer drawn over them that takes the
// wheel (the chat's, for its own step) hands them their sideways scrolling (ScrollSideways).
var liveScrolls = struct {
	sync.Mutex
	set map[*hscroll]struct{}
}{set: map[*hscroll]struct{}{}}

// ScrollSideways gives a sideways wheel or touchpad scroll (ev.Scrolled.DX) to the code block
// or table of canvas c under ev.AbsolutePosition whose content is wider than it, and reports
// whether one took it. A block on another canvas, or no longer in c's tree (a row the chat's
// list put aside, a conversation closed), is found at no position and is passed over.
func ScrollSideways(c fyne.Canvas, ev *fyne.ScrollEvent) bool {
	if ev.Scrolled.DX == 0 {
		return false
	}
	liveScrolls.Lock()
	scrolls := make([]*hscroll, 0, len(liveScrolls.set))
	for s := range liveScrolls.set {
		scrolls = append(scrolls, s)
	}
	liveScrolls.Unlock()
	d := fyne.CurrentApp().Driver()
	at := ev.AbsolutePosition
	for _, s := range scrolls {
		size := s.Size()
		if !s.Visible() || !s.overflows(size.Width) || d.CanvasForObject(s) != c {
			continue
		}
		// Not in c's tree: the drivers answer the origin, less the canvas's inset (the test
		// driver's); no block of a chat row lies there.
		p := d.AbsolutePositionForObject(s)
		if inset, _ := c.InteractiveArea(); p.IsZero() || p == fyne.NewPos(0, 0).Subtract(inset) {
			continue
		}
		if at.X >= p.X && at.X < p.X+size.Width && at.Y >= p.Y && at.Y < p.Y+size.Height {
			s.scrollTo(s.offset - ev.Scrolled.DX)
			return true
		}
	}
	return false
}

type hscrollRenderer struct{ s *hscroll }

func (r *hscrollRenderer) IsClip() {}

func (r *hscrollRenderer) Layout(size fyne.Size) {
	s := r.s
	cw := s.contentWidth(size.Width)
	s.offset = max(min(s.offset, cw-size.Width), 0)
	ch := measure.HeightAt(s.content, cw)
	s.content.Move(fyne.NewPos(-s.offset, 0))
	s.content.Resize(fyne.NewSize(cw, ch))
	over := s.overflows(size.Width)
	s.thumb.Hidden, s.track.Hidden = !over, !over
	if over {
		y := ch + 2
		s.track.FillColor = withAlpha(theme.Color(theme.ColorNameForeground), 0x10)
		s.track.CornerRadius = barHeight / 2
		s.track.Move(fyne.NewPos(0, y))
		s.track.Resize(fyne.NewSize(size.Width, barHeight))
		tw := max(size.Width*size.Width/cw, 24)
		tx := (size.Width - tw) * s.offset / max(cw-size.Width, 1)
		s.thumb.rect.FillColor = theme.Color(theme.ColorNameScrollBar)
		s.thumb.rect.CornerRadius = barHeight / 2
		s.thumb.Move(fyne.NewPos(tx, y))
		s.thumb.Resize(fyne.NewSize(tw, barHeight))
	}
}

func (r *hscrollRenderer) MinSize() fyne.Size {
	return fyne.NewSize(0, r.s.HeightAt(r.s.Size().Width))
}

func (r *hscrollRenderer) Refresh() {
	r.Layout(r.s.Size())
	r.s.track.Refresh()
	r.s.thumb.rect.Refresh()
	canvas.Refresh(r.s.content)
}

func (r *hscrollRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.s.content, r.s.track, r.s.thumb}
}
func (r *hscrollRenderer) Destroy() {
	liveScrolls.Lock()
	delete(liveScrolls.set, r.s)
	liveScrolls.Unlock()
}

// thumb is the draggable part of an hscroll's bar.
type thumb struct {
	widget.BaseWidget
	s    *hscroll
	rect *canvas.Rectangle
}

func (t *thumb) Dragged(ev *fyne.DragEvent) {
	w := t.s.Size().Width
	cw := t.s.contentWidth(w)
	tw := t.Size().Width
	if w-tw <= 0 {
		return
	}
	t.s.scrollTo(t.s.offset + ev.Dragged.DX*(cw-w)/(w-tw))
}

func (t *thumb) DragEnd() {}

func (t *thumb) CreateRenderer() fyne.WidgetRenderer {
	return &rectRenderer{obj: t, rect: t.rect}
}

type rectRenderer struct {
	obj  fyne.CanvasObject
	rect *canvas.Rectangle
}

func (r *rectRenderer) Layout(s fyne.Size)           { r.rect.Resize(s) }
func (r *rectRenderer) MinSize() fyne.Size           { return fyne.NewSize(barHeight, barHeight) }
func (r *rectRenderer) Refresh()                     { r.rect.Refresh() }
func (r *rectRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.rect} }
func (r *rectRenderer) Destroy()                     {}

// fixed is an object of a fixed height at any width (a rule, a spacer).
type fixed struct{ h float32 }

func (l *fixed) HeightFor([]fyne.CanvasObject, float32) float32 { return l.h }
func (l *fixed) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objs {
		o.Move(fyne.NewPos(0, (size.Height-1)/2))
		o.Resize(fyne.NewSize(size.Width, 1))
	}
}
func (l *fixed) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(0, l.h) }
