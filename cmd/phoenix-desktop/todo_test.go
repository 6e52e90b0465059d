package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTodoListSurvivesARestartInShowAndExport_REQ_BED_007: the model's task list is kept with
// the conversation: a later run of the app (another chat, then show and export, each opening
// the store afresh) finds it as the last good todo call left it; a call the tool refused
// changes nothing. Each reply's tokens and cost are printed under it (issue 27).
func TestTodoListSurvivesARestartInShowAndExport_REQ_BED_007(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	prompt := "todo: [>] read the code | [ ] fix the bug\nbash: ls\ntodo: [x] read the code | [>] fix the bug | run the tests\n"
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "todo 1 of 3 done · now: fix the bug") {
		t.Fatalf("chat does not show the todo call:\n%s", out)
	}
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID
	refused := `todo: {"todos":[{"content":"fix the bug","status":"completed"}]}`
	if code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, refused); code != 0 ||
		!strings.Contains(out, `The task list was not changed: item 1 has status "completed"`) {
		t.Fatalf("chat --continue with a bad list: %d\n%s\n%s", code, out, errs)
	}

	code, out, _ = cli(t, "show", id, "--data-dir", data)
	want := "tasks: 1 of 3 done · now: fix the bug\n  ✓ read the code\n  ▸ fix the bug\n  ○ run the tests\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("show lacks the list %q:\n%s", want, out)
	}
	usage := 0
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  · ") && strings.Contains(line, " in") && strings.Contains(line, " out · $") {
			usage++
		}
	}
	if usage != 6 {
		t.Fatalf("show has %d usage lines; want one per reply (6), with tokens and cost:\n%s", usage, out)
	}
	code, out, _ = cli(t, "export", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "## Task list (1 of 3 done · now: fix the bug)\n\n- [x] read the code\n- [ ] **fix the bug** (in progress)\n- [ ] run the tests\n") {
		t.Fatalf("export lacks the list:\n%s", out)
	}
}
