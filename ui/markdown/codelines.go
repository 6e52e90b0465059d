package markdown

import (
	"image/color"
	"path"
	"strings"

	"fyne.io/fyne/v2/theme"
)

// The Changes view (ui/review) colours the lines of a diff as the chat colours code blocks:
// the same lexers, styles and merging of like tokens (highlight), exported line by line.

// Token is a stretch [A, B) of one line of highlighted code.
type Token struct {
	A, B int
	tok  *tokenColor
}

// Color is the token's colour in the current theme (the foreground where the style sets
// none), looked up when drawn so that a theme switch recolours it.
func (t Token) Color() color.Color {
	fg := theme.Color(theme.ColorNameForeground)
	if t.tok == nil {
		return fg
	}
	return t.tok.resolve(fg)
}

// LanguageOf is the language a file's code is highlighted as, from its name ("go" for
// main.go, "Dockerfile"), or "" when the app does not highlight it.
func LanguageOf(name string) string {
	base := path.Base(name)
	for _, lang := range []string{strings.TrimPrefix(path.Ext(base), "."), base} {
		if needsLexer(lang) {
			return lang
		}
	}
	return ""
}

// HighlightLines colours lines of code in language lang, lexed together so that a comment or
// a string over several lines is coloured as one, and returns each line's tokens (nil when
// lang is not highlighted). About a third of a millisecond a line: call it off the UI
// goroutine for more than a screenful.
func HighlightLines(lines []string, lang string) [][]Token {
	if !needsLexer(lang) || len(lines) == 0 {
		return nil
	}
	code := strings.Join(lines, "\n") + "\n"
	runs := highlight(code, lang)
	out := make([][]Token, len(lines))
	start := 0
	ri := 0
	for i, l := range lines {
		end := start + len(l)
		for ri < len(runs) && runs[ri].b <= start {
			ri++
		}
		for j := ri; j < len(runs) && runs[j].a < end; j++ {
			a, b := max(runs[j].a, start), min(runs[j].b, end)
			if a < b {
				out[i] = append(out[i], Token{A: a - start, B: b - start, tok: runs[j].tok})
			}
		}
		start = end + 1
	}
	return out
}
