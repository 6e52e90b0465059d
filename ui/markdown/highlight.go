package markdown

import (
	"image/color"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/alecthomas/chroma/v2"
	"github.com/phoenix-desktop/phoenix/ui/markdown/syntax"
)

// Code's style (syntax.StyleFor) is looked up when the code is drawn, by the theme's
// background, so switching the theme recolours code without parsing it again. Languages and
// styles are parsed on first use, not when the app starts (package syntax).

// tokenColor is a chroma token type whose colour is looked up when drawn.
type tokenColor struct{ tt chroma.TokenType }

var (
	tokenMu     sync.Mutex
	tokenColors = map[chroma.TokenType]*tokenColor{}
)

func tokenOf(tt chroma.TokenType) *tokenColor {
	tokenMu.Lock()
	defer tokenMu.Unlock()
	tc := tokenColors[tt]
	if tc == nil {
		tc = &tokenColor{tt: tt}
		tokenColors[tt] = tc
	}
	return tc
}

// resolve is the token's colour in the current theme, or fg when the style leaves it unset.
func (tc *tokenColor) resolve(fg color.Color) color.Color {
	e := syntax.StyleFor(isDark()).Get(tc.tt)
	if !e.Colour.IsSet() {
		return fg
	}
	return color.NRGBA{R: e.Colour.Red(), G: e.Colour.Green(), B: e.Colour.Blue(), A: 0xff}
}

// sameLook says whether two token types are drawn alike in both styles.
func sameLook(a, b chroma.TokenType) bool {
	if a == b {
		return true
	}
	for _, dark := range []bool{false, true} {
		st := syntax.StyleFor(dark)
		ea, eb := st.Get(a), st.Get(b)
		if ea.Colour != eb.Colour || ea.Bold != eb.Bold || ea.Italic != eb.Italic {
			return false
		}
	}
	return true
}

// isDark says whether the current theme's background is dark.
func isDark() bool {
	r, g, b, _ := theme.Color(theme.ColorNameBackground).RGBA()
	return (299*r+587*g+114*b)/1000 < 0x8000
}

// DiffLineColor is the colour of one line of a unified diff: additions, removals, hunk
// headers and file headers. The chat's patch rows and diff code blocks both use it.
func DiffLineColor(line string) fyne.ThemeColorName {
	switch {
	case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		return theme.ColorNamePlaceHolder
	case strings.HasPrefix(line, "+"):
		return theme.ColorNameSuccess
	case strings.HasPrefix(line, "-"):
		return theme.ColorNameError
	case strings.HasPrefix(line, "@@"):
		return theme.ColorNamePrimary
	}
	return ""
}

func isDiff(lang string) bool {
	switch strings.ToLower(lang) {
	case "diff", "patch", "udiff":
		return true
	}
	return false
}

// highlight splits code into coloured monospace runs. An unknown or missing language gives
// one plain run: guessing a language is slow and often wrong.
func highlight(code, lang string) []run {
	mono := fyne.TextStyle{Monospace: true}
	plain := []run{{a: 0, b: len(code), style: mono}}
	if isDiff(lang) {
		var runs []run
		for a := 0; a < len(code); {
			e := strings.IndexByte(code[a:], '\n')
			if e < 0 {
				e = len(code)
			} else {
				e += a + 1
			}
			runs = append(runs, run{a: a, b: e, style: mono, color: DiffLineColor(code[a:e])})
			a = e
		}
		return runs
	}
	if lang == "" {
		return plain
	}
	lexer := syntax.LexerFor(lang)
	if lexer == nil {
		return plain
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err != nil {
		return plain
	}
	var runs []run
	at := 0
	for tok := it(); tok != chroma.EOF; tok = it() {
		if tok.Value == "" {
			continue
		}
		// Lexers may add a final newline; anything that does not match the code exactly
		// falls back to plain text rather than showing other characters than the source.
		end := at + len(tok.Value)
		if end > len(code) || code[at:end] != tok.Value {
			if at == len(code) && strings.Trim(tok.Value, "\n") == "" {
				break
			}
			return plain
		}
		// Neighbours that look the same in both styles, and white space, share a run: fewer
		// runs are fewer objects to draw.
		if k := len(runs) - 1; k >= 0 && (strings.TrimSpace(tok.Value) == "" || sameLook(runs[k].tok.tt, tok.Type)) {
			runs[k].b = end
		} else {
			runs = append(runs, run{a: at, b: end, style: mono, tok: tokenOf(tok.Type)})
		}
		at = end
	}
	if at != len(code) {
		return plain
	}
	return runs
}

// Highlighting with chroma costs about a third of a millisecond a line, far too much for the
// UI goroutine when a long reply opens or a code block streams in. Code is therefore shown at
// once with the colours known so far and highlighted in the background; the results are kept
// (a bounded cache keyed by language and code) so that a block seen before is coloured at once.

const highlightCacheSize = 256

type hlKey struct{ lang, code string }

var hlCache struct {
	sync.Mutex
	runs  map[hlKey][]run
	order []hlKey
	// last is the newest entry per language: a code block that is streaming in usually
	// extends it.
	last map[string]hlKey
}

// needsLexer says whether highlighting lang takes chroma (the others are immediate).
func needsLexer(lang string) bool {
	return lang != "" && !isDiff(lang) && syntax.LexerFor(lang) != nil
}

// cachedHighlight returns the runs of code when they are known, or provisional runs: the
// colours of the longest highlighted beginning of the same code, plain text after it.
func cachedHighlight(code, lang string) (runs []run, final bool) {
	if !needsLexer(lang) {
		return highlight(code, lang), true
	}
	hlCache.Lock()
	defer hlCache.Unlock()
	if r, ok := hlCache.runs[hlKey{lang, code}]; ok {
		return r, true
	}
	mono := fyne.TextStyle{Monospace: true}
	if k, ok := hlCache.last[lang]; ok && strings.HasPrefix(code, k.code) {
		prev := hlCache.runs[k]
		// The last token may continue in the new text: it is shown plain until the new
		// colours come.
		if n := len(prev); n > 0 {
			runs = append(runs, prev[:n-1]...)
			at := prev[n-1].a
			return append(runs, run{a: at, b: len(code), style: mono}), false
		}
	}
	return []run{{a: 0, b: len(code), style: mono}}, false
}

func storeHighlight(code, lang string, runs []run) {
	hlCache.Lock()
	defer hlCache.Unlock()
	if hlCache.runs == nil {
		hlCache.runs, hlCache.last = map[hlKey][]run{}, map[string]hlKey{}
	}
	k := hlKey{lang, code}
	if _, ok := hlCache.runs[k]; !ok {
		hlCache.order = append(hlCache.order, k)
		if len(hlCache.order) > highlightCacheSize {
			old := hlCache.order[0]
			hlCache.order = hlCache.order[1:]
			delete(hlCache.runs, old)
			if hlCache.last[old.lang] == old {
				delete(hlCache.last, old.lang)
			}
		}
	}
	hlCache.runs[k] = runs
	hlCache.last[lang] = k
}

// forgetHighlights empties the cache (benchmarks of a cold start).
func forgetHighlights() {
	hlCache.Lock()
	defer hlCache.Unlock()
	hlCache.runs, hlCache.order, hlCache.last = nil, nil, nil
}
