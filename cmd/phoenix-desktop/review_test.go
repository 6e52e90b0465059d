package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/review"
)

// TestChangesAndRevertHeadless: a demo turn rewrites a file in two places; `changes --json`
// lists it with two numbered hunks, the text form shows them with their numbers, `revert
// --hunk 1` takes back the first only, and `rewind --undo` takes the revert back.
func TestChangesAndRevertHeadless(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	data, cwd := t.TempDir(), t.TempDir()
	path := filepath.Join(cwd, "f.txt")
	file := func(change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= 30; i++ {
			if c, ok := change[i]; ok {
				b.WriteString(c + "\n")
				continue
			}
			fmt.Fprintf(&b, "line %d\n", i)
		}
		return b.String()
	}
	if err := os.WriteFile(path, []byte(file(nil)), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := file(map[int]string{3: "three by the agent", 25: "twenty-five by the agent"})
	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd, "patch: f.txt <<< "+strings.ReplaceAll(agent, "\n", `\n`))
	if code != 0 {
		t.Fatalf("chat: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID

	code, out, errs = cli(t, "changes", id, "--turn", "last", "--json", "--data-dir", data)
	var ch review.Changes
	if code != 0 || json.Unmarshal([]byte(out), &ch) != nil {
		t.Fatalf("changes --json: exit %d\n%s\n%s", code, out, errs)
	}
	if ch.Scope != review.Turn || len(ch.Files) != 1 || ch.Files[0].Path != "f.txt" || len(ch.Files[0].Hunks) != 2 ||
		ch.Files[0].Hunks[0].N != 1 || ch.Files[0].Hunks[1].N != 2 {
		t.Fatalf("changes --json: %s", out)
	}
	code, out, _ = cli(t, "changes", id, "--data-dir", data)
	for _, want := range []string{"modified f.txt  +2 −2", "hunk 1  @@ -1,6 +1,6 @@", "hunk 2  @@", "+three by the agent", "-line 25"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("changes: exit %d, no %q in\n%s", code, want, out)
		}
	}
	if code, _, errs = cli(t, "changes", id, "--turn", "2", "--uncommitted", "--data-dir", data); code == 0 || !strings.Contains(errs, "not both") {
		t.Fatalf("--turn with --uncommitted: exit %d, %s", code, errs)
	}

	code, out, errs = cli(t, "revert", id, "--file", "f.txt", "--hunk", "1", "--data-dir", data)
	if code != 0 || !strings.Contains(out, "Reverted hunk 1 of f.txt") {
		t.Fatalf("revert: exit %d\n%s\n%s", code, out, errs)
	}
	if got, want := readText(t, path), file(map[int]string{25: "twenty-five by the agent"}); got != want {
		t.Fatalf("after revert --hunk 1:\n%s\nwant\n%s", got, want)
	}
	if code, _, errs = cli(t, "revert", id, "--file", "f.txt", "--hunk", "2", "--data-dir", data); code != 1 || !strings.Contains(errs, "1 hunk") {
		t.Fatalf("a hunk that is no more: exit %d, %s", code, errs)
	}
	code, out, errs = cli(t, "rewind", "--undo", id, "--data-dir", data)
	if code != 0 || readText(t, path) != agent {
		t.Fatalf("rewind --undo of the revert: exit %d, f.txt\n%s\n%s\n%s", code, readText(t, path), out, errs)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
