package markdown

import (
	"image/color"
	"net/url"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The mouse and the keyboard on a View: selecting by dragging and double-clicking, links,
// the context menu, copying, and focus.

func (v *View) MouseDown(ev *desktop.MouseEvent) {
	if ev.Button != desktop.MouseButtonPrimary {
		return
	}
	if span := v.opts.Span; span != nil {
		// Asked before taking the focus: the view that has it holds the selection to extend.
		if ev.Modifier&fyne.KeyModifierShift != 0 {
			if span.ShiftPress(v, v.OffsetAt(ev.Position)) {
				return
			}
		} else {
			span.Press(v)
		}
	}
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
			v.dragFrom = p
		}
		v.focusSelf()
	}
	if span := v.opts.Span; span != nil {
		// The pointer's absolute place: positions outside the view name its neighbours. The
		// desktop driver gives it; it is worked out where an event lacks it.
		abs := ev.AbsolutePosition
		if abs == (fyne.Position{}) {
			abs = fyne.CurrentApp().Driver().AbsolutePositionForObject(v).Add(ev.Position)
		}
		sz := v.Size()
		inside := ev.Position.X >= 0 && ev.Position.Y >= 0 && ev.Position.X < sz.Width && ev.Position.Y < sz.Height
		if span.DragTo(v, v.flat(v.dragFrom), abs, inside) {
			return
		}
	}
	if p, ok := v.posAt(ev.Position); ok {
		v.anchor, v.head = v.dragFrom, p
		v.selecting = v.anchor != v.head
		v.applySelection()
	}
}

func (v *View) DragEnd() {
	v.dragging = false
	if v.opts.Span != nil {
		v.opts.Span.DragEnd(v)
	}
}

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
	if v.opts.Span != nil {
		v.opts.Span.FocusLost(v)
	}
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
