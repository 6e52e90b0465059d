package ui

import (
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// TestThemeContrast checks every text colour of the table on every surface it is drawn on, in
// both variants, as the window draws them (washes blended with the theme's own colours), at
// WCAG AA: 4.5:1.
func TestThemeContrast(t *testing.T) {
	test.NewTempApp(t)
	th := Theme()
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		for _, tc := range textColors {
			fg := toNRGBA(th.Color(tc.name, v))
			for _, s := range tc.surfaces {
				bg := toNRGBA(th.Color(s.base, v))
				if s.wash != "" {
					bg = blend(bg, toNRGBA(th.Color(s.wash, v)), s.alpha)
				}
				if r := contrast(fg, bg); r < tc.min {
					t.Errorf("variant %d: %s %v on %s+%s@%#x %v: contrast %.2f, below %.1f", v, tc.name, fg, s.base, s.wash, s.alpha, bg, r, tc.min)
				}
			}
		}
	}
}

// TestThemeContrastCatchesTheHintGrey shows the check is not empty: Fyne's own palette draws
// hints at #39393A on #171718, which fails it.
func TestThemeContrastCatchesTheHintGrey(t *testing.T) {
	test.NewTempApp(t)
	fg := toNRGBA(theme.DefaultTheme().Color(theme.ColorNameDisabled, theme.VariantDark))
	bg := toNRGBA(theme.DefaultTheme().Color(theme.ColorNameBackground, theme.VariantDark))
	if r := contrast(fg, bg); r >= textContrast {
		t.Fatalf("the default hint grey reads at %.2f; the theme would not be needed", r)
	}
	fixed := toNRGBA(Theme().Color(theme.ColorNameDisabled, theme.VariantDark))
	if r := contrast(fixed, bg); r < textContrast {
		t.Fatalf("the app's hint grey %v reads at %.2f on %v", fixed, r, bg)
	}
}

// notText are the colour names the app's code uses that are not drawn as text or meaningful
// icons, with why.
var notText = map[string]string{
	"ColorNameBackground":        "a surface",
	"ColorNameInputBackground":   "a surface",
	"ColorNameHeaderBackground":  "a surface",
	"ColorNameMenuBackground":    "a surface",
	"ColorNameOverlayBackground": "a surface",
	"ColorNameButton":            "a surface",
	"ColorNameDisabledButton":    "a surface (a disabled button)",
	"ColorNameHover":             "a surface (a hovered row)",
	"ColorNameSeparator":         "a rule between parts, not content",
	"ColorNameSelection":         "a surface (selected text and rows)",
	"ColorNameScrollBar":         "the scroll bar's thumb, drawn by Fyne's own widget too",
}

// colorIdents maps the Fyne identifiers the app's code names to the colours they stand for.
var colorIdents = map[string]fyne.ThemeColorName{
	"ColorNameForeground":          theme.ColorNameForeground,
	"ColorNameDisabled":            theme.ColorNameDisabled,
	"ColorNamePlaceHolder":         theme.ColorNamePlaceHolder,
	"ColorNamePrimary":             theme.ColorNamePrimary,
	"ColorNameHyperlink":           theme.ColorNameHyperlink,
	"ColorNameError":               theme.ColorNameError,
	"ColorNameWarning":             theme.ColorNameWarning,
	"ColorNameSuccess":             theme.ColorNameSuccess,
	"ColorNameForegroundOnPrimary": theme.ColorNameForegroundOnPrimary,
	"ColorNameForegroundOnError":   theme.ColorNameForegroundOnError,
	"ColorNameForegroundOnWarning": theme.ColorNameForegroundOnWarning,
	"ColorNameForegroundOnSuccess": theme.ColorNameForegroundOnSuccess,
	// A label's importance picks its colour (fyne/widget/label.go); a button's picks its
	// background, whose label is the matching ForegroundOn colour.
	"LowImportance":     theme.ColorNameDisabled,
	"HighImportance":    theme.ColorNamePrimary,
	"DangerImportance":  theme.ColorNameError,
	"WarningImportance": theme.ColorNameWarning,
	"SuccessImportance": theme.ColorNameSuccess,
}

// TestEveryColourTheAppNamesIsClassed reads the ui packages' sources for the colours and
// importances they name: each is a text colour the contrast table checks, or listed in
// notText with why. A new colour in the code without a row fails here.
func TestEveryColourTheAppNamesIsClassed(t *testing.T) {
	ref := regexp.MustCompile(`theme\.(ColorName[A-Za-z]+)|\b((?:Low|High|Danger|Warning|Success)Importance)\b`)
	seen := map[string]bool{}
	for _, pattern := range []string{"*.go", "markdown/*.go"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ref.FindAllStringSubmatch(string(src), -1) {
				seen[m[1]+m[2]] = true
			}
		}
	}
	if len(seen) < 5 {
		t.Fatalf("found only %v in the sources; the scan is broken", seen)
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, ok := notText[n]; ok {
			continue
		}
		c, ok := colorIdents[n]
		if !ok {
			t.Errorf("the code names %s: add it to colorIdents (and to the contrast table if text is drawn in it) or to notText with why", n)
			continue
		}
		if !isTextColor(c) {
			t.Errorf("the code draws in %s (%s), which the contrast table does not check", c, n)
		}
	}
}

// TestFindHighlightContrast (issue 36): the text of a reply, its links and its grey lines read
// at 4.5:1 on Find's match backgrounds in both variants, and those backgrounds still stand out
// from the window's (the old strong wash read at 2.1:1 on the light variant).
func TestFindHighlightContrast(t *testing.T) {
	test.NewTempApp(t)
	th := Theme()
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		bg := toNRGBA(th.Color(theme.ColorNameBackground, v))
		weak := toNRGBA(th.Color(markdown.ColorNameFindMark, v))
		strong := toNRGBA(th.Color(markdown.ColorNameFindMarkStrong, v))
		if weak == bg || contrast(strong, bg) <= contrast(weak, bg) {
			t.Errorf("variant %d: the marks %v and %v do not stand out from %v, the current one more", v, weak, strong, bg)
		}
		for _, mark := range []color.NRGBA{weak, strong} {
			for _, n := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameHyperlink, theme.ColorNamePlaceHolder} {
				if r := contrast(toNRGBA(th.Color(n, v)), mark); r < textContrast {
					t.Errorf("variant %d: %s on Find's mark %v reads at %.2f", v, n, mark, r)
				}
			}
		}
	}
}

// TestFindDrawsTheCheckedMarks: the Markdown view draws Find's matches in the colours the
// contrast table checks (the theme's), not a wash of its own.
func TestFindDrawsTheCheckedMarks(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme())
	v := a.Settings().ThemeVariant()
	for strong, name := range map[bool]fyne.ThemeColorName{false: markdown.ColorNameFindMark, true: markdown.ColorNameFindMarkStrong} {
		fill, _ := markdown.MarkColors(strong)
		if got, want := toNRGBA(fill), toNRGBA(Theme().Color(name, v)); got != want {
			t.Errorf("strong %v: Find draws %v, the contrast table checks %v", strong, got, want)
		}
	}
}
