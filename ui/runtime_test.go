package ui

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper: Restricted bash re-executes the
// running binary (REQ-BED-014).
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	os.Exit(m.Run())
}

// These tests run the window on the real runtime, wired as cmd/phoenix-desktop wires it:
// real actors, a temporary Badger store, real tools under the real sandbox, and the fake
// OpenAI server over HTTP, whose predictable model reads each user message as a script
// ("echo: …", "bash: …", "upgrade: …", "patch: …", "usage: N").

func newRealHarness(t *testing.T) (*harness, *rig.Env) {
	t.Helper()
	if testing.Short() {
		t.Skip("real runtime tests are not short")
	}
	env, err := rig.Start(rig.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(env.Close)
	h := &harness{t: t, q: newQueue()}
	h.deps = Deps{Do: h.q.push}
	// The window gets its own subscription, as in the app; env.Events is not read here.
	h.start(env.Runtime, env.Runtime.Subscribe())
	return h, env
}

// newConversation creates a conversation through the New conversation dialog and waits for
// it to open.
func (h *harness) newConversation(cwd string, unrestricted bool) *convState {
	h.t.Helper()
	h.m.showNewConversation()
	f := h.m.newForm
	f.cwd.SetText(cwd)
	if unrestricted {
		f.mode.SetSelected(modeUnrestrictedLabel)
	}
	f.dlg.Submit()
	h.waitFor("the new conversation", func() bool { return h.m.current != nil && h.m.current.loaded })
	return h.m.current
}

func (h *harness) waitRest(what string) {
	h.t.Helper()
	h.waitFor(what, func() bool { return h.m.current.hasState && !h.m.current.busy() })
}

func TestRealSendAndReply_REQ_BED_002(t *testing.T) {
	h, r := newRealHarness(t)
	h.newConversation(r.Cwd, false)
	if h.m.header.mode.text != "Restricted" {
		t.Errorf("a new conversation is %s, want Restricted (REQ-BED-014)", h.m.header.mode.text)
	}
	h.typeAndSend("echo: hello from the window")
	h.waitFor("the reply", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowAssistant && r.msg.Text == "hello from the window"
	})
	h.waitRest("rest")
	if h.status() != "Ready" {
		t.Errorf("status %q", h.status())
	}
	if h.m.current.conv.Title == "" || !strings.Contains(h.m.header.title.Text, "echo: hello") {
		t.Errorf("title %q", h.m.header.title.Text)
	}
	if !strings.Contains(h.m.header.meterLabel.Text, "/ 100k tokens") {
		t.Errorf("meter %q", h.m.header.meterLabel.Text)
	}
}

func TestRealDropAndSendImages_REQ_BED_013(t *testing.T) {
	h, r := newRealHarness(t)
	h.newConversation(r.Cwd, false)
	dir := t.TempDir()
	uris := []fyne.URI{
		pngFile(t, dir, "one.png", 64, 48, color.NRGBA{R: 0xff, A: 0xff}),
		fileURI(writeFile(t, dir, "notes.txt", "text")),
		pngFile(t, dir, "two.png", 48, 64, color.NRGBA{G: 0xff, A: 0xff}),
	}
	h.m.onDropped(fyne.Position{}, uris)
	h.waitFor("two thumbnails", func() bool { return len(h.m.composer.strip.Objects) == 2 })
	if !strings.Contains(h.m.notice.label.Text, "notes.txt is not an image") {
		t.Errorf("inline %q", h.m.notice.label.Text)
	}
	test.Type(h.m.composer.entry, "What do you see?")
	test.Tap(h.m.composer.sendBtn)
	h.waitFor("the description", func() bool {
		r := h.lastRow()
		return r != nil && r.kind == rowAssistant && strings.HasPrefix(r.msg.Text, "I see 2 images")
	})
	chat := r.Server.LastChat()
	if chat == nil {
		t.Fatal("the server got no request")
	}
	raw := ""
	for _, req := range r.Server.Requests() {
		raw += string(req.Raw)
	}
	if n := strings.Count(raw, "data:image/"); n < 2 {
		t.Errorf("the server received %d images, want 2", n)
	}
	h.settle()
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowUser {
			if n := len(v.parts[rowUser].(*userPart).thumbs.Objects); n != 2 {
				t.Errorf("the message shows %d thumbnails", n)
			}
		}
	}
}

func TestRealApproveThenPatch_REQ_BED_015(t *testing.T) {
	h, r := newRealHarness(t)
	if !sandbox.Probe().Available {
		t.Skip("Landlock is unavailable: conversations start Unrestricted")
	}
	h.newConversation(r.Cwd, false)
	h.typeAndSend("upgrade: I must write note.txt\npatch: note.txt <<< approved")
	h.waitFor("the approval card", func() bool { r := h.lastRow(); return r != nil && r.kind == rowApproval })
	h.settle()
	test.Tap(h.approvalPart().full)
	h.waitFor("Unrestricted", func() bool { return h.m.header.mode.text == "Unrestricted" })
	h.waitRest("the patch")
	data, err := os.ReadFile(filepath.Join(r.Cwd, "note.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "approved" {
		t.Fatalf("note.txt = %q, %v; the patch did not run after approval", data, err)
	}
	var patched bool
	for _, row := range h.rows() {
		if row.kind == rowTool && row.call.Name == domain.ToolPatch && row.result != nil {
			patched = row.result.Outcome == domain.OutcomeSuccess
		}
	}
	if !patched {
		t.Error("the patch row does not show success")
	}
}

func TestRealDenyKeepsRestricted_REQ_BED_015(t *testing.T) {
	h, r := newRealHarness(t)
	if !sandbox.Probe().Available {
		t.Skip("Landlock is unavailable: conversations start Unrestricted")
	}
	h.newConversation(r.Cwd, false)
	h.typeAndSend("upgrade: I must write note.txt\npatch: note.txt <<< denied")
	h.waitFor("the approval card", func() bool { r := h.lastRow(); return r != nil && r.kind == rowApproval })
	h.settle()
	test.Tap(h.approvalPart().deny)
	h.waitRest("the agent to finish")
	if h.m.header.mode.text != "Restricted" {
		t.Fatalf("mode %q after a denial", h.m.header.mode.text)
	}
	if _, err := os.Stat(filepath.Join(r.Cwd, "note.txt")); err == nil {
		t.Fatal("note.txt was written in Restricted mode")
	}
	var told, refused bool
	for _, row := range h.rows() {
		if row.kind == rowTool && row.result != nil {
			switch row.call.Name {
			case domain.ToolRequestModeUpgrade:
				told = row.result.Outcome != domain.OutcomeSuccess || strings.Contains(strings.ToLower(row.result.Content), "den")
			case domain.ToolPatch:
				refused = row.result.Outcome == domain.OutcomeError && strings.Contains(row.result.Content, "request_mode_upgrade")
			}
		}
	}
	if !told || !refused {
		t.Errorf("agent told of the denial: %v; patch refused with a pointer to request_mode_upgrade: %v", told, refused)
	}
}

func TestRealStopRunningTool_REQ_BED_005(t *testing.T) {
	h, r := newRealHarness(t)
	h.newConversation(r.Cwd, false)
	h.typeAndSend("bash: sleep 30")
	h.waitFor("the tool to run", func() bool { return strings.HasPrefix(h.status(), "Running bash: `sleep 30`") })
	start := time.Now()
	test.Tap(h.m.status.stopBtn)
	h.waitRest("the stop")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("stopping took %v", d)
	}
	var cancelled bool
	for _, row := range h.rows() {
		if row.kind == rowTool && row.result != nil {
			cancelled = row.result.Outcome == domain.OutcomeCancelled
		}
	}
	if !cancelled || h.status() != "Ready" {
		t.Errorf("cancelled row %v, status %q", cancelled, h.status())
	}
}

func TestRealWrapUpAndContinue_REQ_BED_023(t *testing.T) {
	h, r := newRealHarness(t)
	old := h.newConversation(r.Cwd, false)
	h.typeAndSend("usage: 85000\necho: a long answer")
	h.waitRest("the answer")
	h.waitFor("the warning", func() bool { return h.m.header.wrapBtn.Visible() })
	if !strings.Contains(h.m.header.meterLabel.Text, "(85%)") {
		t.Errorf("meter %q", h.m.header.meterLabel.Text)
	}
	test.Tap(h.m.header.wrapBtn)
	h.m.wrapDlg.Confirm() // it asks first (issue 41)
	h.waitFor("the exhausted view", func() bool { return h.m.composer.exhaustedBox.Visible() })
	ex, _ := h.m.exhaustedState()
	if strings.TrimSpace(ex.Summary) == "" || !h.m.composer.entry.Disabled() {
		t.Fatalf("summary %q, composer disabled %v", ex.Summary, h.m.composer.entry.Disabled())
	}
	test.Tap(h.m.composer.continueBtn)
	h.waitFor("the new conversation", func() bool { return h.m.current != old && h.m.current.loaded })
	if h.m.current.conv.ContinuedFrom != old.id || !strings.Contains(h.m.composer.entry.Text, ex.Summary) {
		t.Errorf("continued from %q, draft %q", h.m.current.conv.ContinuedFrom, h.m.composer.entry.Text)
	}
	sums, err := r.Runtime.List(context.Background(), false)
	if err != nil || len(sums) != 2 {
		t.Errorf("list: %d conversations, %v", len(sums), err)
	}
}
