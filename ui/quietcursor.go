package ui

import (
	"reflect"
	"unsafe"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// Why the composer's cursor does not blink (issue 28, "quiet while idle"): Fyne's entry fades
// its cursor in and out for as long as it is focused, and each step of the fade refreshes it
// — about a dozen frames a second. Fyne repaints the whole window for every frame, and with a
// conversation open a frame is the whole visible chat, so a window that only waited for the
// person spent ~10% of a core, 2.8× a bare window with a focused entry (a CPU profile of the
// idle app, PHOENIX_CPU_PROFILE, is all glCanvas.paint, and the software rasteriser's threads
// as much again). The composer's cursor is drawn steady instead, as terminals and editors
// offer: no frame at all while nobody types, and the same cursor the moment one does.

// entryCursor reaches the cursor of a Fyne entry and the animation Fyne runs on it. Fyne has
// no option to keep one entry's cursor steady (only all animations, the person's setting), so
// the fields are read by name; a Fyne version that renames them leaves ok false
// (TestComposerCursorIsSteady fails), and the entry keeps Fyne's own animation.
func entryCursor(e *widget.Entry) (anim **fyne.Animation, cursor *canvas.Rectangle, ok bool) {
	v := reflect.ValueOf(e).Elem().FieldByName("cursorAnim")
	if !v.IsValid() || v.Kind() != reflect.Pointer || v.IsNil() {
		return nil, nil, false
	}
	a := v.Elem()
	af, cf := a.FieldByName("anim"), a.FieldByName("cursor")
	if !af.IsValid() || af.Type() != reflect.TypeOf((*fyne.Animation)(nil)) ||
		!cf.IsValid() || cf.Type() != reflect.TypeOf((*canvas.Rectangle)(nil)) || cf.IsNil() {
		return nil, nil, false
	}
	anim = (**fyne.Animation)(unsafe.Pointer(af.UnsafeAddr()))
	cursor = *(**canvas.Rectangle)(unsafe.Pointer(cf.UnsafeAddr()))
	return anim, cursor, true
}

// steadyCursor stops the fade Fyne starts whenever the entry is drawn focused without one, and
// draws the cursor in full. The stopped animation stays in place, so the entry starts no other
// until it loses the focus (which is why FocusGained calls this again).
func steadyCursor(e *widget.Entry) {
	anim, cursor, ok := entryCursor(e)
	if !ok {
		return
	}
	if *anim != nil {
		(*anim).Stop()
	}
	cursor.FillColor = theme.Color(theme.ColorNamePrimary)
	cursor.Refresh()
}

// FocusGained keeps the composer's cursor steady (quietcursor.go).
func (e *composerEntry) FocusGained() {
	e.Entry.FocusGained()
	steadyCursor(&e.Entry)
}
