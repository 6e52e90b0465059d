package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// upgradeScene brings a conversation to AwaitingModeApproval.
func upgradeScene(t *testing.T) (*harness, string) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("please fix it")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "I need to edit files.", []domain.ToolCall{upgradeCall("u1", "I need to edit parse.go to fix the bug.")}, domain.Usage{InputTokens: 500})
	h.waitFor("the approval card", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowApproval
	})
	h.settle()
	if h.status() != "Waiting for your approval" {
		t.Fatalf("status %q", h.status())
	}
	return h, id
}

func (h *harness) approvalPart() *approvalPart {
	h.t.Helper()
	return partOnScreen[*approvalPart](h, rowApproval, "the approval card")
}

// partOnScreen returns the part drawing the first visible row of a kind.
func partOnScreen[P part](h *harness, kind rowKind, what string) P {
	h.t.Helper()
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == kind {
			return v.parts[kind].(P)
		}
	}
	h.t.Fatalf("%s is not on screen", what)
	var zero P
	return zero
}

func TestApproveUpgrade_REQ_BED_015(t *testing.T) {
	h, id := upgradeScene(t)
	p := h.approvalPart()
	if !strings.Contains(p.reason.String(), "I need to edit parse.go") {
		t.Errorf("card reason %q", p.reason.String())
	}
	if h.m.header.mode.text != "Restricted" || h.m.header.switchBox.Visible() {
		t.Fatal("mode badge before approval")
	}
	if !h.m.menuRestricted.Disabled || !h.m.menuProject.Disabled {
		t.Error("the menu offers to switch a Restricted conversation down")
	}
	// The composer says the card waits for the person, not that the agent is working.
	if ph := h.m.composer.entry.PlaceHolder; strings.Contains(ph, "is working") || !strings.Contains(ph, "waits for your answer") {
		t.Errorf("while the card waits the composer says %q", ph)
	}
	// Keyboard reach: Tab moves the focus to the card's buttons.
	c := h.m.win.Canvas()
	c.Focus(nil)
	reached := false
	for i := 0; i < 40 && !reached; i++ {
		test.FocusNext(c)
		reached = c.Focused() == fyne.Focusable(p.full)
	}
	if !reached {
		t.Error("Tab never reaches Allow everything")
	}

	test.Tap(p.full)
	h.waitFor("Unrestricted mode", func() bool { return h.m.header.mode.text == "Unrestricted" })
	if h.f.decisions[0] != domain.ModeUnrestricted {
		t.Fatalf("the backend got %q; want unrestricted", h.f.decisions[0])
	}
	if h.f.conversation(id).Mode != domain.ModeUnrestricted {
		t.Fatal("the conversation is not Unrestricted")
	}
	h.settle()
	if !h.m.header.switchBox.Visible() {
		t.Error("Switch to Restricted is hidden in Unrestricted mode")
	}
	if h.m.menuRestricted.Disabled || h.m.menuProject.Disabled {
		t.Error("the menu does not offer to switch an Unrestricted conversation down")
	}
	for _, r := range h.rows() {
		if r.kind == rowApproval {
			t.Error("the approval card stayed after the decision")
		}
	}
	// The agent goes on: the next request is in flight.
	if h.status() != "Thinking…" {
		t.Errorf("status after approval %q", h.status())
	}

	// REQ-BED-016: Switch to Restricted takes effect at once.
	h.f.respond(t, id, "Done.", nil, domain.Usage{InputTokens: 600})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	test.Tap(h.m.header.switchBtn)
	h.waitFor("Restricted again", func() bool { return h.m.header.mode.text == "Restricted" })
	if h.f.downgrades != 1 {
		t.Errorf("downgrades = %d", h.f.downgrades)
	}
}

func TestDenyUpgrade_REQ_BED_015(t *testing.T) {
	h, id := upgradeScene(t)
	test.Tap(h.approvalPart().deny)
	h.waitFor("the agent to go on", func() bool { return h.status() == "Thinking…" })
	if h.f.decisions[0] != actors.DenyUpgrade {
		t.Fatal("the backend got an approval")
	}
	if h.m.header.mode.text != "Restricted" || h.f.conversation(id).Mode != domain.ModeRestricted {
		t.Fatal("a denial changed the mode")
	}
	// The agent is told: the tool result says so, and the row shows it.
	var told bool
	for _, r := range h.rows() {
		if r.kind == rowTool && r.call.Name == domain.ToolRequestModeUpgrade && r.result != nil {
			told = strings.Contains(strings.ToLower(r.result.Content), "den")
		}
	}
	if !told {
		t.Error("no tool result tells the agent about the denial")
	}
}

func TestApprovalNotifiesWhenUnfocused_REQ_BED_015(t *testing.T) {
	var got []*fyne.Notification
	h, id := newOpenConversation(t, func(_ *fakeBackend, d *Deps) {
		d.Notify = func(n *fyne.Notification) { got = append(got, n) }
	})
	h.typeAndSend("go")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.m.focused = false
	h.f.respond(t, id, "", []domain.ToolCall{upgradeCall("u1", "write access please")}, domain.Usage{InputTokens: 10})
	h.waitFor("a notification", func() bool { return len(got) == 1 })
	if !strings.Contains(got[0].Content, "write access please") {
		t.Errorf("notification %+v", got[0])
	}
	test.Tap(h.approvalPart().deny)
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "ok", nil, domain.Usage{InputTokens: 20})
	h.waitFor("a second notification", func() bool { return len(got) == 2 })
	if got[1].Content != "The agent has finished." {
		t.Errorf("finish notification %+v", got[1])
	}
	// Focused: nothing.
	h.m.focused = true
	h.typeAndSend("again")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "ok", nil, domain.Usage{InputTokens: 30})
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	if len(got) != 2 {
		t.Errorf("notified while focused: %d", len(got))
	}
}

func TestStopDuringRunningTool_REQ_BED_005(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("run the tests")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Running them.", []domain.ToolCall{bashCall("b1", "go test ./..."), bashCall("b2", "go vet ./...")}, domain.Usage{InputTokens: 300})
	h.waitFor("the tool to run", func() bool { return strings.HasPrefix(h.status(), "Running bash: `go test ./...`") })
	if h.status() != "Running bash: `go test ./...` 0:00" {
		t.Errorf("status %q", h.status())
	}
	var running, queued *row
	for _, r := range h.rows() {
		if r.kind == rowTool && r.call.ID == "b1" {
			running = r
		}
		if r.kind == rowTool && r.call.ID == "b2" {
			queued = r
		}
	}
	if running == nil || running.phase != toolRunning || queued == nil || queued.phase != toolQueued {
		t.Fatalf("tool rows: %+v %+v", running, queued)
	}
	test.Tap(h.m.status.stopBtn)
	h.waitFor("the agent to stop", func() bool { return h.status() == "Ready" })
	if running.result == nil || running.result.Outcome != domain.OutcomeCancelled {
		t.Errorf("the running tool's row shows %+v, want cancelled", running.result)
	}
	if queued.result == nil || queued.result.Outcome != domain.OutcomeSkipped {
		t.Errorf("the queued tool's row shows %+v, want skipped", queued.result)
	}
	if _, s := toolStatus(running); s != "cancelled: "+domain.CancelledResultText {
		t.Errorf("cancelled row summary %q", s)
	}
	if h.m.status.stopBtn.Visible() {
		t.Error("Stop is visible at rest")
	}
}
