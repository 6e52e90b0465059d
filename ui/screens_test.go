package ui

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// screen builds one of the main screens for golden images and for looking at.
type screen struct {
	name  string
	build func(t *testing.T) *harness
}

var screens = []screen{
	{"empty", func(t *testing.T) *harness {
		h := newHarness(t, nil)
		h.settle()
		return h
	}},
	{"conversation", func(t *testing.T) *harness {
		var id string
		h := newHarness(t, func(f *fakeBackend, _ *Deps) {
			f.add(domain.NewConversationParams{Title: "Older conversation about the build", Cwd: "/home/ada/src/build", Model: "gpt-4o", CreatedAt: testNow.AddDate(0, 0, -3)})
			id = richConversation(t, f)
		})
		// The first row's thumbnail would load in the background, and whether it came before
		// the view followed the newest row changed the first row's height, and the scroll bar,
		// from run to run: the image is ready before the conversation opens.
		a, err := newAttachment("ci.png", h.f.blobs["d1b2"])
		if err != nil {
			t.Fatal(err)
		}
		h.m.thumbs.put("d1b2", a.thumb)
		h.open(id)
		for _, r := range h.rows() {
			if r.kind == rowTool && r.call.Name == domain.ToolPatch {
				r.expanded = true
				r.touch()
			}
		}
		h.m.cv.rowChanged()
		h.settle()
		h.m.cv.list.ScrollToBottom()
		h.settle()
		return h
	}},
	{"working", func(t *testing.T) *harness {
		h, id := newOpenConversation(t, nil)
		h.typeAndSend("Split the review between two sub-agents, then run the tests.")
		h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
		h.f.respond(t, id, "I will split it.", []domain.ToolCall{spawnCall("s1", "Review parse.go for off-by-one errors", "Review the tests for missing cases"), bashCall("b1", "go test ./... -count=1")}, domain.Usage{InputTokens: 2_000})
		h.waitFor("sub-agents", func() bool { _, ok := h.f.state(id).(domain.AwaitingSubAgents); return ok })
		st := h.f.state(id).(domain.AwaitingSubAgents)
		if _, err := h.f.apply(id, domain.SubAgentFinished{Exec: st.Exec, Outcome: domain.SubAgentOutcome{AgentID: st.Outcomes[0].AgentID, Task: st.Outcomes[0].Task, Status: domain.SubAgentSucceeded, Result: "parse.go:14 slices from 1; the first digit is lost."}}); err != nil {
			t.Fatal(err)
		}
		h.waitFor("one finished", func() bool {
			return h.m.current.model.running != nil && h.m.current.model.running.outcomes[0].Status == domain.SubAgentSucceeded
		})
		h.settle()
		return h
	}},
	{"approval", func(t *testing.T) *harness {
		h, id := newOpenConversation(t, nil)
		h.typeAndSend("Fix the off-by-one error in parse.go.")
		h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
		h.f.respond(t, id, "The fix is a one-line change; I need write access for it.",
			[]domain.ToolCall{upgradeCall("u1", "Edit parse.go to stop slicing off the first digit, then run go test.")}, domain.Usage{InputTokens: 104_000})
		h.waitFor("the card", func() bool { r := h.lastRow(); return r != nil && r.kind == rowApproval })
		h.settle()
		return h
	}},
	{"thinking", func(t *testing.T) *harness {
		h, id := newOpenConversation(t, nil)
		h.typeAndSend("Why does the parser test fail?")
		h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
		h.think(id, "The test expects 42 and gets 2, so one digit is lost.\n\nparse slices the string from index 1; I should read parse.go before I answer.")
		return h
	}},
	{"exhausted", func(t *testing.T) *harness {
		h, id := newOpenConversation(t, nil)
		window := h.m.current.conv.ContextWindow
		h.typeAndSend("Keep going with the refactor.")
		h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
		h.f.respond(t, id, "", []domain.ToolCall{bashCall("x", "ls")}, usageAt(window, 93))
		h.waitFor("continuation", func() bool { _, ok := h.f.state(id).(domain.AwaitingContinuation); return ok })
		h.f.respond(t, id, "**Status:** the parser is fixed and tested.\n\n**Next:** add tests for negative numbers and for empty input.", nil, domain.Usage{})
		h.waitFor("exhausted", func() bool { return h.m.composer.exhaustedBox.Visible() })
		h.settle()
		return h
	}},
	// The task list above the composer while the agent works through it (issue 27).
	{"tasks", func(t *testing.T) *harness {
		h, id := newOpenConversation(t, nil)
		h.typeAndSend("Fix the parser and prove it with a test.")
		h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
		h.f.respond(t, id, "", []domain.ToolCall{todoCall("t1", domain.TodoItem{Content: "Read parse.go and its test", Status: domain.TodoDone},
			domain.TodoItem{Content: "Stop slicing off the first digit", Status: domain.TodoInProgress},
			domain.TodoItem{Content: "Add a test for negative numbers", Status: domain.TodoPending},
			domain.TodoItem{Content: "Run go test ./...", Status: domain.TodoPending})},
			domain.Usage{InputTokens: 3_100, CachedTokens: 2_900, OutputTokens: 120, CostNanoUSD: 1_900_000, CostFrom: domain.CostFromProvider})
		h.f.completeTool(t, id, domain.ToolResult{Outcome: domain.OutcomeSuccess, Content: "Task list saved.", Display: &domain.ToolDisplay{Summary: "1 done, 1 in progress, 2 pending"}})
		h.waitFor("the panel", func() bool { return h.m.todo.box.Visible() })
		h.f.respond(t, id, "", []domain.ToolCall{bashCall("b1", "go test ./parse/ -run TestParse")}, domain.Usage{InputTokens: 3_300, CachedTokens: 3_100, OutputTokens: 40})
		h.settle()
		return h
	}},
}
