package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestRewindKeepsYourFilesAndUndoes is the reported loss, headless, in Project mode: the
// agent's bash adds agent.txt; the person then makes mine.txt and .claude/commands/review.md
// by hand; a later call changes notes.txt; `rewind ID <first checkpoint>` (no --force)
// removed mine.txt and the whole .claude/ folder as plain "removed" lines, asked nothing and
// kept no way back. Now it keeps them ("changed by you"), says so, and `rewind --undo` puts
// the tree back exactly as it was before the rewind; `checkpoints` lists the rewind.
func TestRewindKeepsYourFilesAndUndoes(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	if ok, why := sandbox.ProjectAvailable(); !ok {
		t.Skip("Project mode is not available here: " + why)
	}
	data, cwd := t.TempDir(), t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(cwd, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(cwd, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	write("notes.txt", "n1\n")
	code, out, errs := cli(t, "chat", "--demo", "--mode=project", "--data-dir", data, "--cwd", cwd, "bash: echo a > agent.txt")
	if code != 0 || read("agent.txt") != "a\n" {
		t.Fatalf("the first turn: exit %d, agent.txt %q\n%s\n%s", code, read("agent.txt"), out, errs)
	}
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID
	write("mine.txt", "mine\n")
	write(".claude/commands/review.md", "review\n")
	if code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "bash: echo n2 > notes.txt"); code != 0 || read("notes.txt") != "n2\n" {
		t.Fatalf("the second turn: exit %d, notes.txt %q\n%s\n%s", code, read("notes.txt"), out, errs)
	}
	var cps []actors.Checkpoint
	code, out, _ = cli(t, "checkpoints", id, "--data-dir", data, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &cps) != nil || len(cps) != 2 {
		t.Fatalf("checkpoints: %d %s", code, out)
	}

	code, out, errs = cli(t, "rewind", id, strconv.FormatUint(uint64(cps[0].ID), 10), "--data-dir", data)
	if code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", code, out, errs)
	}
	if read("agent.txt") != "<missing>" || read("notes.txt") != "n1\n" {
		t.Fatalf("the rewind left agent.txt %q, notes.txt %q\n%s", read("agent.txt"), read("notes.txt"), out)
	}
	if read("mine.txt") != "mine\n" || read(".claude/commands/review.md") != "review\n" {
		t.Fatalf("the rewind removed the person's files:\n%s", out)
	}
	for _, want := range []string{"removed   agent.txt", "reverted  notes.txt", "changed by you", "kept      mine.txt", "kept      .claude/commands/review.md", "rewind --undo " + id} {
		if !strings.Contains(out, want) {
			t.Errorf("the rewind's report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "removed   mine.txt") || strings.Contains(out, "removed   .claude") {
		t.Errorf("the report names the person's files as removed:\n%s", out)
	}
	code, out, _ = cli(t, "checkpoints", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "rewind to before checkpoint "+strconv.FormatUint(uint64(cps[0].ID), 10)) || !strings.Contains(out, ".claude/commands/review.md, mine.txt") {
		t.Errorf("checkpoints does not list the rewind:\n%s", out)
	}

	// --force overwrites them; rewind --undo takes that back too: nothing is lost.
	code, out, errs = cli(t, "rewind", id, "--undo", "--data-dir", data)
	if code != 0 || read("agent.txt") != "a\n" || read("notes.txt") != "n2\n" {
		t.Fatalf("rewind --undo: exit %d, agent.txt %q, notes.txt %q\n%s\n%s", code, read("agent.txt"), read("notes.txt"), out, errs)
	}
	code, out, errs = cli(t, "rewind", id, strconv.FormatUint(uint64(cps[0].ID), 10), "--force", "--data-dir", data)
	if code != 0 || read("mine.txt") != "<missing>" || read(".claude/commands/review.md") != "<missing>" {
		t.Fatalf("rewind --force: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cli(t, "rewind", "--undo", id, "--data-dir", data)
	if code != 0 {
		t.Fatalf("rewind --undo after --force: exit %d\n%s\n%s", code, out, errs)
	}
	for name, want := range map[string]string{"agent.txt": "a\n", "notes.txt": "n2\n", "mine.txt": "mine\n", ".claude/commands/review.md": "review\n"} {
		if got := read(name); got != want {
			t.Errorf("after rewind --undo, %s = %q, want %q", name, got, want)
		}
	}
	if code, out, errs = cli(t, "rewind", "--undo", id, "R9", "--data-dir", data); code == 0 || !strings.Contains(errs, "no restore 9") {
		t.Errorf("rewind --undo of a restore that does not exist: exit %d\n%s%s", code, out, errs)
	}
}
