package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 38: a headless run with a Claude Code settings file that has a hook for every event
// (custom/testdata/claude-hooks): each event runs, in the author's vocabulary, and what the
// SessionStart and PostToolUseFailure hooks add reaches the model.
func TestChatRunsEveryHookEvent(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	if err := os.CopyFS(cwd, os.DirFS("../../custom/testdata/claude-hooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(cwd, ".claude/hooks/log.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := cli(t, "hooks", "allow", "--cwd", cwd); code != 0 {
		t.Fatalf("hooks allow: %s %s", out, errs)
	}
	prompt := "patch: notes.txt <<< hello\npatch: notes.txt ::: hello ==> bye\nbash: exit 3\nagents: echo: sub-agent done\nusage: 95000\necho: wrapping up"
	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--cwd", cwd, prompt)
	if code != 3 { // the usage reaches the continuation threshold: exhausted after the summary
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"[Added by a hook at the start of the session]\nProject rule: run make check before committing.",
		"[Added by a hook]", "Run make deps before the tests."} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(cwd, "hook-log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]any{}
	var order []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a hook's input is not JSON: %q", line)
		}
		key := m["hook_event_name"].(string)
		if tn, ok := m["tool_name"].(string); ok {
			key += " " + tn
		}
		if _, dup := seen[key]; !dup {
			order = append(order, key)
		}
		seen[key] = m
	}
	for _, want := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse Write", "PostToolUse Write",
		"PreToolUse Edit", "PostToolUse Edit", "PostToolUseFailure Bash", "SubagentStop", "PreCompact", "Stop", "SessionEnd"} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no %s hook ran; ran: %v", want, order)
		}
	}
	if m := seen["SessionStart"]; m != nil && m["source"] != "startup" {
		t.Errorf("SessionStart input: %v", m)
	}
	if m := seen["PreToolUse Write"]; m != nil {
		if ti, _ := m["tool_input"].(map[string]any); ti["file_path"] != filepath.Join(cwd, "notes.txt") {
			t.Errorf("file_path is not absolute: %v", m["tool_input"])
		}
	}
	if m := seen["PreCompact"]; m != nil && m["trigger"] != "auto" {
		t.Errorf("PreCompact input: %v", m)
	}
	if m := seen["SessionEnd"]; m != nil && m["reason"] != "other" {
		t.Errorf("SessionEnd input: %v", m)
	}
}

// Issue 42: `phoenix-desktop hooks` says under which walls each hook runs.
func TestHooksListShowsTheWalls(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	writeTestFile(t, filepath.Join(cfg, "phoenix-desktop", "hooks.json"),
		`{"hooks":{"PostToolUse":[{"matcher":"Edit|Write","hooks":[{"command":"npx prettier --write .","runAsMe":true},{"command":"./post.sh"}]}]}}`, 0o644)
	code, out, errs := cli(t, "hooks", "--cwd", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	for _, want := range []string{"npx prettier --write .  runs as you, outside the walls; refused once the agent changed what it runs",
		"./post.sh               runs under the conversation's walls"} {
		if !strings.Contains(out, want) {
			t.Errorf("hooks lacks %q:\n%s", want, out)
		}
	}
}
