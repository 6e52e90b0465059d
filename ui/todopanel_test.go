package ui

import (
	"encoding/json"
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

func todoCall(id string, items ...domain.TodoItem) domain.ToolCall {
	b, _ := json.Marshal(domain.TodoArgs{Todos: items})
	return domain.ToolCall{ID: id, Name: domain.ToolTodo, Arguments: string(b)}
}

// todoShown is what the panel shows: its header and each visible task's words, or nil when
// it is hidden.
func (h *harness) todoShown() (string, []string) {
	p := h.m.todo
	if !p.box.Visible() {
		return "", nil
	}
	var lines []string
	if p.scroll.Visible() {
		for _, o := range p.list.Objects {
			for _, l := range p.lines {
				if l.obj == o {
					lines = append(lines, l.text.String())
				}
			}
		}
	}
	return p.summary.Text, lines
}

// lineStyle is the style the panel's task i is drawn in.
func lineStyle(h *harness, i int) widget.RichTextStyle {
	return h.m.todo.lines[i].text.Segments[0].(*widget.TextSegment).Style
}

// TestTodoPanelFollowsTheModel: the checklist above the composer appears when a todo call
// succeeds, follows each later call as its result is committed, keeps the last good list
// when a call is refused, and folds to its header.
func TestTodoPanelFollowsTheModel(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	if head, _ := h.todoShown(); head != "" {
		t.Fatalf("a conversation without a list shows the panel %q", head)
	}
	h.typeAndSend("fix the parser")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "", []domain.ToolCall{todoCall("t1", domain.TodoItem{Content: "read the parser", Status: domain.TodoInProgress},
		domain.TodoItem{Content: "fix the bug", Status: domain.TodoPending})}, domain.Usage{InputTokens: 100})
	h.settle()
	if head, _ := h.todoShown(); head != "" {
		t.Fatalf("the panel shows %q before the call's result", head)
	}
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list saved."})
	want := []string{"read the parser", "fix the bug"}
	h.waitFor("the panel", func() bool { _, l := h.todoShown(); return slices.Equal(l, want) })
	if head, _ := h.todoShown(); head != "Tasks: 0 of 2 done · now: read the parser" {
		t.Errorf("header %q", head)
	}

	if !lineStyle(h, 0).TextStyle.Bold || lineStyle(h, 1).TextStyle.Bold {
		t.Error("the task in progress is not the one in bold")
	}

	// The model moves on; the panel follows.
	h.f.respond(t, id, "", []domain.ToolCall{todoCall("t2", domain.TodoItem{Content: "read the parser", Status: domain.TodoDone},
		domain.TodoItem{Content: "fix the bug", Status: domain.TodoInProgress}, domain.TodoItem{Content: "run the tests", Status: domain.TodoPending})},
		domain.Usage{InputTokens: 100})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list saved."})
	want = []string{"read the parser", "fix the bug", "run the tests"}
	h.waitFor("the updated panel", func() bool { _, l := h.todoShown(); return slices.Equal(l, want) })
	if st := lineStyle(h, 0); st.ColorName != theme.ColorNamePlaceHolder || st.TextStyle.Bold {
		t.Error("a done task is not dimmed")
	}

	// A refused call leaves the list as it was.
	h.f.respond(t, id, "", []domain.ToolCall{{ID: "t3", Name: domain.ToolTodo, Arguments: `{"todos":[{"content":"x","status":"completed"}]}`}}, domain.Usage{InputTokens: 100})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeError, Content: "The task list was not changed"})
	h.settle()
	if head, l := h.todoShown(); head != "Tasks: 1 of 3 done · now: fix the bug" || !slices.Equal(l, want) {
		t.Errorf("after a refused call the panel shows %q %v", head, l)
	}

	// Folded, only the header is left; unfolded, the tasks are back.
	test.Tap(h.m.todo.toggle)
	if head, l := h.todoShown(); head == "" || l != nil {
		t.Errorf("folded, the panel shows %q %v", head, l)
	}
	test.Tap(h.m.todo.toggle)
	if _, l := h.todoShown(); !slices.Equal(l, want) {
		t.Errorf("unfolded, the panel shows %v", l)
	}

	// An empty list hides the panel.
	h.f.respond(t, id, "", []domain.ToolCall{todoCall("t4")}, domain.Usage{InputTokens: 100})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list cleared."})
	h.waitFor("the panel to go", func() bool { head, _ := h.todoShown(); return head == "" })
}

// TestChatKeepsFollowingWhenThePanelAppears: the panel takes room from the chat, which goes
// on showing its newest row.
func TestChatKeepsFollowingWhenThePanelAppears(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = longConversation(f) })
	h.open(id)
	h.typeAndSend("plan it")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "", []domain.ToolCall{todoCall("t1", domain.TodoItem{Content: "a", Status: domain.TodoInProgress},
		domain.TodoItem{Content: "b", Status: domain.TodoPending}, domain.TodoItem{Content: "c", Status: domain.TodoPending})}, domain.Usage{InputTokens: 100})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list saved."})
	h.waitFor("the panel", func() bool { return h.m.todo.box.Visible() })
	h.settle()
	if !h.m.cv.atBottom(estimatedRowHeight / 2) {
		t.Error("the chat stopped following its newest row when the panel appeared")
	}
}

// TestTodoPanelShowsTheStoredList: a conversation opened from the store (after a restart)
// shows the list its history holds, and switching to one without a list hides the panel.
func TestTodoPanelShowsTheStoredList(t *testing.T) {
	var withList, without string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		p := domain.NewConversationParams{Title: "Plan", Cwd: "/home/ada/src/parser", Model: "gpt-4o"}
		withList = f.add(p,
			domain.Message{Kind: domain.KindUser, Text: "fix it"},
			domain.Message{Kind: domain.KindAssistant, ToolCalls: []domain.ToolCall{todoCall("t1", domain.TodoItem{Content: "read", Status: domain.TodoDone},
				domain.TodoItem{Content: "write", Status: domain.TodoPending})}},
			domain.Message{Kind: domain.KindToolResult, ToolResult: &domain.ToolResult{CallID: "t1", Name: domain.ToolTodo, Outcome: domain.OutcomeSuccess}},
			domain.Message{Kind: domain.KindAssistant, Text: "Read it."},
		).ID
		without = f.add(p, domain.Message{Kind: domain.KindUser, Text: "hello"}).ID
	})
	h.open(withList)
	if head, l := h.todoShown(); head != "Tasks: 1 of 2 done" || !slices.Equal(l, []string{"read", "write"}) {
		t.Fatalf("the stored list shows as %q %v", head, l)
	}
	h.open(without)
	if head, _ := h.todoShown(); head != "" {
		t.Fatalf("a conversation without a list shows %q", head)
	}
	h.open(withList)
	if head, _ := h.todoShown(); head != "Tasks: 1 of 2 done" {
		t.Fatalf("back on the first conversation the panel shows %q", head)
	}
}

// TestEachReplySaysWhatItCost: under each reply, after its tool calls when it made some, a
// small line says what it took and cost, in the export's words; a reply without a known
// price shows its tokens only (issue 27).
func TestEachReplySaysWhatItCost(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("list the files")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	priced := domain.Usage{InputTokens: 12_300, CachedTokens: 11_070, OutputTokens: 340, CostNanoUSD: 4_200_000, CostFrom: domain.CostFromProvider}
	h.f.respond(t, id, "Two looks.", []domain.ToolCall{bashCall("l1", "ls"), bashCall("l2", "ls -a")}, priced)
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "a.go"})
	h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: ".git a.go"})
	h.waitFor("the request after the tools", func() bool { return h.status() == "Thinking…" })
	unpriced := domain.Usage{InputTokens: 12_500, OutputTokens: 20}
	h.f.respond(t, id, "There is one file.", nil, unpriced)
	h.settle()

	var shown []string
	for _, r := range h.rows() {
		shown = append(shown, r.usage)
	}
	// You; "Two looks."; ls; ls -a (the reply's last row); "There is one file."
	want := []string{"", "", "", "12.3k in (90% cached) · 340 out · $0.0042", "12.5k in · 20 out"}
	if !slices.Equal(shown, want) || want[3] != transcript.UsageLine(priced) {
		t.Fatalf("usage per row %q; want %q", shown, want)
	}
	// The lines are drawn, in small text, under the rows that have one and nowhere else.
	var drawn []string
	for _, v := range h.visibleRowViews() {
		var line *usageLine
		switch p := v.parts[v.bound.kind].(type) {
		case *textPart:
			line = p.usage
		case *toolPart:
			line = p.usage
		default:
			continue
		}
		if line.obj.Visible() {
			drawn = append(drawn, line.text.String())
			if seg := line.text.Segments[0].(*widget.TextSegment); seg.Style.SizeName != captionStyle().SizeName {
				t.Errorf("the usage line is drawn at %s", seg.Style.SizeName)
			}
		}
	}
	if !slices.Equal(drawn, want[3:]) {
		t.Fatalf("drawn usage lines %q; want %q", drawn, want[3:])
	}
}

// The same for a notice below the chat (a refused save, seen in the full-disk real-window
// test): the room for the chat shrinks, and a chat that showed its newest row still does.
func TestChatKeepsFollowingWhenANoticeAppears(t *testing.T) {
	var id string
	h := newHarness(t, func(f *fakeBackend, _ *Deps) { id = longConversation(f) })
	h.open(id)
	h.settle()
	if !h.m.cv.atBottom(estimatedRowHeight / 2) {
		t.Fatal("the chat does not open at its newest row")
	}
	h.m.showInline("Could not queue the message: The disk holding your conversations is full: free 58 MB; nothing was lost. " +
		"A long notice takes several lines at this width, so the chat loses more than one row of room to it.")
	h.settle()
	if !h.m.cv.atBottom(estimatedRowHeight / 2) {
		t.Error("the chat stopped following its newest row when a notice appeared below it")
	}
}

// longConversation adds a conversation of 40 short messages, more than the chat shows at
// once, and returns its id.
func longConversation(f *fakeBackend) string {
	var msgs []domain.Message
	for range 20 {
		msgs = append(msgs, domain.Message{Kind: domain.KindUser, Text: "again"}, domain.Message{Kind: domain.KindAssistant, Text: "Done."})
	}
	return f.add(domain.NewConversationParams{Title: "Long", Cwd: "/home/ada/src/parser", Model: "gpt-4o"}, msgs...).ID
}
