package main

import (
	"encoding/json"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Issue 33: after a fork, `spent` counts each reply once, in the conversation that made it: its
// total is the sum of the conversations' own "spent" (list --json), in Settings' words, with
// --today as without (every reply here is today's).
func TestSpentCountsEachReplyOnceAfterAFork(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	src := convIDOf(t, mustCLI(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: the first answer"))
	mustCLI(t, "chat", "--demo", "--data-dir", data, "--continue", src, "echo: the second answer")
	var fork domain.Conversation
	if err := json.Unmarshal([]byte(mustCLI(t, "fork", src, "3", "--data-dir", data, "--json")), &fork); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "chat", "--demo", "--data-dir", data, "--continue", fork.ID, "echo: only in the fork")

	var list []struct{ Spent domain.Spend }
	if err := json.Unmarshal([]byte(mustCLI(t, "list", "--data-dir", data, "--json")), &list); err != nil {
		t.Fatal(err)
	}
	var want domain.Spend
	for _, s := range list {
		want = want.Plus(s.Spent)
	}
	if want.Responses != 3 {
		t.Fatalf("test premise: the conversations' own totals count %d replies, want 3", want.Responses)
	}
	for _, today := range []bool{false, true} {
		args := []string{"spent", "--data-dir", data}
		if today {
			args = append(args, "--today")
		}
		if got := mustCLI(t, args...); got != transcript.SpendLine(want)+"\n" {
			t.Errorf("%v printed %q; want %q", args, got, transcript.SpendLine(want))
		}
		var got spentJSON
		if err := json.Unmarshal([]byte(mustCLI(t, append(args, "--json")...)), &got); err != nil || got.Spent != want || (got.Since != nil) != today {
			t.Errorf("%v --json: %+v, %v; want %+v", args, got, err, want)
		}
	}
}

// mustCLI runs a command that must succeed and returns its standard output.
func mustCLI(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := cli(t, args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s\n%s", args, code, out, errs)
	}
	return out
}
