package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
)

// A Claude Code command of the project is offered when "/" is typed, completes with Tab and
// is sent as its prompt with the arguments put in; the model its front matter names is for
// its turn only (here the demo provider does not offer it, so the turn runs on the
// conversation's), and the conversation it starts is titled by the invocation (issue 38).
// The project's skills are named in the header beside the instructions.
func TestRealSlashMenuCompletesAndRunsACommand(t *testing.T) {
	h, r := newRealHarness(t)
	for path, text := range map[string]string{
		".claude/commands/greet.md":      "---\ndescription: Greet someone by name\nargument-hint: [name]\nmodel: gpt-4o-mini\n---\necho: Hello $1\n",
		".claude/commands/grep-todo.md":  "---\ndescription: Find the TODOs\n---\nsearch: TODO\n",
		".claude/commands/review.md":     "Review the diff.\n",
		".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Deploy to staging\n---\nsteps\n",
	} {
		p := filepath.Join(r.Cwd, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := h.newConversation(r.Cwd, false)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "/g")
	h.waitFor("the / menu", func() bool { return h.m.slash.visible() && len(h.m.slash.shown) == 2 })
	first := h.m.slash.box.Objects[0].(*menuRow)
	if !strings.Contains(first.label(), "/greet [name] — Greet someone by name") || first.btn.Importance != widget.HighImportance {
		t.Fatalf("first line %q (importance %v)", first.label(), first.btn.Importance)
	}
	// Down chooses the second, Up goes back; Tab completes.
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if h.m.slash.sel != 1 {
		t.Fatalf("Down: selection %d", h.m.slash.sel)
	}
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyUp})
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	if h.m.composer.entry.Text != "/greet " || h.m.slash.box.Visible() {
		t.Fatalf("after Tab: %q, menu visible %v", h.m.composer.entry.Text, h.m.slash.box.Visible())
	}
	test.Type(h.m.composer.entry, "Ada")
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the command's turn", func() bool {
		return cs.hasState && cs.conv.State.Kind() == domain.StateIdle && len(cs.msgs) >= 2
	})
	if got := cs.msgs[0].Text; got != "echo: Hello Ada" {
		t.Fatalf("sent %q, want the command's prompt", got)
	}
	if got := cs.msgs[len(cs.msgs)-1].Text; got != "Hello Ada" {
		t.Fatalf("reply %q", got)
	}
	if cs.conv.Model != domain.DemoModel || cs.conv.Title != "/greet Ada" {
		t.Fatalf("after the command the conversation is %q on %s; want \"/greet Ada\" on %s", cs.conv.Title, cs.conv.Model, domain.DemoModel)
	}
	// Text that is not a command name closes the menu; Esc closes it without stopping.
	test.Type(h.m.composer.entry, "/zz")
	h.q.drain()
	if h.m.slash.box.Visible() {
		t.Fatal("the menu is open for a name nothing starts with")
	}
	// The skills are named in the header.
	h.waitFor("the skills in the header", func() bool {
		for _, o := range h.m.proj.instrFiles.Objects {
			if l, ok := o.(*widget.Label); ok && l.Text == "Skills: deploy" {
				return true
			}
		}
		return false
	})
}

// TestSlashMenuDoesNotWidenTheWindow (issue 41 item 7): a command with a long description
// is cut with an ellipsis in the "/" menu; the menu no longer widens the window (1280 →
// 1314 px) or crushes the sidebar.
func TestSlashMenuDoesNotWidenTheWindow(t *testing.T) {
	h, _ := newOpenConversation(t, nil)
	before := h.m.win.Content().MinSize().Width
	side := h.m.sidebar.list.Size().Width
	h.m.slash.shown = []slashItem{
		{name: "release", desc: strings.Repeat("tag, build and publish every package of the monorepo ", 8)},
		{name: "review", desc: "Review the diff"},
	}
	h.m.slash.sel = 0
	h.m.slash.draw()
	h.settle()
	if got := h.m.win.Content().MinSize().Width; got > before {
		t.Errorf("with the menu open the window needs %v wide, %v before", got, before)
	}
	if got := h.m.sidebar.list.Size().Width; got < side {
		t.Errorf("the sidebar shrank from %v to %v", side, got)
	}
	if l := h.m.slash.box.Objects[0].(*menuRow).label(); !strings.HasPrefix(l, "/release — tag, build") {
		t.Errorf("the row reads %q", l)
	}
}
