package button

import (
	"reflect"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Button is a widget.Button that Enter presses too.
type Button struct {
	widget.Button
	// OnEscape, when set, runs on Escape (a dialog's Cancel): the key goes to what has the
	// focus, so without it Escape on a focused button in a dialog did nothing.
	OnEscape func()
	// shown is what the last Refresh called on this Button drew (see Refresh).
	shown look
}

// look is everything a Refresh from outside can show differently: the fields a caller sets
// directly, and the theme and scale the button is drawn with. The button's own state changes
// (hover, focus, Disable, SetText, SetIcon) refresh through widget.Button's Refresh, which
// this type does not override, so they never wait on this; a new size lays the button out
// and re-rasterises its icon through Resize.
type look struct {
	text       string
	icon       fyne.Resource
	importance widget.Importance
	alignment  widget.ButtonAlign
	placement  widget.ButtonIconPlacement
	disabled   bool
	hidden     bool
	th         fyne.Theme
	variant    fyne.ThemeVariant
	scale      float32
	valid      bool
}

func (b *Button) look() look {
	s := fyne.CurrentApp().Settings()
	return look{
		text: b.Text, icon: b.Icon, importance: b.Importance, alignment: b.Alignment,
		placement: b.IconPlacement, disabled: b.Disabled(), hidden: b.Hidden,
		th: s.Theme(), variant: s.ThemeVariant(), scale: s.Scale(), valid: true,
	}
}

// same reports whether two looks draw the same; icons are compared as values only where
// their type allows it (a resource held by value with a byte slice does not).
func (l look) same(o look) bool {
	if !l.valid || !o.valid {
		return false
	}
	if !comparable(l.icon) || !comparable(o.icon) || !comparable(l.th) || !comparable(o.th) {
		return false
	}
	return l == o
}

func comparable(v any) bool { return v == nil || reflect.TypeOf(v).Comparable() }

// CreateRenderer notes what the new renderer drew: widget.Button's draws the button as it is
// (its text, icon and theme), so the first Refresh from a container has nothing to add.
func (b *Button) CreateRenderer() fyne.WidgetRenderer {
	r := b.Button.CreateRenderer()
	b.shown = b.look()
	return r
}

// Refresh redraws the button when what it shows has changed since the last Refresh called on
// it. The window's containers refresh every child whenever a part is shown or hidden
// (MainWindow.relayout), and widget.Button's Refresh re-colours and re-parses its SVG icon
// each time (twice: once for the icon, once for the theme): with ~100 buttons that was most
// of the window's CPU time before it first showed (issue 36, open fast).
func (b *Button) Refresh() {
	l := b.look()
	if l.same(b.shown) {
		return
	}
	b.shown = l
	b.Button.Refresh()
}

// New makes a button with a label; tapped runs on a click, Space or Enter.
func New(label string, tapped func()) *Button {
	return NewWithIcon(label, nil, tapped)
}

// NewWithIcon makes a button with a label and an icon (either may be empty).
func NewWithIcon(label string, icon fyne.Resource, tapped func()) *Button {
	b := &Button{}
	b.Text = label
	b.Icon = icon
	b.OnTapped = tapped
	b.ExtendBaseWidget(b)
	return b
}

// TypedKey presses the button on Return and the keypad's Enter as on Space, and runs OnEscape
// on Escape; widget.Button's Tapped already does nothing while the button is disabled.
func (b *Button) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && b.OnEscape != nil {
		b.OnEscape()
		return
	}
	if ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter {
		ev = &fyne.KeyEvent{Name: fyne.KeySpace, Physical: ev.Physical}
	}
	b.Button.TypedKey(ev)
}
