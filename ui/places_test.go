package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// The mode badge's details list the conversation's language servers and their states
// (issue 35).
func TestModeBadgeDetailsListLanguageServers_REQ_LSP_009(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, d *Deps) {
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
		d.LanguageServers = func(string) []actors.LanguageServer {
			return []actors.LanguageServer{{Name: "gopls", State: "running"}, {Name: "clangd", State: "down", Reason: "it stopped"}}
		}
	})
	h.open(h.m.sidebar.convs[0].id)
	details := h.m.header.sandboxDetails()
	if !strings.Contains(details, "Language servers in this conversation:\n• gopls: running\n• clangd: down — it stopped") {
		t.Errorf("the details do not list the language servers:\n%s", details)
	}
}

// A result's places become links: the errors after an edit, a language tool's answer; other
// tools' output is not read for places.
func TestResultPlacesBecomeLinks_REQ_LSP_009(t *testing.T) {
	edit := &domain.ToolResult{Name: domain.ToolPatch, Outcome: domain.OutcomeSuccess, Content: "Patched main.go",
		Display: &domain.ToolDisplay{Diagnostics: "gopls reports 1 new error in main.go after this change:\nmain.go:6:14: cannot use true"}}
	refs := &domain.ToolResult{Name: domain.ToolReferences, Outcome: domain.OutcomeSuccess, Content: "b/b.go:5:32: a.Hello()\nsrc/x y.go:10:1: call\n"}
	bash := &domain.ToolResult{Name: domain.ToolBash, Outcome: domain.OutcomeSuccess, Content: "main.go:6:14: cannot use true\n"}
	for _, tc := range []struct {
		res  *domain.ToolResult
		want []sourcePlace
	}{
		{edit, []sourcePlace{{label: "main.go:6:14", path: "main.go", line: 6}}},
		{refs, []sourcePlace{{label: "b/b.go:5:32", path: "b/b.go", line: 5}, {label: "src/x y.go:10:1", path: "src/x y.go", line: 10}}},
		{bash, nil},
	} {
		got := resultPlaces(tc.res)
		if len(got) != len(tc.want) {
			t.Fatalf("%s: places %+v; want %+v", tc.res.Name, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: place %d = %+v; want %+v", tc.res.Name, i, got[i], tc.want[i])
			}
		}
	}
}

// A patch row's errors from the language server show under its diff, each place a link
// that opens the file at that line.
func TestPatchRowLinksToTheErrorsPlaces_REQ_LSP_009(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "main.go", "package main\n\nfunc main() {\n\tvar n int = true\n}\n")
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		c := f.add(domain.NewConversationParams{Title: "x", Cwd: dir, Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "break it"},
			domain.Message{Kind: domain.KindAssistant, ToolCalls: []domain.ToolCall{patchCall("p1", "main.go")}},
			domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "p1", Name: domain.ToolPatch, Outcome: domain.OutcomeSuccess,
				Content: "Patched main.go.\ngopls reports 1 new error in main.go after this change:\nmain.go:4:14: cannot use true (untyped bool constant) as int value in variable declaration (compiler)\n",
				Display: &domain.ToolDisplay{Summary: "main.go +1 −1 · 1 new error (gopls)", Diff: sampleDiff,
					Diagnostics: "gopls reports 1 new error in main.go after this change:\nmain.go:4:14: cannot use true (untyped bool constant) as int value in variable declaration (compiler)"}}},
		)
		id = c.ID
	})
	h.open(id)
	h.m.cv.list.ScrollToBottom()
	h.settle()
	var tp *toolPart
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowTool && v.bound.call.Name == domain.ToolPatch {
			tp = v.parts[rowTool].(*toolPart)
		}
	}
	if tp == nil {
		t.Fatal("the patch row is not on screen")
	}
	if tp.places.Visible() {
		t.Error("the links show while the row is folded")
	}
	test.Tap(tp.toggle)
	h.settle()
	if !strings.Contains(tp.details.Text(), "main.go:4:14: cannot use true") {
		t.Fatalf("the expanded row does not show the errors: %q", tp.details.Text())
	}
	if len(tp.places.Objects) != 1 || tp.places.Objects[0].(*button.Button).Text != "main.go:4:14" {
		t.Fatalf("links = %v", tp.places.Objects)
	}
	before := len(h.m.win.Canvas().Overlays().List())
	test.Tap(tp.places.Objects[0].(*button.Button))
	if len(h.m.win.Canvas().Overlays().List()) != before+1 {
		t.Fatal("the link opened nothing")
	}
}
