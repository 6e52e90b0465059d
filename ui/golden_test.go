package ui

import (
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestGoldenScreens compares the main screens in both themes with the images under
// testdata/ (Fyne's test driver renders the same pixels on every machine). When a change to
// the look is intended, the new image is in testdata/failed/: look at it, then move it over
// the old one.
func TestGoldenScreens(t *testing.T) {
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			h := s.build(t)
			for _, v := range []struct {
				name    string
				variant uint
			}{{"light", uint(theme.VariantLight)}, {"dark", uint(theme.VariantDark)}} {
				h.app.Settings().SetTheme(fixedVariant{Theme(), themeVariant(v.variant)})
				h.settle()
				test.AssertImageMatches(t, s.name+"-"+v.name+".png", h.m.win.Canvas().Capture())
			}
		})
	}
}
