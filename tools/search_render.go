package tools

import (
	"bytes"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
)

// renderSearch writes the ranked files with their matching lines and a little context, within
// maxFilesShown files and about maxSearchChars characters, and says when it stopped early.
func renderSearch(cwd, root string, terms []string, dropped int, res searchResult) (content, summary string) {
	var b strings.Builder
	fmt.Fprintf(&b, "Searched %d files below %s for: %s.\n", res.Files, root, strings.Join(terms, ", "))
	if dropped > 0 {
		fmt.Fprintf(&b, "Only the first %d terms were used; %d more were ignored.\n", maxSearchTerms, dropped)
	}
	if len(res.Matches) == 0 {
		b.WriteString("No file contains any of the terms. Try other spellings, shorter identifiers or fewer terms.\n")
		return b.String(), "no match in " + plural(int64(res.Files), "file")
	}
	fmt.Fprintf(&b, "%s match, ranked by how many of the terms they contain.\n", plural(int64(len(res.Matches)), "file"))

	shown := 0
	capped := ""
	for _, m := range res.Matches {
		if shown == maxFilesShown {
			capped = fmt.Sprintf("[Showing the first %d of %d matching files: refine the terms to narrow the search.]\n",
				shown, len(res.Matches))
			break
		}
		block := renderFile(cwd, root, terms, m)
		if b.Len()+len(block) > maxSearchChars && shown > 0 {
			capped = fmt.Sprintf("[Output capped at about %d characters after %d of %d matching files: refine the terms to narrow the search.]\n",
				maxSearchChars, shown, len(res.Matches))
			break
		}
		b.WriteString("\n")
		b.WriteString(block)
		shown++
	}
	if capped != "" {
		b.WriteString("\n")
		b.WriteString(capped)
	}
	summary = plural(int64(len(res.Matches)), "file") + " matched"
	if shown < len(res.Matches) {
		summary += fmt.Sprintf(" · %d shown", shown)
	}
	return b.String(), summary
}

// renderFile is one file's entry: its path from the working directory, the terms it
// contains, and its first matching lines with context.
func renderFile(cwd, root string, terms []string, m *fileMatch) string {
	var b strings.Builder
	abs := filepath.Join(root, filepath.FromSlash(m.Path))
	shown := abs
	// The root is the working directory or above it, so a relative path always works from
	// the working directory, where bash and patch start.
	if rel, err := filepath.Rel(cwd, abs); err == nil {
		shown = rel
	}
	fmt.Fprintf(&b, "%s — %d of %d terms (%s)", shown, bits.OnesCount64(m.mask()), len(terms), termList(terms, m.mask()))
	if m.Lines > 0 {
		fmt.Fprintf(&b, ", %s", plural(int64(m.Lines), "matching line"))
	}
	if m.PathMask != 0 {
		fmt.Fprintf(&b, "; in the path: %s", termList(terms, m.PathMask))
	}
	b.WriteString("\n")
	if len(m.Hits) == 0 {
		return b.String()
	}
	lines := fileLines(abs)
	matching := map[int]bool{}
	for _, h := range m.Hits {
		matching[h.N] = true
	}
	hits := m.Hits[:min(len(m.Hits), maxLinesPerFile)]
	last := 0 // last line number written
	shownMatches := 0
	for i, h := range hits {
		from := max(h.N-searchContextLines, last+1, 1)
		if last > 0 && from > last+1 {
			b.WriteString("  …\n")
		}
		to := h.N + searchContextLines
		if i+1 < len(hits) {
			to = min(to, hits[i+1].N-1)
		}
		for n := from; n <= to; n++ {
			text, ok := lineAt(lines, n)
			if n == h.N {
				// The collected text is what matched; the file may have changed since.
				text, ok = h.Text, true
			}
			if !ok {
				break
			}
			// grep's convention: ":" after a matching line's number, "-" after context.
			sep := "-"
			if matching[n] {
				sep = ":"
			}
			fmt.Fprintf(&b, "  %d%s %s\n", n, sep, shortLine(text))
			if matching[n] {
				shownMatches++
			}
			last = n
		}
	}
	if more := m.Lines - shownMatches; more > 0 {
		fmt.Fprintf(&b, "  … %s\n", plural(int64(more), "more matching line"))
	}
	return b.String()
}

func termList(terms []string, mask uint64) string {
	var out []string
	for i, t := range terms {
		if mask&(1<<i) != 0 {
			out = append(out, t)
		}
	}
	return strings.Join(out, ", ")
}

// fileLines reads a file for context lines; a file that vanished gives none.
func fileLines(path string) [][]byte {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > MaxSearchFileBytes {
		return nil
	}
	return bytes.Split(data, []byte{'\n'})
}

func lineAt(lines [][]byte, n int) (string, bool) {
	if n < 1 || n > len(lines) || (n == len(lines) && len(lines[n-1]) == 0) {
		return "", false
	}
	return string(lines[n-1]), true
}

// shortLine trims a line for display: no trailing CR or spaces, at most maxShownLineRunes.
func shortLine(s string) string {
	s = strings.TrimRight(s, "\r \t")
	s = strings.ToValidUTF8(s, "\uFFFD")
	return abbreviate(s, maxShownLineRunes)
}
