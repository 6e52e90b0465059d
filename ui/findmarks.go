package ui

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/transcript"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// Find counts only what it can show (issue 36): a row matches when the query is in a text the
// row draws and Find can highlight — the Markdown and plain text views of messages, reasoning
// and tool output, and the plain text lines of notices and tool rows (argument and summary).
// Words the row never draws (a tool's internal name, the model's copy of a reply's Markdown
// syntax) are not searched. A match in a folded part (a tool's output, a reasoning) unfolds it
// when Find goes to that row.

// findTexts are the texts of r that Find looks in, each as the row draws it.
func (r *row) findTexts() []string {
	if r.foundVer != r.ver+1 {
		r.found, r.foundVer = r.shownTexts(), r.ver+1
	}
	return r.found
}

func (r *row) shownTexts() []string {
	switch r.kind {
	case rowUser:
		if r.msg != nil {
			return []string{r.msg.Text}
		}
	case rowAssistant, rowContinuation:
		if r.msg != nil {
			return []string{markdown.PlainText(r.msg.Text)}
		}
	case rowStreaming, rowThinking:
		return []string{markdown.PlainText(r.text)}
	case rowSystem, rowError, rowNotice:
		_, _, segs := noteLook(r)
		return []string{segmentsText(segs)}
	case rowTool:
		return append(toolLine(r), toolDetails(r)...)
	}
	return nil
}

// toolLine is the text of a tool row's folded lines: its argument and its summary.
func toolLine(r *row) []string {
	_, sum := toolStatus(r)
	return []string{transcript.ToolCallSummary(r.call), sum}
}

// toolDetails is the text of a tool row's output as it unfolds, or nothing when it has none.
func toolDetails(r *row) []string {
	res := r.result
	if res == nil || (strings.TrimSpace(res.Content) == "" && (res.Display == nil || res.Display.Diff == "")) {
		return nil
	}
	var out []string
	for _, d := range detailTexts(res) {
		out = append(out, d.Text)
	}
	return out
}

// matchesIn reports whether q is in any of texts, as Find highlights it.
func matchesIn(texts []string, q string) bool {
	for _, t := range texts {
		if len(markdown.Matches(t, q)) > 0 {
			return true
		}
	}
	return false
}

// unfoldFor unfolds r when Find's match q lies only in its folded part, so that the match can
// be seen and highlighted; it reports whether it did.
func (r *row) unfoldFor(q string) bool {
	if r.expanded {
		return false
	}
	switch r.kind {
	case rowTool:
		if matchesIn(toolLine(r), q) || !matchesIn(toolDetails(r), q) {
			return false
		}
	case rowThinking:
		if !matchesIn(r.findTexts(), q) {
			return false
		}
	default:
		return false
	}
	r.expanded = true
	r.touch()
	return true
}

func segmentsText(segs []widget.RichTextSegment) string {
	var b strings.Builder
	for _, s := range segs {
		if t, ok := s.(*widget.TextSegment); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// richMarker is a part with plain text lines (RichText) that Find highlights itself; it
// returns how many matches it highlighted.
type richMarker interface {
	markRich(words []string, strong bool) int
}

// markSegments is segs with every match of words drawn as a match: bold in the accent colour, and
// underlined too in the row of the current match (a RichText has no background per word).
// It returns the new segments and the number of matches.
func markSegments(segs []widget.RichTextSegment, words []string, strong bool) ([]widget.RichTextSegment, int) {
	ranges := markdown.MatchesAny(segmentsText(segs), words)
	if len(ranges) == 0 {
		return segs, 0
	}
	var out []widget.RichTextSegment
	at := 0 // offset of the current segment's start in the whole text
	ri := 0
	for _, s := range segs {
		t, ok := s.(*widget.TextSegment)
		if !ok {
			out = append(out, s)
			continue
		}
		a, b := at, at+len(t.Text)
		pos := a
		for ; ri < len(ranges) && ranges[ri][0] < b; ri++ {
			ma, mb := max(ranges[ri][0], a), min(ranges[ri][1], b)
			if ma > pos {
				out = append(out, &widget.TextSegment{Text: t.Text[pos-a : ma-a], Style: t.Style})
			}
			st := t.Style
			st.ColorName = theme.ColorNamePrimary
			st.TextStyle = fyne.TextStyle{Bold: true, Italic: st.TextStyle.Italic, Monospace: st.TextStyle.Monospace, Underline: strong}
			out = append(out, &widget.TextSegment{Text: t.Text[ma-a : mb-a], Style: st})
			pos = mb
			if ranges[ri][1] > b {
				break // the match goes on in the next segment
			}
		}
		if pos < b {
			out = append(out, &widget.TextSegment{Text: t.Text[pos-a:], Style: t.Style})
		}
		at = b
	}
	return out, len(ranges)
}

// markRich shows segs in t with the matches of words highlighted.
func markRich(t *widget.RichText, segs []widget.RichTextSegment, words []string, strong bool) int {
	marked, n := markSegments(segs, words, strong)
	t.Segments = marked
	t.Refresh()
	return n
}

func (p *notePart) markRich(words []string, strong bool) int {
	return markRich(p.text, p.segs, words, strong)
}

func (p *toolPart) markRich(words []string, strong bool) int {
	if p.bound == nil {
		return 0
	}
	line := toolLine(p.bound)
	return markRich(p.arg, []widget.RichTextSegment{&widget.TextSegment{Text: line[0], Style: monoStyle()}}, words, strong) +
		markRich(p.summary, []widget.RichTextSegment{&widget.TextSegment{Text: line[1], Style: captionStyle()}}, words, strong)
}
