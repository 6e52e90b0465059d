package ui

import (
	"regexp"
	"strings"
)

// Words the window says, in the person's words (issue 36).

// undoTitle names the change an Undo takes back by what the person saw happen, not by the
// tool that did it.
func undoTitle(tool string) string {
	switch tool {
	case "patch":
		return "Undo the agent's edit"
	case "bash":
		return "Undo the command's file changes"
	}
	return "Undo the agent's change"
}

// gitIndexLine is a diff's "index b6fc4c6..0000000 100644" line: blob ids, meaningless to
// the person reading what an Undo changes.
var gitIndexLine = regexp.MustCompile(`^index [0-9a-f]+\.\.[0-9a-f]+( [0-7]+)?$`)

// diffForPerson is a unified diff without its git index lines.
func diffForPerson(d string) string {
	lines := strings.Split(d, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !gitIndexLine.MatchString(l) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
