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
	"github.com/phoenix-desktop/phoenix/domain"
)

// TestHeadlessProjectCommands: instructions, checkpoints, rewind, queue and the model switch
// from the command line, on the offline demo model.
func TestHeadlessProjectCommands(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	data, cwd := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte("Be brief."), 0o644))
	must(os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("v1\n"), 0o644))

	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd, `patch: a.txt <<< v2\n`)
	if code != 0 || !strings.Contains(out, "Instructions: AGENTS.md") {
		t.Fatalf("chat: exit %d\n%s\n%s", code, out, errs)
	}
	id := strings.Fields(out)[1]

	code, out, errs = cli(t, "checkpoints", id, "--data-dir", data, "--json")
	var cps []actors.Checkpoint
	if code != 0 || json.Unmarshal([]byte(out), &cps) != nil || len(cps) != 1 || len(cps[0].Files) != 1 || cps[0].Files[0].Path != "a.txt" {
		t.Fatalf("checkpoints --json: %d %s %s", code, out, errs)
	}
	code, out, _ = cli(t, "checkpoints", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "a.txt (modified)") {
		t.Fatalf("checkpoints: %d\n%s", code, out)
	}

	// A change by the person after the checkpoint is not overwritten without --force.
	must(os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("mine\n"), 0o644))
	ck := strconv.FormatUint(uint64(cps[0].ID), 10)
	code, _, errs = cli(t, "rewind", id, ck, "--data-dir", data)
	if code != 1 || !strings.Contains(errs, "a.txt") || !strings.Contains(errs, "--force") {
		t.Fatalf("rewind over a person's change: %d %s", code, errs)
	}
	code, out, errs = cli(t, "rewind", id, ck, "--data-dir", data, "--force")
	if code != 0 || !strings.Contains(out, "reverted  a.txt") {
		t.Fatalf("rewind --force: %d\n%s\n%s", code, out, errs)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(b) != "v1\n" {
		t.Fatalf("a.txt = %q after rewind", b)
	}

	// --continue with --model switches the model, persisted, with a notice in the history.
	code, _, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "--model", "gpt-4o", "echo: hi")
	if code != 0 || !strings.Contains(errs, "switched to gpt-4o") {
		t.Fatalf("chat --model: %d %s", code, errs)
	}
	code, out, _ = cli(t, "show", id, "--data-dir", data, "--json")
	var shown struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &shown) != nil || shown.Conversation.Model != "gpt-4o" {
		t.Fatalf("show after switch: %d %s", code, out)
	}
	var notices []string
	for _, m := range shown.Messages {
		if m.Kind == domain.KindSystem {
			notices = append(notices, m.Text)
		}
	}
	if len(notices) != 2 || !strings.Contains(notices[0], "rewound") || notices[1] != domain.ModelChangedText(domain.DemoModel, "gpt-4o") {
		t.Fatalf("system notices = %q", notices)
	}

	code, out, _ = cli(t, "queue", id, "--data-dir", data)
	if code != 0 || !strings.Contains(out, "No queued messages") {
		t.Fatalf("queue: %d %s", code, out)
	}

	// --no-instructions.
	code, out, _ = cli(t, "chat", "--demo", "--no-instructions", "--data-dir", data, "--cwd", cwd, "echo: plain")
	if code != 0 || strings.Contains(out, "Instructions:") {
		t.Fatalf("--no-instructions: %d\n%s", code, out)
	}
}
