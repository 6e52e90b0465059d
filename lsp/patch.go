package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// PendingEdit is a patch's file as it was before the call, for AfterEdit.
type PendingEdit struct {
	Path, Before string
	Existed      bool
}

// BeforePatch reads the file a patch call is about to change, when a server of the set
// serves it; nil otherwise. It runs where the files are: in the app's tool worker for a
// local project, in the remote agent for a project on another machine.
func (s *Set) BeforePatch(call domain.ToolCall, cwd string) *PendingEdit {
	if s == nil || call.Name != domain.ToolPatch {
		return nil
	}
	var args struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(call.Arguments), &args) != nil || strings.TrimSpace(args.Path) == "" {
		return nil
	}
	path := args.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	path = filepath.Clean(path)
	if !s.Serves(path, cwd) {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return nil
	}
	return &PendingEdit{Path: path, Before: string(data), Existed: err == nil}
}

// AppendTo appends the report to a call's output and its tool row: the model reads the new
// errors with the call's outcome, the row shows their count and, folded, the list.
func (r Report) AppendTo(out tools.Output) tools.Output {
	if r.Text == "" {
		return out
	}
	out.Content += "\n" + strings.TrimLeft(r.Text, "\n")
	display := domain.ToolDisplay{}
	if out.Display != nil {
		display = *out.Display
	}
	display.Summary = strings.TrimSpace(display.Summary + " · " + r.Summary)
	display.Diagnostics = strings.TrimSpace(r.Text)
	out.Display = &display
	return out
}
