// Package measure lets Fyne layouts ask how tall wrapped content is at a given width.
//
// The height of wrapped text depends on the width it gets, and Fyne's stock layouts ask a
// child for its MinSize before they give it its width, so their answer is only right after a
// second layout pass. Layouts and widgets that implement the interfaces here answer for an
// explicit width instead, recursively; HeightAt asks them. The chat (package ui) and its
// Markdown renderer (ui/markdown) both measure this way.
//
// The package imports only Fyne.
package measure

import "fyne.io/fyne/v2"

// Layout is a container layout that can say how tall its objects are at a width.
type Layout interface {
	HeightFor(objects []fyne.CanvasObject, width float32) float32
}

// Sized is an object that can say how tall it is at a width.
type Sized interface {
	HeightAt(width float32) float32
}

// HeightAt returns the height o needs at width w. Other objects are resized to the width
// first, which makes wrapped text re-wrap, and then asked for their MinSize.
func HeightAt(o fyne.CanvasObject, w float32) float32 {
	if o == nil || !o.Visible() {
		return 0
	}
	switch o := o.(type) {
	case Sized:
		return o.HeightAt(w)
	case *fyne.Container:
		if m, ok := o.Layout.(Layout); ok {
			return m.HeightFor(o.Objects, w)
		}
	}
	if s := o.Size(); s.Width != w {
		o.Resize(fyne.NewSize(w, max(s.Height, 1)))
	}
	return o.MinSize().Height
}

// Column stacks its visible objects top to bottom, each at the full width, Gap apart.
type Column struct {
	Gap   float32
	width float32 // of the last Layout, for MinSize
}

// HeightFor is the column's height at width w.
func (l *Column) HeightFor(objs []fyne.CanvasObject, w float32) float32 {
	h, n := float32(0), 0
	for _, o := range objs {
		if o == nil || !o.Visible() {
			continue
		}
		h += HeightAt(o, w)
		n++
	}
	if n > 1 {
		h += l.Gap * float32(n-1)
	}
	return h
}

// Layout places the objects.
func (l *Column) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	y := float32(0)
	for _, o := range objs {
		if o == nil || !o.Visible() {
			continue
		}
		h := HeightAt(o, size.Width)
		o.Resize(fyne.NewSize(size.Width, h))
		o.Move(fyne.NewPos(0, y))
		y += h + l.Gap
	}
}

// MinSize is as wide as the widest object and as tall as the column at its last width.
func (l *Column) MinSize(objs []fyne.CanvasObject) fyne.Size {
	w := float32(0)
	for _, o := range objs {
		if o != nil && o.Visible() {
			w = max(w, o.MinSize().Width)
		}
	}
	if l.width <= 0 {
		return fyne.NewSize(w, l.HeightFor(objs, w))
	}
	return fyne.NewSize(w, l.HeightFor(objs, l.width))
}

// Inset pads its last object by Left, Top, Right and Bottom. The objects before it fill the
// whole area (a background), except that when Stripe > 0, objs[1] is a bar of that width on
// the left edge and the padding starts after it.
type Inset struct {
	Left, Top, Right, Bottom float32
	Stripe                   float32
	width                    float32 // of the last Layout, for MinSize
}

func (l *Inset) content(objs []fyne.CanvasObject) fyne.CanvasObject {
	if len(objs) == 0 {
		return nil
	}
	return objs[len(objs)-1]
}

func (l *Inset) horizontal() float32 { return l.Left + l.Right + l.Stripe }

// HeightFor is the height at width w: the content's at the width left inside, padded.
func (l *Inset) HeightFor(objs []fyne.CanvasObject, w float32) float32 {
	return HeightAt(l.content(objs), w-l.horizontal()) + l.Top + l.Bottom
}

// Layout places the background, the stripe and the content.
func (l *Inset) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	l.width = size.Width
	for i, o := range objs {
		switch {
		case i == len(objs)-1:
			o.Move(fyne.NewPos(l.Left+l.Stripe, l.Top))
			o.Resize(fyne.NewSize(size.Width-l.horizontal(), size.Height-l.Top-l.Bottom))
		case i == 1 && l.Stripe > 0:
			o.Move(fyne.NewPos(0, 0))
			o.Resize(fyne.NewSize(l.Stripe, size.Height))
		default:
			o.Move(fyne.NewPos(0, 0))
			o.Resize(size)
		}
	}
}

// MinSize is the content's, padded, and as tall as at the last width.
func (l *Inset) MinSize(objs []fyne.CanvasObject) fyne.Size {
	c := l.content(objs)
	if c == nil {
		return fyne.NewSize(0, 0)
	}
	w := c.MinSize().Width + l.horizontal()
	if l.width <= 0 {
		return fyne.NewSize(w, c.MinSize().Height+l.Top+l.Bottom)
	}
	return fyne.NewSize(w, l.HeightFor(objs, l.width))
}
