package ui

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/button"
)

// mcpBackend is the fake backend with the MCP answers of actors.Runtime: it records them,
// refuses an empty required name as the runtime does, and closes the request.
type mcpBackend struct {
	*fakeBackend
	amu       sync.Mutex
	inputs    []string          // "ID ACTION name=VALUE"
	entries   map[string]string // of the last answer
	decisions []actors.MCPToolDecision
}

func (b *mcpBackend) AnswerMCPInput(convID, id, action string, entries map[string]string) error {
	if action == actors.MCPAccept && strings.TrimSpace(entries["name"]) == "" {
		return errors.New("Name is required")
	}
	b.amu.Lock()
	b.inputs = append(b.inputs, id+" "+action+" name="+entries["name"]+" sure="+entries["sure"]+" color="+entries["color"])
	b.entries = entries
	b.amu.Unlock()
	b.publish(actors.MCPRequestClosed{ConvID: convID, ID: id, Answer: action})
	return nil
}

func (b *mcpBackend) DecideMCPTool(convID, id string, d actors.MCPToolDecision) error {
	b.amu.Lock()
	b.decisions = append(b.decisions, d)
	b.amu.Unlock()
	b.publish(actors.MCPRequestClosed{ConvID: convID, ID: id, Answer: d.String()})
	return nil
}

func newMCPHarness(t *testing.T) (*harness, *mcpBackend, domain.Conversation, domain.Conversation) {
	t.Helper()
	f := newFakeBackend()
	b := &mcpBackend{fakeBackend: f}
	c := f.add(domain.NewConversationParams{Title: "mcp", Cwd: "/tmp/p", Model: domain.DemoModel})
	other := f.add(domain.NewConversationParams{Title: "other", Cwd: "/tmp/q", Model: domain.DemoModel})
	h := &harness{t: t, f: f, q: newQueue()}
	h.deps = Deps{Do: h.q.push, Now: func() time.Time { return testNow }}
	h.start(b, f.sub)
	t.Cleanup(func() {
		f.mu.Lock()
		f.closed = true
		f.mu.Unlock()
	})
	h.open(c.ID)
	return h, b, c, other
}

// mustButton finds a button of the cards by its text, or fails the test.
func mustButton(t *testing.T, root fyne.CanvasObject, text string) *button.Button {
	t.Helper()
	b := findButton(root, text)
	if b == nil {
		t.Fatalf("no %q button", text)
	}
	return b
}

func cardText(root fyne.CanvasObject) string {
	var b strings.Builder
	walk(root, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok && l.Visible() {
			b.WriteString(l.Text + "\n")
		}
	})
	return b.String()
}

// Issue 26: a server's request for input shows as a form built from its schema (text,
// a check box, a choice); Submit with a required field left empty shows the runtime's error
// and keeps the card; a good Submit sends the typed values, and the card goes when the
// request closes. Another conversation's request waits until that conversation is opened.
func TestMCPInputCard(t *testing.T) {
	h, b, c, other := newMCPHarness(t)
	box := h.m.mcpCards.box
	b.publish(actors.MCPInputRequested{ConvID: other.ID, ID: "mcp-0", Server: "elsewhere", Message: "Not here"})
	b.publish(actors.MCPInputRequested{ConvID: c.ID, ID: "mcp-1", Server: "notes", Message: "Who are you?",
		Fields: []actors.MCPFormField{
			{Name: "name", Title: "Name", Kind: actors.MCPFieldString, Required: true},
			{Name: "sure", Kind: actors.MCPFieldBoolean},
			{Name: "color", Kind: actors.MCPFieldEnum, Options: []string{"r", "g"}, Labels: []string{"Red", "Green"}, Default: "g"},
		}})
	h.waitFor("the card", func() bool { return box.Visible() && len(box.Objects) == 1 })
	text := cardText(box)
	if !strings.Contains(text, "notes asks:") || !strings.Contains(text, "Who are you?") || strings.Contains(text, "Not here") {
		t.Fatalf("card text:\n%s", text)
	}
	test.Tap(mustButton(t, box, "Submit"))
	h.waitFor("the error", func() bool { return strings.Contains(cardText(box), "Name is required") })
	if len(box.Objects) != 1 {
		t.Fatal("a refused answer took the card away")
	}
	var entry *widget.Entry
	var check *widget.Check
	walk(box, func(o fyne.CanvasObject) {
		switch w := o.(type) {
		case *widget.Entry:
			entry = w
		case *widget.Check:
			check = w
		}
	})
	test.Type(entry, "Ada")
	test.Tap(check)
	test.Tap(mustButton(t, box, "Submit"))
	h.waitFor("the card to go", func() bool { return !box.Visible() })
	if len(b.inputs) != 1 || b.inputs[0] != "mcp-1 accept name=Ada sure=true color=Green" {
		t.Fatalf("answers %q", b.inputs)
	}

	h.open(other.ID)
	h.waitFor("the other conversation's card", func() bool { return box.Visible() && strings.Contains(cardText(box), "Not here") })
	test.Tap(mustButton(t, box, "Decline"))
	h.waitFor("the card to go", func() bool { return !box.Visible() })
	if b.inputs[1] != "mcp-0 decline name= sure= color=" {
		t.Fatalf("answers %q", b.inputs)
	}
}

// Issue 26: a destructive tool's card names the server and the tool, shows the arguments and
// answers with the button pressed; a request closed by Stop takes its card away.
func TestMCPToolCard(t *testing.T) {
	h, b, c, _ := newMCPHarness(t)
	box := h.m.mcpCards.box
	for i, want := range []struct {
		button string
		d      actors.MCPToolDecision
	}{{"Allow once", actors.MCPToolAllowOnce}, {"Always allow this tool", actors.MCPToolAlwaysAllow}, {"Deny", actors.MCPToolDeny}} {
		id := "mcp-" + string(rune('a'+i))
		b.publish(actors.MCPToolConfirmation{ConvID: c.ID, ID: id, Server: "fs", Tool: "write_file", Arguments: `{"path":"/x"}`})
		h.waitFor("the card", func() bool { return box.Visible() })
		text := cardText(box)
		if !strings.Contains(text, "fs wants to run write_file (may change or delete data)") || !strings.Contains(text, `{"path":"/x"}`) {
			t.Fatalf("card text:\n%s", text)
		}
		test.Tap(mustButton(t, box, want.button))
		h.waitFor("the card to go", func() bool { return !box.Visible() })
		if b.decisions[i] != want.d {
			t.Fatalf("decisions %v", b.decisions)
		}
	}
	b.publish(actors.MCPToolConfirmation{ConvID: c.ID, ID: "mcp-z", Server: "fs", Tool: "write_file", Arguments: `{}`})
	h.waitFor("the card", func() bool { return box.Visible() })
	b.publish(actors.MCPRequestClosed{ConvID: c.ID, ID: "mcp-z", Answer: "stopped"})
	h.waitFor("the card to go after Stop", func() bool { return !box.Visible() })
}

// Issue 28: while an MCP server's card waits for the person, the composer says the agent
// waits for an answer, not that it is working (seen in the real window's MCP test).
func TestComposerSaysTheAgentWaitsWhileAnMCPCardDoes(t *testing.T) {
	h, b, c, _ := newMCPHarness(t)
	h.typeAndSend("use the notes server")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	ph := func() string { return h.m.composer.entry.PlaceHolder }
	if !strings.Contains(ph(), "is working") {
		t.Fatalf("placeholder while the agent works: %q", ph())
	}
	b.publish(actors.MCPInputRequested{ConvID: c.ID, ID: "mcp-1", Server: "notes", Message: "Who are you?"})
	h.waitFor("the card", func() bool { return h.m.mcpCards.box.Visible() })
	if !strings.Contains(ph(), "waits for your answer") {
		t.Fatalf("placeholder while a card waits: %q", ph())
	}
	test.Tap(mustButton(t, h.m.mcpCards.box, "Decline"))
	h.waitFor("the card to go", func() bool { return !h.m.mcpCards.box.Visible() })
	if !strings.Contains(ph(), "is working") {
		t.Fatalf("placeholder once answered: %q", ph())
	}
}
