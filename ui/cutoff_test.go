package ui

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// REQ-BED-003 (issue 13 item 1): a reply cut off at the output limit is shown with the reason
// and the limit, and Continue asks the model to go on without touching the draft.
func TestCutOffReplyShowsNoticeAndContinue_REQ_BED_003(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("write the whole file")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	exec := h.f.exec(id)
	if _, err := h.f.apply(id, domain.LLMResponse{Exec: exec, Text: "package main\n\nfunc main() {", StopReason: domain.StopLength,
		Usage: domain.Usage{InputTokens: 100, OutputTokens: 4096}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	p := partOnScreen[*cutOffPart](h, rowCutOff, "the cut-off notice")
	want := "The reply was cut off at the model's output limit (" + transcript.Tokens(domain.MaxOutputFor(h.f.conversation(id).Model)) + " tokens)"
	if got := p.text.String(); !strings.Contains(got, want) {
		t.Fatalf("notice %q; want it to contain %q", got, want)
	}
	if p.button.Hidden {
		t.Fatal("no Continue button after a reply cut at the output limit")
	}
	h.m.composer.entry.SetText("my own draft")
	test.Tap(p.button)
	h.waitFor("the go-on message", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 2 && h.f.sent[1].text == domain.GoOnPrompt
	})
	if h.m.composer.entry.Text != "my own draft" {
		t.Fatalf("Continue changed the draft to %q", h.m.composer.entry.Text)
	}
	h.settle()
	if !p.button.Hidden {
		t.Fatal("Continue is still offered on a reply that later messages followed")
	}

	// A filter stop is explained, with nothing to continue.
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	if _, err := h.f.apply(id, domain.LLMResponse{Exec: h.f.exec(id), Text: "I can", StopReason: domain.StopContentFilter,
		Usage: domain.Usage{InputTokens: 200}}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	var filtered *cutOffPart
	for _, v := range h.visibleRowViews() {
		if v.bound.kind == rowCutOff && v.bound.msg.StopReason == domain.StopContentFilter {
			filtered = v.parts[rowCutOff].(*cutOffPart)
		}
	}
	if filtered == nil || !strings.Contains(filtered.text.String(), "content filter") || !filtered.button.Hidden {
		t.Fatalf("content-filter notice %+v", filtered)
	}
}
