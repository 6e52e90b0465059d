package ui

import (
	"context"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
)

// promptsBackend is the fake backend with one MCP prompt whose first argument is required.
type promptsBackend struct{ *fakeBackend }

var explainPrompt = actors.MCPPrompt{Server: "docs", Name: "explain", Description: "Explain a file",
	Arguments: []mcp.PromptArgument{{Name: "path", Required: true, Description: "the file"}, {Name: "focus"}}}

func (b promptsBackend) Prompts(context.Context, string) ([]actors.MCPPrompt, error) {
	return []actors.MCPPrompt{explainPrompt}, nil
}

func (b promptsBackend) GetPrompt(_ context.Context, _, server, name string, args map[string]string) (string, error) {
	return "Explain " + args["path"] + ", above all " + args["focus"] + " (" + server + "/" + name + ")", nil
}

// Issue 26: an MCP prompt with a required argument sent with nothing after its name opens a
// small form of its arguments; Fetch puts the prompt's text in the composer and sends nothing.
func TestMCPPromptArgumentsAsAForm(t *testing.T) {
	f := newFakeBackend()
	c := f.add(domain.NewConversationParams{Title: "p", Cwd: "/tmp/p", Model: domain.DemoModel})
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(promptsBackend{f}, f.sub)
	t.Cleanup(func() { f.mu.Lock(); f.closed = true; f.mu.Unlock() })
	h.open(c.ID)
	h.m.win.Canvas().Focus(h.m.composer.entry)
	test.Type(h.m.composer.entry, "/mcp__docs")
	h.waitFor("the prompt in the menu", func() bool { return h.m.slash.visible() && len(h.m.slash.shown) == 1 })
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyTab})
	h.m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor("the form", func() bool { return h.m.win.Canvas().Overlays().Top() != nil })
	var entries []*widget.Entry
	walk(h.m.win.Canvas().Overlays().Top(), func(o fyne.CanvasObject) {
		if e, ok := o.(*widget.Entry); ok {
			entries = append(entries, e)
		}
	})
	if len(entries) != 2 {
		t.Fatalf("the form has %d fields, want one per argument", len(entries))
	}
	test.Type(entries[0], "main.go")
	test.Type(entries[1], "the error handling")
	test.Tap(findButton(h.m.win.Canvas().Overlays().Top(), "Fetch"))
	want := "Explain main.go, above all the error handling (docs/explain)"
	h.waitFor("the prompt's text in the composer", func() bool { return h.m.composer.entry.Text == want })
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.sent) != 0 {
		t.Fatalf("the form sent %d messages; it only fills the composer", len(f.sent))
	}
}
