package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// composerEntry is the multi-line message entry: Enter and Ctrl+Enter send, Shift+Enter
// inserts a newline, Esc stops the agent.
type composerEntry struct {
	widget.Entry
	shiftKeys
	onSend func()
	onStop func()
	// onKey, when set, sees each key first and reports whether it took it (the "/" menu).
	onKey func(k *fyne.KeyEvent) bool
	// onChatKey, when set, may take the paging keys for the chat (scrolling.go): PageUp and
	// PageDown (ctrl false), Ctrl+Home and Ctrl+End (ctrl true).
	onChatKey func(k fyne.KeyName, ctrl bool) bool
	// onPaste, when set, takes Ctrl+V and the context menu's Paste (paste.go), which pastes
	// text through Entry.TypedShortcut itself.
	onPaste func(s *fyne.ShortcutPaste)
}

func newComposerEntry() *composerEntry {
	e := &composerEntry{}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(3)
	return e
}

func isShift(k fyne.KeyName) bool { return k == desktop.KeyShiftLeft || k == desktop.KeyShiftRight }

// shiftKeys tracks whether Shift is held, for the entries where it changes what Enter does
// (the composer: a new line; the find bar: the previous match).
type shiftKeys struct{ shift bool }

func (s *shiftKeys) note(k *fyne.KeyEvent, down bool) {
	if isShift(k.Name) {
		s.shift = down
	}
}

// KeyDown tracks Shift, which decides what Enter does.
func (e *composerEntry) KeyDown(k *fyne.KeyEvent) { e.note(k, true); e.Entry.KeyDown(k) }

// KeyUp tracks Shift.
func (e *composerEntry) KeyUp(k *fyne.KeyEvent) { e.note(k, false); e.Entry.KeyUp(k) }

// TypedKey sends on Enter (not Shift+Enter) and stops on Esc.
func (e *composerEntry) TypedKey(k *fyne.KeyEvent) {
	if e.onKey != nil && !e.shift && e.onKey(k) {
		return
	}
	if (k.Name == fyne.KeyPageUp || k.Name == fyne.KeyPageDown) && !e.shift && e.onChatKey != nil && e.onChatKey(k.Name, false) {
		return
	}
	switch k.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if !e.shift {
			if e.onSend != nil {
				e.onSend()
			}
			return
		}
	case fyne.KeyEscape:
		if e.onStop != nil {
			e.onStop()
		}
		return
	}
	e.Entry.TypedKey(k)
}

// TypedShortcut sends on Ctrl+Enter and hands pastes to onPaste.
func (e *composerEntry) TypedShortcut(s fyne.Shortcut) {
	if p, ok := s.(*fyne.ShortcutPaste); ok && e.onPaste != nil {
		e.onPaste(p)
		return
	}
	if cs, ok := s.(*desktop.CustomShortcut); ok && (cs.KeyName == fyne.KeyReturn || cs.KeyName == fyne.KeyEnter) &&
		cs.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0 {
		if e.onSend != nil {
			e.onSend()
		}
		return
	}
	if cs, ok := s.(*desktop.CustomShortcut); ok && (cs.KeyName == fyne.KeyHome || cs.KeyName == fyne.KeyEnd) &&
		cs.Modifier == fyne.KeyModifierShortcutDefault && e.onChatKey != nil && e.onChatKey(cs.KeyName, true) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// meter is the context bar: used over window, coloured by threshold (REQ-BED-012,
// REQ-BED-023).
type meter struct {
	widget.BaseWidget
	ratio float32
	color fyne.ThemeColorName
}

func newMeter() *meter {
	m := &meter{color: theme.ColorNamePrimary}
	m.ExtendBaseWidget(m)
	return m
}

func (m *meter) set(u domain.Usage, window int) {
	r := float32(0)
	if window > 0 {
		r = float32(u.Total()) / float32(window)
	}
	ratio := min(max(r, 0), 1)
	c := theme.ColorNamePrimary
	switch {
	case domain.AtContinuation(u, window):
		c = theme.ColorNameError
	case domain.AtWarning(u, window):
		c = theme.ColorNameWarning
	}
	if ratio == m.ratio && c == m.color {
		return // drawn so already: a refresh costs a walk to the canvas (issue 39)
	}
	m.ratio, m.color = ratio, c
	m.Refresh()
}

// setText changes a label's text when it says something else: every Refresh walks to the
// canvas and asks which goroutine it runs on, and the window's parts are refreshed at every
// state change of a tool round (issue 39, the round in the window).
func setText(l *widget.Label, text string) {
	if l.Text != text {
		l.SetText(text)
	}
}

// setFill colours a shape (a state dot) when its colour changes, as setText does for text.
func setFill(c *canvas.Circle, col color.Color) {
	if c.FillColor != col {
		c.FillColor = col
		c.Refresh()
	}
}

func (m *meter) CreateRenderer() fyne.WidgetRenderer {
	r := &meterRenderer{m: m, track: canvas.NewRectangle(color.Transparent), fill: canvas.NewRectangle(color.Transparent)}
	r.Refresh()
	return r
}

type meterRenderer struct {
	m           *meter
	track, fill *canvas.Rectangle
}

func (r *meterRenderer) Layout(s fyne.Size) {
	h := float32(6)
	y := (s.Height - h) / 2
	r.track.Move(fyne.NewPos(0, y))
	r.track.Resize(fyne.NewSize(s.Width, h))
	r.fill.Move(fyne.NewPos(0, y))
	r.fill.Resize(fyne.NewSize(s.Width*r.m.ratio, h))
}
func (r *meterRenderer) MinSize() fyne.Size { return fyne.NewSize(80, 12) }
func (r *meterRenderer) Refresh() {
	r.track.FillColor = theme.Color(theme.ColorNameInputBackground)
	r.track.CornerRadius = 3
	r.fill.FillColor = theme.Color(r.m.color)
	r.fill.CornerRadius = 3
	r.Layout(r.m.Size())
	r.track.Refresh()
	r.fill.Refresh()
}
func (r *meterRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.track, r.fill} }
func (r *meterRenderer) Destroy()                     {}

// dot is a small coloured circle: a conversation's state in the sidebar and status bar.
func newDot() (*canvas.Circle, fyne.CanvasObject) {
	c := canvas.NewCircle(color.Transparent)
	return c, container.New(layout.NewCenterLayout(), container.NewGridWrap(fyne.NewSquareSize(10), c))
}

// stateColor is the colour of a state's dot.
func stateColor(k domain.StateKind) fyne.ThemeColorName {
	switch k {
	case domain.StateLLMRequesting, domain.StateToolExecuting, domain.StateAwaitingSubAgents, domain.StateAwaitingContinuation:
		return theme.ColorNamePrimary
	case domain.StateAwaitingModeApproval:
		return theme.ColorNameWarning
	case domain.StateError, domain.StateFailed:
		return theme.ColorNameError
	case domain.StateContextExhausted:
		return theme.ColorNameDisabled
	}
	return theme.ColorNameSuccess
}

// badge is a short word on a tinted, rounded background: the mode of a conversation. A tap
// calls onTap, when set.
type badge struct {
	widget.BaseWidget
	text  string
	color fyne.ThemeColorName
	onTap func()
}

// Tapped shows the badge's details.
func (b *badge) Tapped(*fyne.PointEvent) {
	if b.onTap != nil {
		b.onTap()
	}
}

// Cursor shows the pointing hand over a badge that has details, so that it reads as
// clickable.
func (b *badge) Cursor() desktop.Cursor {
	if b.onTap != nil {
		return desktop.PointerCursor
	}
	return desktop.DefaultCursor
}

func newBadge() *badge {
	b := &badge{color: theme.ColorNameSuccess}
	b.ExtendBaseWidget(b)
	return b
}

func (b *badge) set(text string, c fyne.ThemeColorName) {
	b.text, b.color = text, c
	b.Refresh()
}

func (b *badge) CreateRenderer() fyne.WidgetRenderer {
	r := &badgeRenderer{b: b, bg: canvas.NewRectangle(color.Transparent), label: canvas.NewText("", color.Black)}
	r.label.TextStyle.Bold = true
	r.Refresh()
	return r
}

type badgeRenderer struct {
	b     *badge
	bg    *canvas.Rectangle
	label *canvas.Text
}

func (r *badgeRenderer) Layout(s fyne.Size) {
	r.bg.Resize(s)
	m := r.label.MinSize()
	r.label.Move(fyne.NewPos((s.Width-m.Width)/2, (s.Height-m.Height)/2))
	r.label.Resize(m)
}

func (r *badgeRenderer) MinSize() fyne.Size {
	return r.label.MinSize().Add(fyne.NewSize(theme.Padding()*4, theme.Padding()*1.5))
}

func (r *badgeRenderer) Refresh() {
	c := theme.Color(r.b.color)
	r.bg.FillColor = withAlpha(c, 0x30)
	r.bg.StrokeColor = c
	r.bg.StrokeWidth = 1
	r.bg.CornerRadius = 10
	r.label.Text = r.b.text
	r.label.Color = theme.Color(theme.ColorNameForeground)
	r.label.TextSize = theme.TextSize() * 0.9
	r.Layout(r.b.Size())
	r.bg.Refresh()
	r.label.Refresh()
}

func (r *badgeRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.bg, r.label} }
func (r *badgeRenderer) Destroy()                     {}

// Fyne's dialogs do not close on Escape, and a focused Entry swallows the key, so the fields
// of our dialogs are these entries, which hand Escape to onEscape (the dialog's Cancel).

// escEntry is a widget.Entry that calls onEscape on Escape.
type escEntry struct {
	widget.Entry
	onEscape func()
}

func newEscEntry() *escEntry {
	e := &escEntry{}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	return e
}

// newEscMultiLineEntry is a multi-line escEntry, as widget.NewMultiLineEntry makes.
func newEscMultiLineEntry() *escEntry {
	e := newEscEntry()
	e.MultiLine = true
	return e
}

// escCheck is a widget.Check that calls onEscape on Escape (a check box keeps the focus
// after a click).
type escCheck struct {
	widget.Check
	onEscape func()
}

func newEscCheck(label string) *escCheck {
	c := &escCheck{}
	c.Text = label
	c.ExtendBaseWidget(c)
	return c
}

// TypedKey calls onEscape on Escape.
func (c *escCheck) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && c.onEscape != nil {
		c.onEscape()
		return
	}
	c.Check.TypedKey(k)
}

// newEscPasswordEntry is a password field with a button that shows and hides the text, as
// widget.NewPasswordEntry has.
func newEscPasswordEntry() *escEntry {
	e := newEscEntry()
	e.Password = true
	var reveal *button.Button
	reveal = button.NewWithIcon("", theme.VisibilityOffIcon(), func() {
		e.Password = !e.Password
		if e.Password {
			reveal.SetIcon(theme.VisibilityOffIcon())
		} else {
			reveal.SetIcon(theme.VisibilityIcon())
		}
		e.Refresh()
	})
	reveal.Importance = widget.LowImportance
	e.ActionItem = reveal
	return e
}

// TypedKey calls onEscape on Escape.
func (e *escEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}

// escSelectEntry is a widget.SelectEntry that calls onEscape on Escape.
type escSelectEntry struct {
	widget.SelectEntry
	onEscape func()
}

func newEscSelectEntry(options []string) *escSelectEntry {
	e := &escSelectEntry{}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	e.SetOptions(options)
	return e
}

// TypedKey calls onEscape on Escape.
func (e *escSelectEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape && e.onEscape != nil {
		e.onEscape()
		return
	}
	e.SelectEntry.TypedKey(k)
}
