package ui

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestComposerCursorIsSteady: focused, the composer's cursor is drawn in full and Fyne's fade
// (which repaints the whole window a dozen times a second) is stopped. It also fails when a
// Fyne upgrade renames the entry's cursor fields that steadyCursor reads, so that the
// composer would quietly fall back to the fade.
func TestComposerCursorIsSteady(t *testing.T) {
	test.NewTempApp(t)
	e := newComposerEntry()
	w := test.NewWindow(e)
	defer w.Close()
	anim, cursor, ok := entryCursor(&e.Entry)
	if !ok {
		t.Fatal("the composer's cursor cannot be reached: steadyCursor cannot replace Fyne's fading cursor")
	}
	w.Canvas().Focus(e)
	if *anim == nil {
		t.Fatal("Fyne started no cursor animation on focus: the entry changed, check steadyCursor")
	}
	if cursor.FillColor != theme.Color(theme.ColorNamePrimary) {
		t.Fatalf("focused, the cursor is %v, want the primary colour in full", cursor.FillColor)
	}
	// Fyne's test driver runs a new animation to its end at once, which also leaves the
	// primary colour; so the cursor is dimmed here as the fade would, and the entry told of
	// the focus again while its animation exists (Fyne starts no other): only steadyCursor
	// draws the cursor in full again.
	cursor.FillColor = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x40}
	e.FocusGained()
	if cursor.FillColor != theme.Color(theme.ColorNamePrimary) {
		t.Fatalf("focused again, the cursor stays %v, want the primary colour in full", cursor.FillColor)
	}
	// Focus lost and found again: Fyne makes a new animation, which is stopped too.
	w.Canvas().Unfocus()
	*anim = nil // as Fyne's stop does; the renderer starts a new one on the next focus
	w.Canvas().Focus(e)
	if *anim == nil || cursor.FillColor != theme.Color(theme.ColorNamePrimary) {
		t.Fatalf("refocused: animation %v, cursor %v", *anim, cursor.FillColor)
	}
}
