package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// Scrolling as a desktop expects (issue 41): a wheel notch moves the chat about three lines of
// text and the sidebar one row, and PageUp, PageDown, Ctrl+Home and Ctrl+End move the chat —
// also from the composer, where PageUp and PageDown are the composer's own only while it holds
// more than one line. After a click in the chat (nothing focused) Up and Down move it a line.

// wheelNotch is what Fyne's desktop driver reports for one notch of a mouse wheel (its
// scrollSpeed on Linux and Windows); a touchpad reports fractions of it, which scale the same
// way, so its scrolling stays smooth.
const wheelNotch = 25

// wheelLines is how many lines of text a notch moves the chat.
const wheelLines = 3

// lineHeight is the height of one line of the chat's text.
func lineHeight() float32 {
	return fyne.MeasureText("Mg", theme.TextSize(), fyne.TextStyle{}).Height
}

// wheelStep turns a wheel's delta into a distance: step for each notch.
func wheelStep(dy, step float32) float32 { return dy / wheelNotch * step }

// scrollBy moves the chat by dy (down when positive), within its content.
func (cv *chatView) scrollBy(dy float32) {
	if dy == 0 {
		return
	}
	cv.letGo()
	off := max(cv.list.GetScrollOffset()+dy, 0)
	off = min(off, max(cv.contentHeight()-cv.list.Size().Height, 0))
	cv.list.ScrollToOffset(off)
}

// wheel scrolls the chat for a wheel or touchpad event over its rows; a sideways one goes to
// the code block or table under the pointer, which the catcher lies over.
func (cv *chatView) wheel(ev *fyne.ScrollEvent) {
	if abs(ev.Scrolled.DX) >= abs(ev.Scrolled.DY) && cv.wheelCatcher != nil &&
		markdown.ScrollSideways(fyne.CurrentApp().Driver().CanvasForObject(cv.wheelCatcher), ev) {
		return
	}
	cv.scrollBy(-wheelStep(ev.Scrolled.DY, wheelLines*lineHeight()))
}

func abs(v float32) float32 { return max(v, -v) }

// page moves the chat a page up (dir -1) or down (dir 1), keeping a line of the old view.
func (cv *chatView) page(dir float32) {
	cv.scrollBy(dir * max(cv.list.Size().Height-lineHeight(), lineHeight()))
}

// wheelCatcher lies over a list and takes the wheel's vertical scrolling from it, so a notch
// moves the list by lines or rows rather than Fyne's pixels. Fyne hands a wheel event to the
// last scrollable under the pointer, and this is drawn after the list; it takes nothing
// else (taps, drags and hovering reach the list's rows). It is not the rows themselves that
// take the wheel: a scrollable is a clip region of its own, and a row half above the list
// would be drawn over the header.
type wheelCatcher struct {
	widget.BaseWidget
	scroll func(ev *fyne.ScrollEvent)
}

func newWheelCatcher(scroll func(ev *fyne.ScrollEvent)) *wheelCatcher {
	w := &wheelCatcher{scroll: scroll}
	w.ExtendBaseWidget(w)
	return w
}

func (w *wheelCatcher) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(container.NewWithoutLayout())
}

// Scrolled moves the list.
func (w *wheelCatcher) Scrolled(ev *fyne.ScrollEvent) { w.scroll(ev) }

// wheel makes a wheel notch over the sidebar move it one row (a row's height follows the
// theme, so it is measured on a template row each time; a wheel event is rare enough).
func (s *sidebar) wheel(ev *fyne.ScrollEvent) {
	step := newSideRow(s.m).MinSize().Height + theme.Padding()
	s.list.ScrollToOffset(max(s.list.GetScrollOffset()-wheelStep(ev.Scrolled.DY, step), 0))
}

// chatKey moves the open chat for a paging key, and reports whether it did. ctrl is whether
// Ctrl is held (Ctrl+Home and Ctrl+End go to the ends).
func (m *MainWindow) chatKey(k fyne.KeyName, ctrl bool) bool {
	if m.current == nil || m.cv == nil {
		return false
	}
	m.cv.letGo()
	switch {
	case k == fyne.KeyUp && !ctrl:
		m.cv.scrollBy(-lineHeight())
	case k == fyne.KeyDown && !ctrl:
		m.cv.scrollBy(lineHeight())
	case k == fyne.KeyPageUp && !ctrl:
		m.cv.page(-1)
	case k == fyne.KeyPageDown && !ctrl:
		m.cv.page(1)
	case k == fyne.KeyHome && ctrl:
		m.cv.follow = false
		m.cv.list.ScrollToTop()
	case k == fyne.KeyEnd && ctrl:
		m.cv.list.ScrollToBottom()
	default:
		return false
	}
	return true
}

// composerChatKey is the composer's share of the paging keys (it passes PageUp, PageDown,
// Ctrl+Home and Ctrl+End, never Up and Down): PageUp and PageDown move the
// chat unless the composer holds more than one line (then they move its cursor, as in any
// text field); Ctrl+Home and Ctrl+End always move the chat.
func (m *MainWindow) composerChatKey(k fyne.KeyName, ctrl bool) bool {
	if !ctrl && strings.Contains(m.composer.entry.Text, "\n") {
		return false
	}
	return m.chatKey(k, ctrl)
}
