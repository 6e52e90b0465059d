package button

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Enter, the keypad's Enter and Space press a focused button; other keys and a disabled button
// do nothing.
func TestEnterPressesTheButton(t *testing.T) {
	test.NewTempApp(t)
	for _, key := range []fyne.KeyName{fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace} {
		n := 0
		b := New("Go", func() { n++ })
		w := test.NewTempWindow(t, b)
		w.Canvas().Focus(b)
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: key})
		if n != 1 {
			t.Errorf("%s on a focused button pressed it %d times, want once", key, n)
		}
		b.Disable()
		w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: key})
		if n != 1 {
			t.Errorf("%s on a disabled button pressed it", key)
		}
	}
	n := 0
	b := NewWithIcon("Go", nil, func() { n++ })
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyA})
	if n != 0 {
		t.Errorf("the key A pressed the button")
	}
	// Escape runs OnEscape (a dialog's Cancel) and does not press the button.
	escaped := 0
	b.OnEscape = func() { escaped++ }
	b.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if escaped != 1 || n != 0 {
		t.Errorf("Escape ran OnEscape %d times and pressed the button %d times, want once and never", escaped, n)
	}
}

// countingIcon is an SVG icon that counts how often the button reads (and so re-parses) it.
type countingIcon struct{ reads int }

func (c *countingIcon) Name() string { return "counting.svg" }
func (c *countingIcon) Content() []byte {
	c.reads++
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24" viewBox="0 0 24 24"><path fill="#000" d="M2 2h20v20H2z"/></svg>`)
}

// otherTheme is a theme the app has not drawn with yet.
type otherTheme struct{ fyne.Theme }

// drawnText is the text the window draws for the button: what a person sees, not the field.
func drawnText(w fyne.Window) string {
	var s []string
	for _, o := range test.LaidOutObjects(w.Content()) {
		if t, ok := o.(*canvas.Text); ok && t.Visible() && t.Text != "" {
			s = append(s, t.Text)
		}
	}
	return strings.Join(s, " ")
}

// Issue 36 (open fast): the window's containers refresh every child each time a part is shown
// or hidden; a button whose text, icon, importance and theme are as they were is not drawn
// again (Fyne re-reads and re-parses its SVG icon on every refresh), but one whose text or
// importance was set directly, without its own Refresh, shows the change at the container's
// refresh, and a change of theme re-colours its icon.
func TestRefreshRedrawsOnlyWhatChanged(t *testing.T) {
	a := test.NewTempApp(t)
	icon := &countingIcon{}
	b := NewWithIcon("Before", icon, nil)
	box := container.NewVBox(b)
	w := test.NewTempWindow(t, box)
	w.Resize(fyne.NewSize(300, 100))
	reads := icon.reads // the renderer drew it as it is: the first refresh has nothing to add
	for range 3 {
		box.Refresh()
	}
	if icon.reads != reads {
		t.Errorf("3 refreshes of the container with nothing changed read the icon %d more times, want none", icon.reads-reads)
	}

	b.Text = "After" // no b.Refresh: the container's refresh must show it
	box.Refresh()
	if got := drawnText(w); got != "After" {
		t.Errorf("after the text was set and the container refreshed, the button shows %q, want %q", got, "After")
	}
	reads = icon.reads
	b.Importance = widget.HighImportance
	box.Refresh()
	if icon.reads == reads {
		t.Errorf("a change of importance did not re-colour the icon")
	}
	reads = icon.reads
	a.Settings().SetTheme(&otherTheme{theme.DefaultTheme()})
	if icon.reads == reads {
		t.Errorf("a change of theme did not re-colour the icon")
	}
	b.Disable()
	b.Enable()
	b.SetText("Set")
	if got := drawnText(w); got != "Set" {
		t.Errorf("after SetText the button shows %q, want %q", got, "Set")
	}
}
