package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// Places in tool results (issue 35): the language servers' answers and the errors after an
// edit name places as path:line:column at the start of a line; the tool row shows each as
// a link that opens the file at that line.

// maxPlaceLinks bounds the links one row shows; the text above lists every place.
const maxPlaceLinks = 20

var placeLine = regexp.MustCompile(`^([^\s:][^:\n]*):(\d+):(\d+)`)

// sourcePlace is one path:line:column of a result.
type sourcePlace struct {
	label, path string
	line        int
}

// resultPlaces are the places a result names: a language tool's answer, or the errors a
// language server reported after an edit or a command.
func resultPlaces(res *domain.ToolResult) []sourcePlace {
	if res == nil {
		return nil
	}
	text := ""
	switch {
	case res.Display != nil && res.Display.Diagnostics != "":
		text = res.Display.Diagnostics
	case domain.IsLanguageTool(res.Name) && res.Outcome == domain.OutcomeSuccess:
		text = res.Content
	}
	var out []sourcePlace
	for _, l := range strings.Split(text, "\n") {
		m := placeLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		out = append(out, sourcePlace{label: m[0], path: m[1], line: n})
		if len(out) == maxPlaceLinks {
			break
		}
	}
	return out
}

// placeLinks makes the row's links to places, each opening the file at its line.
func (cv *chatView) placeLinks(places []sourcePlace) []fyne.CanvasObject {
	out := make([]fyne.CanvasObject, 0, len(places))
	for _, p := range places {
		b := button.New(p.label, func() { cv.m.openAt(cv.cs.conv.Cwd, p.path, p.line) })
		b.Importance = widget.LowImportance
		b.Alignment = widget.ButtonAlignLeading
		out = append(out, b)
	}
	return out
}

// openAt shows a file of the project, read-only, scrolled to line with the line selected.
func (m *MainWindow) openAt(cwd, path string, line int) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		m.showInline(fmt.Sprintf("Could not open %s: %v.", path, err))
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	list := widget.NewList(func() int { return len(lines) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.TextStyle = fyne.TextStyle{Monospace: true}
			return l
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(fmt.Sprintf("%5d  %s", i+1, strings.ReplaceAll(lines[i], "\t", "    ")))
		})
	if line >= 1 && line <= len(lines) {
		list.Select(line - 1)
		list.ScrollTo(line - 1)
	}
	box := container.NewStack(list)
	d := newCloseDialog(fmt.Sprintf("%s:%d", path, line), "Close", box, m.win)
	d.Resize(fyne.NewSize(800, 560))
	m.showModal(d)
}
