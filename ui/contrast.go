package ui

import (
	"image/color"
	"math"
	"slices"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// Theme is the app's look: Fyne's default theme (light or dark as the desktop asks), with
// every colour that text or a meaningful icon is drawn in moved, only as far as needed, until
// it reads at WCAG AA on every surface the window draws it on. Fyne's own palette draws hints
// (LowImportance labels) in its "disabled" grey, #39393A on #171718 in the dark variant, a
// contrast of 1.5:1; the light variant's green, orange and placeholder grey fail on white.
func Theme() fyne.Theme { return &readableTheme{Theme: theme.DefaultTheme()} }

// The washes rows are tinted with: a wash of the row's accent over the window's background
// (notices, tool rows), the person's own messages, and the approval card. Text is drawn on
// them, so they are surfaces the contrast table checks.
const (
	washAlpha         = 0x18
	userWashAlpha     = 0x24
	approvalWashAlpha = 0x30
)

// textContrast is WCAG 2.x AA's minimum for body text. Large text and meaningful icons need
// only 3:1, but they are drawn in these same colours, so the one minimum covers them.
const textContrast = 4.5

// adjustMargin is how far above its minimum the theme aims a colour.
const adjustMargin = 0.15

// surface is something text is drawn on: a theme colour, optionally washed with another
// colour at an alpha over it.
type surface struct {
	base  fyne.ThemeColorName
	wash  fyne.ThemeColorName // "" for the plain base
	alpha uint8
}

// plainSurfaces are where ordinary text sits: the window, fields, the header, menus and
// pop-ups, buttons, hovered and selected rows, and the tinted rows of the chat.
var plainSurfaces = func() []surface {
	s := []surface{
		{base: theme.ColorNameBackground},
		{base: theme.ColorNameInputBackground},
		{base: theme.ColorNameHeaderBackground},
		{base: theme.ColorNameMenuBackground},
		{base: theme.ColorNameOverlayBackground},
		{base: theme.ColorNameButton},
		{base: theme.ColorNameBackground, wash: theme.ColorNameHover, alpha: 0xff},
		{base: theme.ColorNameBackground, wash: theme.ColorNameSelection, alpha: 0xff},
		{base: theme.ColorNameBackground, wash: theme.ColorNamePrimary, alpha: userWashAlpha},
		{base: theme.ColorNameBackground, wash: theme.ColorNameWarning, alpha: approvalWashAlpha},
		// Code blocks and table headers (markdown/blocks.go): the stronger of their washes.
		{base: theme.ColorNameBackground, wash: theme.ColorNameForeground, alpha: 0x14},
	}
	for _, accent := range []fyne.ThemeColorName{theme.ColorNamePrimary, theme.ColorNameError,
		theme.ColorNameWarning, theme.ColorNameSuccess, theme.ColorNamePlaceHolder} {
		s = append(s, surface{base: theme.ColorNameBackground, wash: accent, alpha: washAlpha})
	}
	return s
}()

// findMarkAlphas are Find's match backgrounds (markdown.ColorNameFindMark, and Strong for the
// current row's): the base theme's warning colour washed over the window's background, per
// variant, as strongly as still lets the text on them read at textContrast with little or no
// adjustment of its colour. A lighter wash on the dark variant keeps light text readable; the
// current row's matches are outlined as well (markdown.markColor).
var findMarkAlphas = map[fyne.ThemeColorName]map[fyne.ThemeVariant]uint8{
	markdown.ColorNameFindMark:       {theme.VariantLight: 0x50, theme.VariantDark: 0x30},
	markdown.ColorNameFindMarkStrong: {theme.VariantLight: 0x80, theme.VariantDark: 0x50},
}

// findSurfaces are Find's match backgrounds, where the text of a reply or a message sits
// while Find highlights it.
var findSurfaces = []surface{{base: markdown.ColorNameFindMark}, {base: markdown.ColorNameFindMarkStrong}}

// textColor is one colour text (or a meaningful icon) is drawn in, the surfaces it is drawn
// on and the contrast it needs there.
type textColor struct {
	name     fyne.ThemeColorName
	min      float64
	surfaces []surface
}

// textColors is the one table of the colours the app draws text and meaningful icons in
// (Fyne's widgets included: a LowImportance label is drawn in "disabled", an entry's hint in
// "placeHolder"). The theme reads it to adjust colours; TestThemeContrast reads it to check
// them, and fails when the app's code names a colour this table does not class.
var textColors = []textColor{
	// A reply's text, its links and its quoted or code lines are drawn on Find's matches too.
	{theme.ColorNameForeground, textContrast, slices.Concat(plainSurfaces, findSurfaces)},
	{theme.ColorNameDisabled, textContrast, slices.Concat(plainSurfaces, []surface{{base: theme.ColorNameDisabledButton}})},
	{theme.ColorNamePlaceHolder, textContrast, slices.Concat(plainSurfaces, findSurfaces)},
	{theme.ColorNamePrimary, textContrast, plainSurfaces},
	{theme.ColorNameHyperlink, textContrast, slices.Concat(plainSurfaces, findSurfaces)},
	{theme.ColorNameError, textContrast, plainSurfaces},
	{theme.ColorNameWarning, textContrast, plainSurfaces},
	{theme.ColorNameSuccess, textContrast, plainSurfaces},
	// The labels of High, Danger, Warning and Success buttons sit on the button's colour.
	{theme.ColorNameForegroundOnPrimary, textContrast, []surface{{base: theme.ColorNamePrimary}}},
	{theme.ColorNameForegroundOnError, textContrast, []surface{{base: theme.ColorNameError}}},
	{theme.ColorNameForegroundOnWarning, textContrast, []surface{{base: theme.ColorNameWarning}}},
	{theme.ColorNameForegroundOnSuccess, textContrast, []surface{{base: theme.ColorNameSuccess}}},
}

// readableTheme adjusts the text colours of textColors and passes everything else through.
type readableTheme struct {
	fyne.Theme
	cache sync.Map // adjustKey → color.NRGBA
}

type adjustKey struct {
	name fyne.ThemeColorName
	v    fyne.ThemeVariant
	in   color.NRGBA // the base theme's colour: the person's primary colour can change it
}

func (t *readableTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if alpha, ok := findMarkAlphas[n]; ok {
		return blend(toNRGBA(t.Theme.Color(theme.ColorNameBackground, v)), toNRGBA(t.Theme.Color(theme.ColorNameWarning, v)), alpha[v])
	}
	for _, tc := range textColors {
		if tc.name == n {
			return t.readable(tc, v)
		}
	}
	return t.Theme.Color(n, v)
}

func (t *readableTheme) readable(tc textColor, v fyne.ThemeVariant) color.Color {
	in := toNRGBA(t.Theme.Color(tc.name, v))
	key := adjustKey{tc.name, v, in}
	if c, ok := t.cache.Load(key); ok {
		return c.(color.NRGBA)
	}
	// Surfaces are the colours as the window draws them; a surface that is itself a text
	// colour (a button's colour) is taken adjusted, never from a colour adjusted against it.
	surfaces := make([]color.NRGBA, 0, len(tc.surfaces))
	for _, s := range tc.surfaces {
		surfaces = append(surfaces, t.surfaceColor(s, v))
	}
	// Move away from the surface (toward white when the text is the lighter of the two, toward
	// black otherwise), in small steps keeping the hue: the least change that reads. A label
	// on a button whose colour was itself lightened to read as text (Primary on the dark
	// variant) cannot get there, and goes to the other side instead (dark on light blue).
	white, black := color.NRGBA{R: 0xff, G: 0xff, B: 0xff, A: 0xff}, color.NRGBA{A: 0xff}
	away, back := black, white
	if luminance(in) > luminance(surfaces[0]) {
		away, back = white, black
	}
	out := approach(in, away, surfaces, tc.min+adjustMargin)
	if worstContrast(out, surfaces) < tc.min+adjustMargin {
		out = approach(in, back, surfaces, tc.min+adjustMargin)
	}
	t.cache.Store(key, out)
	return out
}

// approach moves c toward target in steps of 1/40 until it reads at min on every surface, or
// reaches the target.
func approach(c, target color.NRGBA, surfaces []color.NRGBA, min float64) color.NRGBA {
	out := c
	for step := 1; step <= 40 && worstContrast(out, surfaces) < min; step++ {
		out = mix(c, target, float64(step)/40)
	}
	return out
}

// surfaceColor is a surface as the adjustment sees it: its base, with the wash blended over
// it. A button's colour (the base of ForegroundOnPrimary's surface) is taken adjusted, as the
// button is drawn in it; a wash is taken from the base theme, which keeps the adjustment free
// of cycles, and adjustMargin covers the little that a wash's own adjustment moves it.
func (t *readableTheme) surfaceColor(s surface, v fyne.ThemeVariant) color.NRGBA {
	var base color.NRGBA
	if _, mark := findMarkAlphas[s.base]; mark || (s.wash == "" && isTextColor(s.base)) {
		base = toNRGBA(t.Color(s.base, v))
	} else {
		base = toNRGBA(t.Theme.Color(s.base, v))
	}
	if s.wash == "" {
		return base
	}
	return blend(base, toNRGBA(t.Theme.Color(s.wash, v)), s.alpha)
}

// blend draws w, at alpha (times w's own alpha), over the opaque base.
func blend(base, w color.NRGBA, alpha uint8) color.NRGBA {
	a := float64(w.A) / 255 * float64(alpha) / 255
	return mix(base, color.NRGBA{R: w.R, G: w.G, B: w.B, A: 0xff}, a)
}

func isTextColor(n fyne.ThemeColorName) bool {
	for _, tc := range textColors {
		if tc.name == n {
			return true
		}
	}
	return false
}

// contrast is the WCAG 2.x contrast ratio of two opaque colours, 1 to 21.
func contrast(a, b color.NRGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func worstContrast(c color.NRGBA, surfaces []color.NRGBA) float64 {
	worst := math.Inf(1)
	for _, s := range surfaces {
		worst = math.Min(worst, contrast(c, s))
	}
	return worst
}

// luminance is WCAG's relative luminance of an sRGB colour.
func luminance(c color.NRGBA) float64 {
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.R) + 0.7152*lin(c.G) + 0.0722*lin(c.B)
}

// mix is a over b at weight w of b (0 is a, 1 is b), opaque.
func mix(a, b color.NRGBA, w float64) color.NRGBA {
	m := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*(1-w) + float64(y)*w)) }
	return color.NRGBA{R: m(a.R, b.R), G: m(a.G, b.G), B: m(a.B, b.B), A: 0xff}
}

func toNRGBA(c color.Color) color.NRGBA {
	return color.NRGBAModel.Convert(c).(color.NRGBA)
}
