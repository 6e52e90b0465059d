package button

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// Button is a widget.Button that Enter presses too.
type Button struct {
	widget.Button
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

// TypedKey presses the button on Return and the keypad's Enter as on Space; widget.Button's
// Tapped already does nothing while the button is disabled.
func (b *Button) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter {
		ev = &fyne.KeyEvent{Name: fyne.KeySpace, Physical: ev.Physical}
	}
	b.Button.TypedKey(ev)
}
