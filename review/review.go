package review

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

// Scope says which changes are shown.
type Scope string

const (
	// Turn is what changed since the first checkpoint of one turn (the person's message and
	// the agent's work after it), up to the files as they are now.
	Turn Scope = "turn"
	// Conversation is what changed since the conversation's first checkpoint.
	Conversation Scope = "conversation"
	// Uncommitted is the working tree against the HEAD commit of the project's git
	// repository.
	Uncommitted Scope = "uncommitted"
)

// ParseScope reads a scope's name.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case Turn, Conversation, Uncommitted:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q: choose %s, %s or %s", s, Turn, Conversation, Uncommitted)
}

// Status says how a file differs.
type Status string

const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
)

// Changes is what differs between two trees.
type Changes struct {
	Scope Scope `json:"scope"`
	// Turn is the sequence number of the turn's message (scope turn).
	Turn uint64 `json:"turn,omitempty"`
	// From and To are the trees compared (snapshot ids; From is the HEAD commit's tree for
	// uncommitted). To is the files as they were when the changes were read: a revert
	// refuses to act on a hunk numbered against another To.
	From  string `json:"from"`
	To    string `json:"to"`
	Files []File `json:"files"`
}

// File returns the file at path, if it changed.
func (c Changes) File(path string) (File, bool) {
	for _, f := range c.Files {
		if f.Path == path {
			return f, true
		}
	}
	return File{}, false
}

// Lines is the number of diff lines of all files (what the view lays out).
func (c Changes) Lines() int {
	n := 0
	for _, f := range c.Files {
		for _, h := range f.Hunks {
			n += len(h.Lines)
		}
	}
	return n
}

// File is one changed file.
type File struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
	// Binary files have no hunks.
	Binary bool `json:"binary,omitempty"`
	// Mode is set when the file's mode changed ("100644 → 100755").
	Mode    string `json:"mode,omitempty"`
	Added   int    `json:"added"`
	Deleted int    `json:"deleted"`
	Hunks   []Hunk `json:"hunks"`
}

// Hunk is one run of changed lines with their context.
type Hunk struct {
	// N numbers the file's hunks from 1, in file order.
	N int `json:"n"`
	// OldStart, OldLines, NewStart, NewLines are the unified diff's ranges: the first line
	// (counted from 1) and how many; a range of no lines starts at the line before it.
	OldStart int    `json:"old_start"`
	OldLines int    `json:"old_lines"`
	NewStart int    `json:"new_start"`
	NewLines int    `json:"new_lines"`
	Section  string `json:"section,omitempty"`
	Lines    []Line `json:"lines"`
}

// Header is the hunk's "@@ -a,b +c,d @@ section" line.
func (h Hunk) Header() string {
	s := fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	if h.Section != "" {
		s += " " + h.Section
	}
	return s
}

// Kind is what a diff line is.
type Kind string

const (
	Context Kind = " "
	Add     Kind = "+"
	Delete  Kind = "-"
)

// Line is one line of a hunk.
type Line struct {
	Kind Kind `json:"kind"`
	// Old and New are the line's numbers in the old and the new file (0 where it has none).
	Old  int    `json:"old,omitempty"`
	New  int    `json:"new,omitempty"`
	Text string `json:"text"`
}

// Parse reads a git unified diff (diff-tree -p, without --binary) into files and hunks.
func Parse(unified string) ([]File, error) {
	if strings.TrimSpace(unified) == "" {
		return nil, nil
	}
	fds, err := diff.ParseMultiFileDiff([]byte(unified))
	if err != nil {
		return nil, fmt.Errorf("read the diff git printed: %w", err)
	}
	files := make([]File, 0, len(fds))
	for _, fd := range fds {
		files = append(files, fileOf(fd))
	}
	return files, nil
}

func fileOf(fd *diff.FileDiff) File {
	f := File{Status: Modified, Hunks: []Hunk{}}
	var oldMode string
	for _, x := range fd.Extended {
		switch {
		case strings.HasPrefix(x, "new file mode"):
			f.Status = Added
		case strings.HasPrefix(x, "deleted file mode"):
			f.Status = Deleted
		case strings.HasPrefix(x, "Binary files "):
			f.Binary = true
		case strings.HasPrefix(x, "old mode "):
			oldMode = strings.TrimPrefix(x, "old mode ")
		case strings.HasPrefix(x, "new mode "):
			f.Mode = oldMode + " → " + strings.TrimPrefix(x, "new mode ")
		}
	}
	f.Path = strings.TrimPrefix(fd.NewName, "b/")
	if f.Status == Deleted || fd.NewName == "/dev/null" || fd.NewName == "" {
		f.Path = strings.TrimPrefix(fd.OrigName, "a/")
	}
	if f.Path == "" || f.Path == "/dev/null" {
		// A binary or mode-only change has no ---/+++ lines: the names are in "diff --git".
		f.Path = gitHeaderPath(fd.Extended)
	}
	for i, h := range fd.Hunks {
		hk := Hunk{N: i + 1, OldStart: int(h.OrigStartLine), OldLines: int(h.OrigLines),
			NewStart: int(h.NewStartLine), NewLines: int(h.NewLines), Section: h.Section}
		old, nw := hk.OldStart, hk.NewStart
		body := strings.TrimSuffix(string(h.Body), "\n")
		for _, text := range strings.Split(body, "\n") {
			if text == "" {
				// An empty context line keeps its space; "" is the end of a body only.
				continue
			}
			l := Line{Kind: Kind(text[:1]), Text: text[1:]}
			switch l.Kind {
			case Add:
				l.New = nw
				nw++
				f.Added++
			case Delete:
				l.Old = old
				old++
				f.Deleted++
			default:
				l.Kind = Context
				l.Old, l.New = old, nw
				old++
				nw++
			}
			hk.Lines = append(hk.Lines, l)
		}
		f.Hunks = append(f.Hunks, hk)
	}
	return f
}

// gitHeaderPath reads the path from a "diff --git a/p b/p" line.
func gitHeaderPath(ext []string) string {
	for _, x := range ext {
		if rest, ok := strings.CutPrefix(x, "diff --git a/"); ok {
			if i := strings.Index(rest, " b/"); i >= 0 {
				return rest[:i]
			}
		}
	}
	return ""
}

// ErrStale refuses a revert whose hunk no longer matches the file.
var ErrStale = errors.New("the file changed since its changes were shown; look at them again")

// RevertHunk returns current with hunk h (of the diff base → current) taken back: the lines
// h covers in current are replaced by the lines it covers in base, and every other byte of
// current is kept. It refuses (ErrStale) when current's lines there are not the hunk's.
func RevertHunk(base, current []byte, h Hunk) ([]byte, error) {
	oldLines, newLines := splitLines(base), splitLines(current)
	oi, ni := start(h.OldStart, h.OldLines), start(h.NewStart, h.NewLines)
	if oi+h.OldLines > len(oldLines) || ni+h.NewLines > len(newLines) {
		return nil, ErrStale
	}
	// The hunk's new side must be what current holds there, and its old side what base
	// holds, line for line.
	o, n := oi, ni
	for _, l := range h.Lines {
		if l.Kind != Add {
			if o >= len(oldLines) || trimEOL(oldLines[o]) != strings.TrimSuffix(l.Text, "\r") {
				return nil, ErrStale
			}
			o++
		}
		if l.Kind != Delete {
			if n >= len(newLines) || trimEOL(newLines[n]) != strings.TrimSuffix(l.Text, "\r") {
				return nil, ErrStale
			}
			n++
		}
	}
	var out bytes.Buffer
	out.Grow(len(current))
	for _, l := range newLines[:ni] {
		out.WriteString(l)
	}
	for _, l := range oldLines[oi : oi+h.OldLines] {
		out.WriteString(l)
	}
	rest := newLines[ni+h.NewLines:]
	// The base's last line may lack its newline where the new file's did not: a line that
	// now follows it needs one.
	if len(rest) > 0 && out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
		out.WriteByte('\n')
	}
	for _, l := range rest {
		out.WriteString(l)
	}
	return out.Bytes(), nil
}

// start is the index (from 0) of a range's first line; a range of no lines starts after
// the line it names.
func start(first, count int) int {
	if count == 0 {
		return first
	}
	return first - 1
}

// splitLines splits b into lines that keep their "\n".
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// trimEOL is a line without its "\n" or "\r\n": go-diff reads the diff's lines without
// their "\r", so a line is compared without it.
func trimEOL(l string) string { return strings.TrimSuffix(strings.TrimSuffix(l, "\n"), "\r") }

// Comment is the person's words on lines of a changed file, sent with their next message.
type Comment struct {
	Path string `json:"path"`
	// Start and End are the first and last line commented, numbered as the file is now, or
	// as it was when Old is set (only removed lines were chosen).
	Start int  `json:"start"`
	End   int  `json:"end"`
	Old   bool `json:"old,omitempty"`
	// Lines are the commented lines as the view showed them.
	Lines []string `json:"lines"`
	Text  string   `json:"text"`
}

// Where names the comment's lines: "f.go, line 3", "f.go, lines 3–5 (removed)".
func (c Comment) Where() string {
	s := fmt.Sprintf("%s, line %d", c.Path, c.Start)
	if c.End > c.Start {
		s = fmt.Sprintf("%s, lines %d–%d", c.Path, c.Start, c.End)
	}
	if c.Old {
		s += " (removed lines, numbered as the file was)"
	}
	return s
}

// FormatComments is the comments as one message the model can act on: for each, the file
// and lines, the lines quoted, and the person's words. It is the message's first part; the
// person's own message, if any, follows it.
func FormatComments(cs []Comment) string {
	if len(cs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Comments on your changes (file, lines as the file is now, the lines quoted, then my comment):\n")
	for _, c := range cs {
		b.WriteString("\n" + c.Where() + ":\n")
		for _, l := range c.Lines {
			b.WriteString("> " + l + "\n")
		}
		b.WriteString(strings.TrimSpace(c.Text) + "\n")
	}
	return b.String()
}
