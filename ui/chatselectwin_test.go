package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/ui/markdown"
)

// TestSelectionAcrossMessagesInASubAgentWindow: a sub-agent's conversation opens in a window
// of its own; a selection across its messages works there too: Shift+click extends the
// selection of the view focused in that window, and after a release over nothing focusable
// the focus comes back in that window, where Ctrl+C copies.
func TestSelectionAcrossMessagesInASubAgentWindow(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("split the work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Splitting.", []domain.ToolCall{spawnCall("s1", "Read the parser", "Read the tests")}, domain.Usage{InputTokens: 100})
	h.waitFor("waiting for sub-agents", func() bool { return strings.HasPrefix(h.status(), "Waiting for sub-agents") })
	st := h.f.state(id).(domain.AwaitingSubAgents)
	for _, o := range st.Outcomes {
		h.f.add(domain.NewConversationParams{ID: o.AgentID, Cwd: "/x", Model: "gpt-4o", ParentID: id, Task: o.Task},
			domain.Message{Kind: domain.KindUser, Text: "Read the parser and say what it does."},
			domain.Message{Kind: domain.KindAssistant, Text: "It parses **integers** and nothing else."},
		)
	}
	h.settle()
	card := h.agentsCard(t)
	agent := st.Outcomes[0].AgentID
	test.Tap(card.lines[0].open)
	h.waitFor("the sub-agent window", func() bool { return h.m.subWins[agent] != nil && h.m.convs[agent].loaded })
	w := h.m.subWins[agent]
	w.win.Resize(fyne.NewSize(900, 600))
	h.settle()
	s := w.cv.sel
	v0, v1 := s.shown(0), s.shown(1)
	if v0 == nil || v1 == nil || v0.selectable() == nil || v1.selectable() == nil {
		t.Fatal("the sub-agent's two messages are not on screen")
	}
	q, a := v0.selectable(), v1.selectable()

	// A selection in the question, then Shift+click in the answer.
	at := fyne.NewPos(40, 5)
	from := q.OffsetAt(at)
	drag(h, q, at, absPos(q).Add(fyne.NewPos(120, 5)))
	if w.win.Canvas().Focused() != q {
		t.Fatal("the question's view does not have the focus in the sub-agent window")
	}
	press(a, fyne.NewPos(1000, 5), fyne.KeyModifierShift)
	want := "Read the parser and say what it does."[from:] + "\n\nIt parses integers and nothing else."
	if got := copyFrom(h, q); got != want {
		t.Errorf("after Shift+click copied %q, want %q", got, want)
	}

	// A drag from the answer up into the question, released over nothing focusable.
	origin := absPos(a)
	a.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at, AbsolutePosition: origin.Add(at)}, Button: desktop.MouseButtonPrimary})
	to := absPos(q).Add(fyne.NewPos(0, 5))
	a.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to.Subtract(origin), AbsolutePosition: to}, Dragged: fyne.NewDelta(to.X-origin.X-at.X, to.Y-origin.Y-at.Y)})
	w.win.Canvas().Unfocus()
	a.DragEnd()
	h.q.drain()
	owner, ok := w.win.Canvas().Focused().(*markdown.View)
	if !ok {
		t.Fatal("no text view has the focus in the sub-agent window after the drag")
	}
	if got, want := copyFrom(h, owner), "Read the parser and say what it does.\n\n"+"It parses integers and nothing else."[:a.OffsetAt(at)]; got != want {
		t.Errorf("copied %q, want %q", got, want)
	}
	w.win.Close()
}
