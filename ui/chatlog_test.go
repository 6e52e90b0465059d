package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

func TestLongConversationOpens(t *testing.T) {
	const n = 10_000
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(n)...).ID
	})
	h.open(id)
	if got := h.m.cv.list.Length(); got != n {
		t.Fatalf("list length %d, want %d", got, n)
	}
	views := h.visibleRowViews()
	if len(views) == 0 || len(views) > 60 {
		t.Fatalf("%d rows bound; a long history must bind only what is on screen", len(views))
	}
	last := h.m.current.model.at(n - 1)
	shown := false
	for _, v := range views {
		shown = shown || v.bound == last
	}
	if !shown {
		t.Error("the newest message is not on screen after opening")
	}
	if len(h.m.cv.measured) > 200 {
		t.Errorf("%d rows measured; only those near the screen should be", len(h.m.cv.measured))
	}
}

// longHistory is n messages: user questions, assistant answers with some Markdown, and tool
// rounds.
func longHistory(n int) []domain.Message {
	msgs := make([]domain.Message, 0, n)
	for i := 0; len(msgs) < n; i++ {
		switch i % 4 {
		case 0:
			msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: fmt.Sprintf("Question %d: what does function f%d do?", i, i)})
		case 1:
			msgs = append(msgs, domain.Message{Kind: domain.KindAssistant, Text: "Checking.", ToolCalls: []domain.ToolCall{bashCall(fmt.Sprintf("k%d", i), fmt.Sprintf("grep -n f%d *.go", i))}})
		case 2:
			msgs = append(msgs, domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: fmt.Sprintf("k%d", i-1), Name: "bash", Outcome: domain.OutcomeSuccess, Content: "main.go:12: func f() {}"}})
		default:
			msgs = append(msgs, domain.Message{Kind: domain.KindAssistant, Text: fmt.Sprintf("It **returns** the answer to question %d, as `main.go` line 12 shows.\n\n- one\n- two", i)})
		}
	}
	return msgs[:n]
}

func TestSubAgentCardOpensReadOnlyView_REQ_BED_008(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("split the work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Splitting.", []domain.ToolCall{spawnCall("s1", "Read the parser", "Read the tests")}, domain.Usage{InputTokens: 100})
	h.waitFor("waiting for sub-agents", func() bool { return strings.HasPrefix(h.status(), "Waiting for sub-agents (0 of 2 done)") })
	st := h.f.state(id).(domain.AwaitingSubAgents)
	for _, o := range st.Outcomes {
		h.f.add(domain.NewConversationParams{ID: o.AgentID, Cwd: "/x", Model: "gpt-4o", ParentID: id, Task: o.Task})
	}
	h.settle()
	card := h.agentsCard(t)
	if card.title.Text != "Sub-agents: 0 of 2 finished" || len(card.list.Objects) != 2 {
		t.Fatalf("card %q with %d lines", card.title.Text, len(card.list.Objects))
	}
	if card.lines[0].task.String() != "Read the parser" {
		t.Errorf("first task %q", card.lines[0].task.String())
	}

	// One finishes: the card says so.
	if _, err := h.f.apply(id, domain.SubAgentFinished{Exec: st.Exec, Outcome: domain.SubAgentOutcome{AgentID: st.Outcomes[0].AgentID, Task: "Read the parser", Status: domain.SubAgentSucceeded, Result: "It parses ints."}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("one finished", func() bool { return card.title.Text == "Sub-agents: 1 of 2 finished" })
	if !strings.Contains(card.lines[0].result.String(), "It parses ints.") {
		t.Errorf("result %q", card.lines[0].result.String())
	}

	test.Tap(card.lines[1].open)
	h.waitFor("the sub-agent window", func() bool {
		return h.m.subWins[st.Outcomes[1].AgentID] != nil && h.m.convs[st.Outcomes[1].AgentID].loaded
	})
	w := h.m.subWins[st.Outcomes[1].AgentID]
	if w.cv.readOnly != true {
		t.Error("the sub-agent view is writable")
	}
	if !strings.HasPrefix(w.win.Title(), "Sub-agent — Read the tests") {
		t.Errorf("title %q", w.win.Title())
	}
	for _, cs := range h.m.sidebar.convs {
		if cs.conv.IsSubAgent() {
			t.Error("a sub-agent is listed in the sidebar")
		}
	}
	w.win.Close()
	if h.m.subWins[st.Outcomes[1].AgentID] != nil {
		t.Error("closing the window leaves it registered")
	}
}

func TestToolRowExpandsToOutputAndDiff(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
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
	if tp.toggle.Text != "Show diff" || tp.details.Visible() {
		t.Fatalf("collapsed row: toggle %q, details visible %v", tp.toggle.Text, tp.details.Visible())
	}
	test.Tap(tp.toggle)
	h.settle()
	if !tp.details.Visible() || !strings.Contains(tp.details.Text(), "+\treturn strconv.Atoi(s)") {
		t.Fatalf("expanded row shows %q", tp.details.Text())
	}
	// The diff's colours are the markdown package's (TestDiffBlockColours).
	if got := detailTexts(&domain.ToolResult{Outcome: domain.OutcomeSuccess, Display: &domain.ToolDisplay{Diff: sampleDiff}}); len(got) != 1 || !got[0].Diff {
		t.Errorf("a successful patch shows %+v, want its diff alone", got)
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestToolRunsThenShowsItsOutput(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("list the files")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "", []domain.ToolCall{bashCall("l1", "ls -la")}, domain.Usage{InputTokens: 100})
	h.waitFor("the tool to run", func() bool { return h.status() == "Running bash: `ls -la` 0:00" })
	// The clock moves on while it runs.
	later := testNow.Add(75 * time.Second)
	h.m.now = func() time.Time { return later }
	h.m.status.tick()
	if h.status() != "Running bash: `ls -la` 1:15" {
		t.Errorf("status %q", h.status())
	}
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "a.go\nb.go", Display: &domain.ToolDisplay{Summary: "exit 0, 2 lines"}})
	h.waitFor("the request after the tool", func() bool { return h.status() == "Thinking…" })
	var r *row
	for _, x := range h.rows() {
		if x.kind == rowTool {
			r = x
		}
	}
	if r == nil || r.phase != toolDone {
		t.Fatalf("tool row %+v", r)
	}
	if _, sum := toolStatus(r); sum != "exit 0, 2 lines" {
		t.Errorf("summary %q", sum)
	}
}

func TestSendingScrollsToTheNewMessage(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Long", Cwd: "/long", Model: "gpt-4o"}, longHistory(400)...).ID
	})
	h.open(id)
	h.m.cv.list.ScrollToTop()
	h.m.cv.rowChanged() // as a click on a row would
	h.settle()
	if h.m.cv.atBottom(0) {
		t.Fatal("the view did not scroll up")
	}
	h.typeAndSend("where am I?")
	h.waitFor("the message", func() bool { r := h.lastRow(); return r != nil && r.kind == rowUser && r.msg.Text == "where am I?" })
	h.settle()
	shown := false
	for _, v := range h.visibleRowViews() {
		shown = shown || v.bound == h.lastRow()
	}
	if !shown {
		t.Error("the sent message is not on screen")
	}
}

func TestResizeMeasuresRowsAgain(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		id = f.add(domain.NewConversationParams{Title: "Wide", Cwd: "/w", Model: "gpt-4o"},
			domain.Message{Kind: domain.KindUser, Text: "Explain."},
			domain.Message{Kind: domain.KindAssistant, Text: strings.Repeat("A long sentence that wraps when the window is narrow. ", 12)},
		).ID
	})
	h.open(id)
	wide := h.m.cv.heights[1]
	if wide == 0 {
		t.Fatal("the reply was not measured")
	}
	h.m.win.Resize(fyne.NewSize(700, 720))
	h.settle()
	narrow := h.m.cv.heights[1]
	if narrow <= wide {
		t.Errorf("the reply is %v tall at 700 px and %v at 1100 px; narrower must be taller", narrow, wide)
	}
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowAssistant && v.Size().Height < narrow {
			t.Errorf("the reply's item is %v tall, its text needs %v", v.Size().Height, narrow)
		}
	}
}

// TestSelectAndCopyInChatRows: the text of a reply and of a tool's output can be selected
// and copied with Ctrl+C in the chat.
func TestSelectAndCopyInChatRows(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = richConversation(t, f) })
	h.open(id)
	h.m.cv.list.ScrollToBottom()
	h.settle()
	var reply *textPart
	var tool *toolPart
	for _, v := range h.visibleRowViews() {
		switch {
		case v.bound.kind == rowAssistant && strings.HasPrefix(v.bound.msg.Text, "Done."):
			reply = v.parts[rowAssistant].(*textPart)
		case v.bound.kind == rowTool && v.bound.call.Name == domain.ToolPatch:
			tool = v.parts[rowTool].(*toolPart)
		}
	}
	if reply == nil || tool == nil {
		t.Fatal("the last reply or the patch row is not on screen")
	}
	reply.text.SelectAll()
	reply.text.TypedShortcut(&fyne.ShortcutCopy{})
	if got := h.app.Clipboard().Content(); got != "Done. The fix:\n\nparse no longer drops the first digit\nthe test passes:\n\nok  parser 0.004s" {
		t.Errorf("copied %q", got)
	}
	test.Tap(tool.toggle)
	h.settle()
	tool.details.SelectAll()
	tool.details.TypedShortcut(&fyne.ShortcutCopy{})
	if got := h.app.Clipboard().Content(); !strings.Contains(got, "+\treturn strconv.Atoi(s)") {
		t.Errorf("copied from the tool output %q", got)
	}
}

// TestStreamingRowRendersMarkdown: while a reply streams, its finished blocks are rendered
// once and kept, and only the paragraph being written is rendered again.
func TestStreamingRowRendersMarkdown(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("write something")
	h.waitFor("thinking", func() bool { return h.m.current.busy() })
	exec := h.f.exec(id)
	streamView := func() *streamPart {
		for _, v := range h.visibleRowViews() {
			if v.bound.kind == rowStreaming {
				return v.parts[rowStreaming].(*streamPart)
			}
		}
		return nil
	}
	h.m.applyBatch([]actors.Event{actors.TextDelta{ConvID: id, Exec: exec, Text: "First `read_file` note.\n\n```go\nx := 1\n```\n\nSecond gro"}})
	h.settle()
	p := streamView()
	if p == nil {
		t.Fatal("no streaming row on screen")
	}
	if got := p.done.Text(); got != "First read_file note.\n\nx := 1" {
		t.Errorf("finished part shows %q", got)
	}
	if got := p.tail.Text(); got != "Second gro ▍" {
		t.Errorf("growing part shows %q", got)
	}
	// The blocks of the finished part (a paragraph, a code block) stay the same objects: it was
	// not parsed or built again.
	widgets := func() []fyne.CanvasObject {
		return slices.Clone(test.WidgetRenderer(p.done).Objects()[0].(*fyne.Container).Objects)
	}
	before := widgets()
	h.m.applyBatch([]actors.Event{actors.TextDelta{ConvID: id, Exec: exec, Text: "wing"}})
	h.settle()
	if got := p.tail.Text(); got != "Second growing ▍" {
		t.Errorf("growing part shows %q", got)
	}
	if len(before) != 2 || !slices.Equal(before, widgets()) {
		t.Errorf("the finished part was built again for a delta to the last paragraph (%d widgets before)", len(before))
	}
}

// agentsCard is the sub-agent card on screen; the test fails without one.
func (h *harness) agentsCard(t *testing.T) *agentsPart {
	t.Helper()
	return partOnScreen[*agentsPart](h, rowAgents, "the sub-agent card")
}
