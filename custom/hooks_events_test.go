package custom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hooksFixture copies a project whose .claude/settings.json has a hook for every event Claude
// Code documents that Phoenix Desktop runs, each logging its input to hook-log.jsonl.
func hooksFixture(t *testing.T) (dir string, h *Hooks) {
	t.Helper()
	dir = t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/claude-hooks")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, ".claude/hooks/log.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	h = OpenHooks(t.TempDir())
	p := h.Project(dir)
	if len(p.Notices) != 0 {
		t.Fatalf("a Claude Code settings file with every event is not read whole: %v", p.Notices)
	}
	if err := h.AllowProject(dir, p.Fingerprint); err != nil {
		t.Fatal(err)
	}
	return dir, h
}

func loggedEvents(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "hook-log.jsonl"))
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a hook's input is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// Issue 38: every event of a real-shaped .claude/settings.json runs, matched and answered as
// Claude Code documents.
func TestClaudeSettingsWithEveryEvent(t *testing.T) {
	dir, h := hooksFixture(t)
	run := PersonRunner{Dir: dir, Env: Env(nil, dir)}
	rs := Runners{Walled: run}
	ctx := context.Background()

	// SessionStart: the plain output of the "startup" group is context; the "resume"
	// group answers in JSON with hookSpecificOutput.additionalContext.
	if out := h.Run(ctx, Input{Cwd: dir, HookEventName: SessionStart, Source: "startup"}, rs); out.Context != "Project rule: run make check before committing." {
		t.Errorf("SessionStart startup: %+v", out)
	}
	if out := h.Run(ctx, Input{Cwd: dir, HookEventName: SessionStart, Source: "resume"}, rs); out.Context != "Resumed: the branch is feature/x." || len(out.Results) != 1 {
		t.Errorf("SessionStart resume: %+v", out)
	}
	// A patch that creates a file is Write to a hook, one that changes it Edit; file_path is
	// the caller's (absolute).
	patch := func(ev Event, aliases ...string) Input {
		raw, _ := json.Marshal(map[string]string{"path": "a.txt", "file_path": filepath.Join(dir, "a.txt")})
		return Input{Cwd: dir, HookEventName: ev, ToolName: "patch", ToolAliases: aliases, ToolInput: raw}
	}
	h.Run(ctx, patch(PreToolUse, "Write", "Edit", "MultiEdit", "apply_patch"), rs)
	h.Run(ctx, patch(PostToolUse, "Edit", "Write", "MultiEdit", "apply_patch"), rs)
	// A failed bash call: PostToolUseFailure, whose additionalContext reaches the model.
	failed := Input{Cwd: dir, HookEventName: PostToolUseFailure, ToolName: "bash", ToolAliases: []string{"Bash", "shell"}, Error: "exit status 2"}
	if out := h.Run(ctx, failed, rs); out.Context != "Run make deps before the tests." {
		t.Errorf("PostToolUseFailure: %+v", out)
	}
	// PreCompact's matcher is the trigger: "auto" runs, "manual" does not.
	if out := h.Run(ctx, Input{Cwd: dir, HookEventName: PreCompact, Trigger: "manual"}, rs); out.Ran() {
		t.Errorf("a PreCompact hook for auto ran for manual: %+v", out)
	}
	f := false
	for _, in := range []Input{
		{Cwd: dir, HookEventName: PreCompact, Trigger: "auto"},
		{Cwd: dir, HookEventName: SubagentStop, StopHookActive: &f},
		{Cwd: dir, HookEventName: SessionEnd, Reason: "other"},
	} {
		if out := h.Run(ctx, in, rs); !out.Ran() || out.Results[0].Exit != 0 {
			t.Errorf("%s: %+v", in.HookEventName, out)
		}
	}
	got := loggedEvents(t, dir)
	want := []string{"SessionStart startup", "SessionStart resume", "PreToolUse Write", "PostToolUse Edit",
		"PostToolUseFailure Bash", "PreCompact auto", "SubagentStop ", "SessionEnd other"}
	if len(got) != len(want) {
		t.Fatalf("logged %d events, want %d: %v", len(got), len(want), got)
	}
	for i, m := range got {
		detail, _ := m["tool_name"].(string)
		for _, k := range []string{"source", "trigger", "reason"} {
			if v, ok := m[k].(string); ok {
				detail = v
			}
		}
		if s := m["hook_event_name"].(string) + " " + detail; s != want[i] {
			t.Errorf("event %d: %q, want %q (%v)", i, s, want[i], m)
		}
	}
	if ti, _ := got[2]["tool_input"].(map[string]any); ti["file_path"] != filepath.Join(dir, "a.txt") {
		t.Errorf("file_path = %v", got[2]["tool_input"])
	}
	if got[4]["error"] != "exit status 2" {
		t.Errorf("PostToolUseFailure input: %v", got[4])
	}
}
