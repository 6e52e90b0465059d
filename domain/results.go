package domain

import (
	"fmt"
	"unicode/utf8"
)

// Sizing tool results by the window (issue 13, item 6). The 90% check (REQ-BED-019) runs on
// model replies only, so a single result larger than what is left of the window would make
// the provider refuse the next request with a context-length error, and the continuation flow
// could never start. Results are therefore cut to what is left below the threshold: the next
// reply then reaches at most about the threshold, and the remaining tenth of the window is
// there for the continuation summary (REQ-BED-020).
const (
	// resultCharsPerToken converts the room left, in tokens, to characters. It is lower than
	// EstimateTokens' four because code, logs and JSON, which tool results mostly are,
	// tokenize denser than prose; underestimating a result's size is what overflows.
	resultCharsPerToken = 3
	// MinResultRoom is the least a result keeps, in characters, however full the window:
	// the model must learn what happened, and so little cannot overflow any window in the
	// table (its smallest tenth is about 3,000 tokens).
	MinResultRoom = 2000
)

// ResultRoom is how many characters the next tool result of the open round may have: what is
// left below the continuation threshold after the context of the last reply (Usage) and the
// results already written in the round.
func (t *tx) ResultRoom() int {
	left := t.c.Window()*ContinuationThresholdPercent/100 - t.c.Usage.Total() - t.spent
	return max(left*resultCharsPerToken, MinResultRoom)
}

// FitToolResult cuts a tool result to room characters, keeping its beginning and its end with
// a note in between that says what was left out and why, so the model knows to ask for less.
func FitToolResult(content string, room int) string {
	if len(content) <= room {
		return content
	}
	// The note's length depends on the numbers in it; the total bounds both.
	keep := max(room-len(fitNote(len(content), len(content))), 0)
	head := cutAtRune(content[:keep-keep/2], false)
	tail := cutAtRune(content[len(content)-keep/2:], true)
	return head + fitNote(len(content)-len(head)-len(tail), len(content)) + tail
}

func fitNote(omitted, total int) string {
	return fmt.Sprintf("\n[… %d of %d bytes of this result were left out to fit what is left of the context window; the beginning and the end are shown. Ask for less output (head, grep, a narrower search) …]\n",
		omitted, total)
}

// CapText cuts text to at most limit bytes, at a character boundary, and says so.
func CapText(text string, limit int) string {
	if len(text) <= limit {
		return text
	}
	kept := cutAtRune(text[:limit], false)
	return kept + fmt.Sprintf("\n[… %d more bytes left out …]", len(text)-len(kept))
}

// cutAtRune drops the partial UTF-8 sequence a byte cut may leave at the end of s (or, with
// front, at its start).
func cutAtRune(s string, front bool) string {
	if front {
		for i := 0; i < utf8.UTFMax && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
			s = s[1:]
		}
		return s
	}
	for i := 0; i < utf8.UTFMax-1 && len(s) > 0; i++ {
		if r, size := utf8.DecodeLastRuneInString(s); r != utf8.RuneError || size > 1 {
			break
		}
		s = s[:len(s)-1]
	}
	return s
}
