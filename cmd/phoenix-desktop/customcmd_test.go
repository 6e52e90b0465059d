package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTestFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// A Claude Code command runs headless as written: chat "/name args".
func TestChatRunsAClaudeCodeCommand(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(cwd, ".claude/commands/greet.md"),
		"---\ndescription: Greet someone\nargument-hint: [name]\n---\necho: Hello $1, welcome to $ARGUMENTS\n", 0o644)
	writeTestFile(t, filepath.Join(cwd, ".claude/skills/release/SKILL.md"),
		"---\nname: release\ndescription: Cut a release\n---\nsteps\n", 0o644)
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "/greet Ada")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"Command: /greet (project .claude/commands)", "Skills: release", "Hello Ada, welcome to Ada"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	// A mistyped command is refused before a conversation exists.
	code, _, errs = cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "/gret Ada")
	if code == 0 || !strings.Contains(errs, "/gret is not a command (there are /greet)") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, out, _ = cli(t, "list", "--data-dir", data)
	if code != 0 || strings.Count(out, "\n") > 2 {
		t.Errorf("a refused command left a conversation:\n%s", out)
	}
	// A command that names a model the provider (here the demo) does not offer runs on the
	// conversation's, and says so (issue 38).
	writeTestFile(t, filepath.Join(cwd, ".claude/commands/fast.md"),
		"---\ndescription: Answer quickly\nmodel: gpt-4o-mini\n---\necho: quick $ARGUMENTS\n", 0o644)
	code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "/fast one")
	if code != 0 || !strings.Contains(out, "! /fast asks for the model gpt-4o-mini, but this provider offers no model by that name, nor one certainly the same under another name, so its turn runs on the conversation's model, Demo (offline).") ||
		!strings.Contains(out, "quick one") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = cli(t, "commands", "--cwd", cwd)
	if code != 0 || !strings.Contains(out, "/greet [name]") || !strings.Contains(out, "release") {
		t.Errorf("commands:\n%s", out)
	}
}

// Project hooks do not run until `hooks allow`; then a refusing PreToolUse hook stops rm and
// the transcript shows why.
func TestChatProjectHookRunsOnlyAfterAllow(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	writeTestFile(t, filepath.Join(cwd, ".claude/hooks/no-rm.sh"),
		"#!/bin/bash\nif grep -q '\"command\":\"rm '; then echo 'no rm here' >&2; exit 2; fi\n", 0o755)
	writeTestFile(t, filepath.Join(cwd, ".claude/settings.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/no-rm.sh"}]}]}}`, 0o644)
	writeTestFile(t, filepath.Join(cwd, "keep.txt"), "x", 0o644)
	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd, "bash: rm keep.txt")
	if code != 0 || !strings.Contains(errs, "do not run until you allow them") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(cwd, "keep.txt")); err == nil {
		t.Fatal("rm did not run although the hook was not allowed (was the hook run?)")
	}
	writeTestFile(t, filepath.Join(cwd, "keep.txt"), "x", 0o644)
	code, out, _ = cli(t, "hooks", "--cwd", cwd)
	if code != 0 || !strings.Contains(out, "not allowed: they do not run") || !strings.Contains(out, "no-rm.sh") {
		t.Fatalf("hooks:\n%s", out)
	}
	if code, out, errs = cli(t, "hooks", "allow", "--cwd", cwd); code != 0 {
		t.Fatalf("hooks allow: %s %s", out, errs)
	}
	code, out, errs = cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd, "bash: rm keep.txt")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(cwd, "keep.txt")); err != nil {
		t.Fatal("the allowed hook did not stop rm")
	}
	if !strings.Contains(out, "↪ PreToolUse project hook") || !strings.Contains(out, "refused: no rm here") {
		t.Errorf("the hook's refusal is not in the transcript:\n%s", out)
	}
}
