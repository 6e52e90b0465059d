package ui

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// Retry resends the interrupted turn's message, as actors.Runtime.Retry does.
func (f *fakeBackend) Retry(_ context.Context, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fc := f.convs[id]
	if fc == nil {
		return actors.ErrNothingToRetry
	}
	m, ok := actors.InterruptedTurn(fc.msgs)
	if !ok {
		return actors.ErrNothingToRetry
	}
	f.sent = append(f.sent, sentMsg{id: id, text: m.Text})
	_, err := f.applyLocked(id, domain.UserMessage{Text: m.Text, Images: m.Images})
	return err
}

// Issue 25 item 3: a turn the app stopped in (here a full disk) ends with the core's "Not
// answered" notice and a Retry button, which sends the person's message again without
// touching the draft, and goes once the turn is answered.
func TestInterruptedTurnShowsNoticeAndRetry_REQ_BED_007(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("summarise the repository")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	if _, err := h.f.apply(id, domain.RestoreAfterRestart{Why: "the disk was full"}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("ready", func() bool { return h.status() == "Ready" })
	h.settle()
	p := partOnScreen[*interruptedPart](h, rowInterrupted, "the Not answered notice")
	if got, want := p.text.String(), "Not answered: the app stopped before the reply (the disk was full)."; got != want {
		t.Fatalf("notice %q; want %q", got, want)
	}
	if p.button.Hidden {
		t.Fatal("no Retry button under the interrupted turn")
	}
	h.m.composer.entry.SetText("my own draft")
	test.Tap(p.button)
	h.waitFor("the message sent again", func() bool {
		h.f.mu.Lock()
		defer h.f.mu.Unlock()
		return len(h.f.sent) == 2 && h.f.sent[1].text == "summarise the repository"
	})
	if h.m.composer.entry.Text != "my own draft" {
		t.Fatalf("Retry changed the draft to %q", h.m.composer.entry.Text)
	}
	h.waitFor("thinking again", func() bool { return h.status() == "Thinking…" })
	h.settle()
	if !p.button.Hidden {
		t.Fatal("Retry is still offered under a turn that was sent again")
	}
}
