package main

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestInterruptedTurnListedAtRestWithRetry leaves a conversation as an app stopped during its
// turn leaves it (the person's message committed, the state "thinking"; issue 25): list shows
// it at rest, show says it was not answered and how to retry, and chat --retry sends the
// message again and gets it answered.
func TestInterruptedTurnListedAtRestWithRetry_REQ_BED_007(t *testing.T) {
	data := t.TempDir()
	var flags commonFlags
	flags.dataDir = data
	store, err := flags.openStore(quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	c, err := domain.NewConversation(domain.NewConversationParams{ID: "stopped", Cwd: t.TempDir(), Model: "demo", LandlockAvailable: true})
	if err == nil {
		c, err = store.Create(c)
	}
	if err != nil {
		t.Fatal(err)
	}
	next, effects, err := domain.Transition(c, domain.UserMessage{Text: "say hello"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.Commit(next, effects[0].(domain.Persist).Messages); err != nil {
		t.Fatal(err)
	}
	store.Close()

	code, out, errs := cli(t, "list", "--data-dir", data)
	if code != 0 || !strings.Contains(out, "stopped") {
		t.Fatalf("list: exit %d\n%s\n%s", code, out, errs)
	}
	if strings.Contains(out, "thinking") || !strings.Contains(out, "ready") {
		t.Fatalf("list shows the stopped turn as running:\n%s", out)
	}
	code, out, errs = cli(t, "show", "stopped", "--data-dir", data)
	if code != 0 {
		t.Fatalf("show: exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"say hello", "Not answered: the app stopped before the reply.", "phoenix-desktop chat --continue stopped --retry"} {
		if !strings.Contains(out, want) {
			t.Fatalf("show lacks %q:\n%s", want, out)
		}
	}

	code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", "stopped", "--retry", "again")
	if code == 0 || !strings.Contains(errs, "--retry needs --continue ID and no message") {
		t.Fatalf("chat --retry with a message: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", "stopped", "--retry")
	if code != 0 {
		t.Fatalf("chat --retry: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = cli(t, "show", "stopped", "--data-dir", data)
	if code != 0 || strings.Count(out, "── You\nsay hello") != 2 || strings.Contains(out, "--retry") {
		t.Fatalf("after the retry, show has the message twice, answered, and no retry hint:\n%s", out)
	}
	code, _, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", "stopped", "--retry")
	if code == 0 || !strings.Contains(errs, "nothing to retry") {
		t.Fatalf("a second retry: exit %d\n%s", code, errs)
	}
}
