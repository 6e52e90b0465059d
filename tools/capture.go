package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/phoenix-desktop/phoenix/domain"
)

// OutputLimit is about how much of a command's output the model gets, stdout and stderr
// together; the bash tool's description is rendered from the same constant.
const OutputLimit = domain.ToolOutputLimit

// capture keeps the first and the last bytes of a stream and counts the rest, so that a
// command printing gigabytes costs a fixed amount of memory: head and tail hold at most
// OutputLimit/2 each.
//
// One goroutine writes (os/exec's copier for this stream); the result is read only after the
// command has been waited for, so no lock is needed.
type capture struct {
	head  []byte
	tail  []byte // ring buffer of the bytes after the head, capacity OutputLimit/2
	pos   int    // next write position in tail
	full  bool   // tail has wrapped at least once
	total int64
	lines int64
	last  byte
}

const half = OutputLimit / 2

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	if n > 0 {
		c.last = p[n-1]
	}
	if room := half - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if c.tail == nil {
		c.tail = make([]byte, half)
	}
	if len(p) >= half {
		copy(c.tail, p[len(p)-half:])
		c.pos, c.full = 0, true
		return n, nil
	}
	k := copy(c.tail[c.pos:], p)
	if k < len(p) {
		copy(c.tail, p[k:])
		c.full = true
	}
	c.pos = (c.pos + len(p)) % half
	if c.pos == 0 {
		c.full = true
	}
	return n, nil
}

// kept returns the head and the tail in order.
func (c *capture) kept() (head, tail []byte) {
	if c.tail == nil {
		return c.head, nil
	}
	if !c.full {
		return c.head, c.tail[:c.pos]
	}
	t := make([]byte, 0, half)
	t = append(t, c.tail[c.pos:]...)
	return c.head, append(t, c.tail[:c.pos]...)
}

// lineCount counts lines the way people do: a last line without a newline still counts.
func (c *capture) lineCount() int64 {
	if c.total > 0 && c.last != '\n' {
		return c.lines + 1
	}
	return c.lines
}

// render returns the stream as text of at most budget bytes (plus the omission note):
// everything if it fits, else the beginning and the end with a note of what was left out.
func (c *capture) render(budget int) (text string, truncated bool) {
	head, tail := c.kept()
	if c.total <= int64(budget) && c.total == int64(len(head)+len(tail)) {
		return strings.ToValidUTF8(string(head)+string(tail), "\uFFFD"), false
	}
	tKeep := min(len(tail), budget/2)
	hKeep := min(len(head), budget-tKeep)
	tKeep = min(len(tail), budget-hKeep)
	h := cutHead(head[:hKeep])
	t := tail[len(tail)-tKeep:]
	t = cutTail(t)
	dropped := c.total - int64(len(h)+len(t))
	droppedLines := c.lines - int64(bytes.Count(h, []byte{'\n'})+bytes.Count(t, []byte{'\n'}))
	note := fmt.Sprintf("\n[… %s omitted (about %d lines); the beginning and the end are shown …]\n",
		domain.FormatBytes(dropped), max(droppedLines, 0))
	return strings.ToValidUTF8(string(h), "\uFFFD") + note + strings.ToValidUTF8(string(t), "\uFFFD"), true
}

// cutHead ends the kept beginning at a line break when one is near, else at a character
// boundary, so that the note does not split a line or a UTF-8 sequence.
func cutHead(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 && len(b)-i <= 1024 {
		return b[:i+1]
	}
	// Drop at most the bytes of one incomplete sequence; invalid bytes further in are the
	// stream's own and are replaced when rendered.
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size > 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}

// cutTail starts the kept end after a line break when one is near, else at a character
// boundary.
func cutTail(b []byte) []byte {
	if i := bytes.IndexByte(b, '\n'); i >= 0 && i < 1024 && i+1 < len(b) {
		return b[i+1:]
	}
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0 && !utf8.RuneStart(b[0]); i++ {
		b = b[1:]
	}
	return b
}

// splitBudget shares the output limit between stdout and stderr: each gets what it needs if
// both fit, and a stream that needs less than half leaves the rest to the other.
func splitBudget(a, b int64, limit int) (int, int) {
	switch {
	case a+b <= int64(limit):
		return int(a), int(b)
	case a <= int64(limit/2):
		return int(a), limit - int(a)
	case b <= int64(limit/2):
		return limit - int(b), int(b)
	}
	return limit / 2, limit - limit/2
}

// CapOutput cuts text that is not a command's output (an MCP tool's result) to the same
// limit as bash output, keeping the beginning and the end with the same note.
func CapOutput(text string) (string, bool) {
	var c capture
	_, _ = c.Write([]byte(text))
	return c.render(OutputLimit)
}
