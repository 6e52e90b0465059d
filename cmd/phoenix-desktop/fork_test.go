package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 27: `fork ID MSG` makes a conversation of its own from the first reply, which `chat
// --continue` goes on with, while the source keeps its history.
func TestForkHeadless(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	if code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: the first answer"); code != 0 {
		t.Fatalf("chat: %d\n%s\n%s", code, out, errs)
	}
	_, out, _ := cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list: %s %v", out, err)
	}
	src := list[0].ID
	if code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--continue", src, "echo: the second answer"); code != 0 {
		t.Fatalf("chat --continue: %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := cli(t, "fork", src, "1", "--data-dir", data, "--json")
	var fork domain.Conversation
	if code != 0 || json.Unmarshal([]byte(out), &fork) != nil || fork.ForkedFrom != src || fork.NextSeq != 2 {
		t.Fatalf("fork: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--continue", fork.ID, "echo: only in the fork"); code != 0 {
		t.Fatalf("chat in the fork: %d\n%s\n%s", code, out, errs)
	}
	_, shown, _ := cli(t, "show", fork.ID, "--data-dir", data)
	if !strings.Contains(shown, "the first answer") || strings.Contains(shown, "the second answer") || !strings.Contains(shown, "only in the fork") {
		t.Fatalf("the fork shows:\n%s", shown)
	}
	if _, shown, _ = cli(t, "show", src, "--data-dir", data); strings.Contains(shown, "only in the fork") {
		t.Fatalf("the source shows the fork's turn:\n%s", shown)
	}
	if code, _, errs := cli(t, "fork", src, "x", "--data-dir", data); code == 0 || !strings.Contains(errs, "message number") {
		t.Fatalf("bad MSG: %d %s", code, errs)
	}
}
