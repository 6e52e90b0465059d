package actors

import (
	"context"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// TestLastWordsAreTheLastMessagesWords (issue 41): LastWords gives the first words of each
// conversation's last message with words, on one line; a conversation without messages and
// an unknown one are left out.
func TestLastWordsAreTheLastMessagesWords(t *testing.T) {
	h := newHarness(t)
	a := h.create(NewConversation{Title: "same"})
	b := h.create(NewConversation{Title: "same"})
	h.turn(a.ID, "fix the parser\ncrash on empty input")
	var want string
	for _, m := range h.history(a.ID) {
		if m.Kind == domain.KindUser || m.Kind == domain.KindAssistant {
			if m.Text != "" {
				want = transcript.OneLine(m.Text, LastWordsRunes)
			}
		}
	}
	if want == "" {
		t.Fatal("the turn left no message with words")
	}
	got, err := h.rt.LastWords(context.Background(), []string{a.ID, b.ID, "c-unknown"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[a.ID] != want {
		t.Fatalf("LastWords = %q, want only %s: %q", got, a.ID, want)
	}
}
