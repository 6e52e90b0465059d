package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// usageAt returns usage at pct percent of the window.
func usageAt(window, pct int) domain.Usage { return domain.Usage{InputTokens: window * pct / 100} }

func TestContextWarningAndWrapUp_REQ_BED_023(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	window := h.m.current.conv.ContextWindow
	h.typeAndSend("long work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Here is a lot.", nil, usageAt(window, 85))
	h.waitFor("the warning", func() bool { return h.m.header.wrapBtn.Visible() })
	if !strings.HasPrefix(h.m.header.meterLabel.Text, "Context nearly full: ") || !strings.Contains(h.m.header.meterLabel.Text, "(85%)") {
		t.Errorf("meter label %q", h.m.header.meterLabel.Text)
	}
	if h.m.header.meter.color != "warning" {
		t.Errorf("meter colour %q", h.m.header.meter.color)
	}
	if h.m.menuWrapUp.Disabled {
		t.Error("the menu does not offer Wrap up at 85%")
	}
	// The wrap-up asks first, saying what it does; "Keep working" keeps working.
	test.Tap(h.m.header.wrapBtn)
	top := h.m.win.Canvas().Overlays().Top()
	if h.m.wrapDlg == nil || top == nil {
		t.Fatal("Wrap up now did not ask first")
	}
	for _, words := range []string{"continuation summary", "read-only", "Continue in new conversation"} {
		if !hasLabel(top, words) {
			t.Errorf("the question does not say %q", words)
		}
	}
	h.m.wrapDlg.Dismiss()
	h.settle()
	if h.f.wrapUps != 0 || h.m.current.conv.State.Kind() != domain.StateIdle {
		t.Fatalf("wrap-ups = %d, state %s after Keep working", h.f.wrapUps, h.m.current.conv.State.Kind())
	}
	test.Tap(h.m.header.wrapBtn)
	h.m.wrapDlg.Confirm()
	h.waitFor("the summary request", func() bool {
		_, ok := h.m.current.conv.State.(domain.AwaitingContinuation)
		return ok
	})
	if h.f.wrapUps != 1 {
		t.Fatalf("wrap-ups = %d", h.f.wrapUps)
	}
	if h.m.header.wrapBtn.Visible() {
		t.Error("Wrap up stays while the summary is written")
	}
	if h.status() != "Writing the continuation summary…" {
		t.Errorf("status %q", h.status())
	}
	exhaust(t, h, id, "We fixed the parser; next: add tests for negative numbers.")
	// Read-only because it was wrapped up, not because the window is full; the meter keeps
	// the fill it was wrapped up at.
	if p := h.m.composer.entry.PlaceHolder; !strings.Contains(p, "it was wrapped up") {
		t.Errorf("placeholder %q", p)
	}
	if !strings.Contains(h.m.header.meterLabel.Text, "(85%)") || !h.m.menuWrapUp.Disabled {
		t.Errorf("after the wrap-up: meter label %q, menu item disabled %v", h.m.header.meterLabel.Text, h.m.menuWrapUp.Disabled)
	}
}

// Under the 80% warning "Wrap up now" is not offered (neither the header's button nor the
// menu's item), and asking for it does nothing: at 3% it made the conversation read-only at
// once (issue 41).
func TestWrapUpNotOfferedUnderTheWarning_REQ_BED_023(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	window := h.m.current.conv.ContextWindow
	h.typeAndSend("short work")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	h.f.respond(t, id, "Done.", nil, usageAt(window, 3))
	h.waitFor("the reply", func() bool { return h.m.current.conv.State.Kind() == domain.StateIdle })
	h.settle()
	if !h.m.menuWrapUp.Disabled || h.m.header.wrapBtn.Visible() {
		t.Errorf("at 3%%: menu item disabled %v, header button visible %v", h.m.menuWrapUp.Disabled, h.m.header.wrapBtn.Visible())
	}
	h.m.wrapUp()
	h.settle()
	if h.m.wrapDlg != nil || h.f.wrapUps != 0 || h.m.composer.entry.Disabled() {
		t.Errorf("a wrap-up at 3%%: question %v, wrap-ups %d, composer disabled %v", h.m.wrapDlg != nil, h.f.wrapUps, h.m.composer.entry.Disabled())
	}
	if !strings.Contains(h.m.header.meterLabel.Text, "(3%)") {
		t.Errorf("meter label %q", h.m.header.meterLabel.Text)
	}
}

// exhaust answers the summary request and checks the exhausted view (REQ-BED-021).
func exhaust(t *testing.T, h *harness, id, summary string) {
	t.Helper()
	h.f.respond(t, id, summary, nil, domain.Usage{})
	h.waitFor("the exhausted view", func() bool { return h.m.composer.exhaustedBox.Visible() })
	if h.status() != "Context exhausted" {
		t.Errorf("status %q", h.status())
	}
	if ex, ok := h.m.exhaustedState(); !ok || ex.Summary != summary {
		t.Errorf("exhausted state %+v", ex)
	}
	if !h.m.composer.entry.Disabled() || !h.m.composer.sendBtn.Disabled() || !strings.Contains(h.m.composer.entry.PlaceHolder, "read-only") {
		t.Errorf("composer disabled %v, placeholder %q", h.m.composer.entry.Disabled(), h.m.composer.entry.PlaceHolder)
	}
	// The summary is shown prominently: the newest row, on screen.
	if r := h.lastRow(); r == nil || r.kind != rowContinuation || r.msg.Text != summary {
		t.Error("the continuation summary is not the last row")
	}
	h.settle()
	onScreen := false
	for _, v := range h.visibleRowViews() {
		onScreen = onScreen || v.bound.kind == rowContinuation
	}
	if !onScreen {
		t.Error("the continuation summary is not on screen")
	}
}

func TestExhaustedContinueInNew_REQ_BED_021(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	window := h.m.current.conv.ContextWindow
	h.typeAndSend("big task")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	// Past 90%: the core wraps up by itself (REQ-BED-019).
	h.f.respond(t, id, "", []domain.ToolCall{bashCall("x", "ls")}, usageAt(window, 92))
	h.waitFor("the summary request", func() bool { return h.status() == "Writing the continuation summary…" })
	exhaust(t, h, id, "Summary: parser fixed.")
	if p := h.m.composer.entry.PlaceHolder; !strings.Contains(p, "its context window is full") {
		t.Errorf("placeholder %q", p)
	}

	test.Tap(h.m.composer.continueBtn)
	h.waitFor("the new conversation", func() bool { return h.m.current != nil && h.m.current.id != id })
	nc := h.m.current
	if nc.conv.ContinuedFrom != id {
		t.Errorf("continued from %q, want %q", nc.conv.ContinuedFrom, id)
	}
	if h.m.composer.entry.Text != "Summary: parser fixed." {
		t.Errorf("draft %q, want the summary", h.m.composer.entry.Text)
	}
	if h.m.composer.entry.Disabled() || h.m.composer.exhaustedBox.Visible() {
		t.Error("the new conversation is not writable")
	}
	if !strings.Contains(h.m.header.subtitle.Text, "continues “Work”") {
		t.Errorf("subtitle %q lacks the link", h.m.header.subtitle.Text)
	}
	if h.m.sidebar.convs[0] != nc {
		t.Error("the new conversation is not first in the sidebar")
	}
}

func TestLandlockUnavailable_REQ_BED_014(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox = sandboxStatus(false, 0, "kernel 5.4 has no Landlock")
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
	})
	if !h.m.header.landlockNote.Visible() || !strings.Contains(h.m.header.landlockNote.Text, "kernel 5.4 has no Landlock") {
		t.Fatalf("note %q visible %v", h.m.header.landlockNote.Text, h.m.header.landlockNote.Visible())
	}
	h.open(h.m.sidebar.convs[0].id)
	if h.m.header.mode.text != "Unrestricted" || h.m.header.switchBox.Visible() {
		t.Errorf("badge %q, switch visible %v", h.m.header.mode.text, h.m.header.switchBox.Visible())
	}
	h.m.showNewConversation()
	if !h.m.newForm.mode.Disabled() || h.m.newForm.mode.Selected != modeUnrestrictedLabel {
		t.Error("the dialog offers Restricted mode without Landlock")
	}
}

// TestModeBadgeDetailsShowTheSandboxLayers_REQ_BED_014: tapping the mode badge opens the
// sandbox report — the mode, then each layer this machine has or lacks, and why.
func TestModeBadgeDetailsShowTheSandboxLayers_REQ_BED_014(t *testing.T) {
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox.Layers = append(f.sandbox.Layers, actors.SandboxLayer{Name: "mount view", Detail: "off: user namespaces are not allowed here"})
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
	})
	h.open(h.m.sidebar.convs[0].id)
	details := h.m.header.sandboxDetails()
	for _, want := range []string{"This conversation is Restricted", "Restricted mode: available", "[on ] Landlock: ABI 4", "[off] mount view: off: user namespaces are not allowed here"} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	before := len(h.m.win.Canvas().Overlays().List())
	test.Tap(h.m.header.mode)
	if len(h.m.win.Canvas().Overlays().List()) != before+1 {
		t.Errorf("tapping the badge opened no dialog")
	}
}

// The window is built without waiting for the sandbox's description, which starts a
// supervisor (tens of milliseconds before the window could map, issue 36); the Landlock
// note appears when the probe answers, and a dialog opened before then waits for it.
func TestWindowShowsBeforeSandboxProbe_REQ_BED_014(t *testing.T) {
	gate := make(chan struct{})
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox = sandboxStatus(false, 0, "kernel 5.4 has no Landlock")
		f.sandboxGate = gate
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o"})
	})
	if h.m.sandboxKnown || h.m.header.landlockNote.Visible() {
		t.Fatalf("before the probe answered: known %v, note visible %v", h.m.sandboxKnown, h.m.header.landlockNote.Visible())
	}
	close(gate)
	h.waitFor("the sandbox's description", func() bool { return h.m.sandboxKnown })
	if !h.m.header.landlockNote.Visible() || !strings.Contains(h.m.header.landlockNote.Text, "kernel 5.4 has no Landlock") {
		t.Fatalf("note %q visible %v", h.m.header.landlockNote.Text, h.m.header.landlockNote.Visible())
	}
}

// A dialog that needs the sandbox's description before the probe answered asks for it then.
func TestNewConversationBeforeSandboxProbe_REQ_BED_014(t *testing.T) {
	gate := make(chan struct{})
	close(gate) // the backend answers at once; the window has not asked yet
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandbox = sandboxStatus(false, 0, "kernel 5.4 has no Landlock")
		f.sandboxGate = gate
	})
	h.m.sandboxKnown = false // as before the probe answered
	h.m.showNewConversation()
	if !h.m.newForm.mode.Disabled() || h.m.newForm.mode.Selected != modeUnrestrictedLabel {
		t.Error("the dialog offers Restricted mode without Landlock")
	}
}

// A conversation opened before the probe answered opens without waiting for it: the mode
// switch shows once the probe says the sandbox is there.
func TestOpenBeforeSandboxProbeDoesNotWait_REQ_BED_014(t *testing.T) {
	gate := make(chan struct{})
	h := newHarness(t, func(f *fakeBackend, _ *Deps) {
		f.sandboxGate = gate
		f.add(domain.NewConversationParams{Title: "x", Cwd: "/x", Model: "gpt-4o", Mode: domain.ModeProject})
	})
	h.open(h.m.sidebar.convs[0].id)
	if h.m.header.switchBox.Visible() {
		t.Error("the mode switch shows before the probe answered")
	}
	close(gate)
	h.waitFor("the sandbox's description", func() bool { return h.m.sandboxKnown })
	if !h.m.header.switchBox.Visible() {
		t.Error("the mode switch does not show once the sandbox is known")
	}
}
