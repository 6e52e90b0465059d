package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
)

// TestChatSaysNoThinkingBeforeAReply (issue 36): chat printed "· Thinking…" for every
// request, also for a reply that did no thinking.
func TestChatSaysNoThinkingBeforeAReply(t *testing.T) {
	var out bytes.Buffer
	p := &chatPrinter{w: &out}
	for _, st := range []domain.State{domain.LLMRequesting{Exec: 1, Attempt: 1}, domain.LLMRequesting{Exec: 1, Attempt: 2}} {
		p.print(actors.StateChanged{Conv: domain.Conversation{State: st}})
	}
	got := out.String()
	if strings.Contains(got, "Thinking") || !strings.Contains(got, "· Waiting for the model's reply…\n") || !strings.Contains(got, "attempt 2 of 3") {
		t.Fatalf("chat printed %q", got)
	}
}

// TestStartDirOffersTheFolderStartedIn (issue 36): started from a terminal, or by a script
// with its output in a log, the folder it was started in is offered for a new conversation;
// a launcher's home folder or / is not.
func TestStartDirOffersTheFolderStartedIn(t *testing.T) {
	for _, c := range []struct {
		terminal        bool
		cwd, home, want string
	}{
		{true, "/home/ada/src/parser", "/home/ada", "/home/ada/src/parser"},
		{true, "/home/ada", "/home/ada", "/home/ada"},
		{false, "/home/ada/src/parser", "/home/ada", "/home/ada/src/parser"},
		{false, "/home/ada", "/home/ada", ""},
		{false, "/", "/home/ada", ""},
	} {
		if got := startDir(c.terminal, c.cwd, c.home); got != c.want {
			t.Errorf("startDir(%v, %q, %q) = %q, want %q", c.terminal, c.cwd, c.home, got, c.want)
		}
	}
}
