package ui

import (
	"fyne.io/fyne/v2"

	"github.com/phoenix-desktop/phoenix/ui/measure"
)

// Chat rows have different heights, and widget.List needs each one told (SetItemHeight). The
// layouts in this file measure with an explicit width (package measure) and remember the width
// of their last Layout so that MinSize can answer the same way.

// heightAt returns the height o needs at width w.
func heightAt(o fyne.CanvasObject, w float32) float32 { return measure.HeightAt(o, w) }

// column stacks its visible objects top to bottom, each at the full width.
type column = measure.Column

// insetBy pads its last object by pad on every side (horizontally pad.Width, vertically
// pad.Height); objects before it fill the area, or with a stripe, objs[1] is a bar of that
// width on the left edge (measure.Inset).
func insetBy(pad fyne.Size, stripe float32) *measure.Inset {
	return &measure.Inset{Left: pad.Width, Right: pad.Width, Top: pad.Height, Bottom: pad.Height, Stripe: stripe}
}

// hbar puts objs[0] on the left and objs[2] on the right at their minimum widths and gives
// objs[1] the rest; any of them may be hidden. Short objects are centred on the first line.
type hbar struct {
	gap   float32
	width float32
}

func (l *hbar) sides(objs []fyne.CanvasObject) (left, right float32) {
	if len(objs) > 0 && objs[0] != nil && objs[0].Visible() {
		left = objs[0].MinSize().Width + l.gap
	}
	if len(objs) > 2 && objs[2] != nil && objs[2].Visible() {
		right = objs[2].MinSize().Width + l.gap
	}
	return left, right
}

func (l *hbar) HeightFor(objs []fyne.CanvasObject, w float32) float32 {
	left, right := l.sides(objs)
	h := float32(0)
	for i, o := range objs {
		if o == nil || !o.Visible() {
			continue
		}
		if i == 1 {
			h = max(h, heightAt(o, w-left-right))
		} else {
			h = max(h, o.MinSize().Height)
		}
	}
	return h
}

func (l *hbar) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	left, right := l.sides(objs)
	first := float32(0) // height of the first line, to centre short side objects on it
	for i, o := range objs {
		if i != 1 && o != nil && o.Visible() {
			first = max(first, o.MinSize().Height)
		}
	}
	for i, o := range objs {
		if o == nil || !o.Visible() {
			continue
		}
		switch i {
		case 0:
			m := o.MinSize()
			o.Resize(m)
			o.Move(fyne.NewPos(0, (first-m.Height)/2))
		case 1:
			cw := size.Width - left - right
			o.Resize(fyne.NewSize(cw, heightAt(o, cw)))
			o.Move(fyne.NewPos(left, 0))
		case 2:
			m := o.MinSize()
			o.Resize(m)
			o.Move(fyne.NewPos(size.Width-m.Width, (first-m.Height)/2))
		}
	}
}

func (l *hbar) MinSize(objs []fyne.CanvasObject) fyne.Size {
	left, right := l.sides(objs)
	w := left + right
	if len(objs) > 1 && objs[1] != nil && objs[1].Visible() {
		w += objs[1].MinSize().Width
	}
	width := l.width
	if width <= 0 {
		width = w
	}
	return fyne.NewSize(w, l.HeightFor(objs, width))
}

// flow places objects of fixed size left to right and wraps to a new line when the width
// runs out (the thumbnails of a message or a draft).
type flow struct {
	gap   float32
	width float32
}

func (l *flow) place(objs []fyne.CanvasObject, w float32, apply bool) float32 {
	x, y, line := float32(0), float32(0), float32(0)
	for _, o := range objs {
		if o == nil || !o.Visible() {
			continue
		}
		m := o.MinSize()
		if x > 0 && x+m.Width > w {
			x, y, line = 0, y+line+l.gap, 0
		}
		if apply {
			o.Resize(m)
			o.Move(fyne.NewPos(x, y))
		}
		x += m.Width + l.gap
		line = max(line, m.Height)
	}
	return y + line
}

func (l *flow) HeightFor(objs []fyne.CanvasObject, w float32) float32 { return l.place(objs, w, false) }

func (l *flow) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	l.place(objs, size.Width, true)
}

func (l *flow) MinSize(objs []fyne.CanvasObject) fyne.Size {
	w := float32(0)
	for _, o := range objs {
		if o != nil && o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	width := l.width
	if width <= 0 {
		width = w
	}
	return fyne.NewSize(w, l.place(objs, width, false))
}
