package custom

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Uses names what a hook's command runs that the agent could change (issue 42).
func TestUsesNamesWhatAHookRuns(t *testing.T) {
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "package.json"), []byte(`{"scripts":{"fmt":"./scripts/fmt.sh --all"}}`), 0o644)
	p := func(rel string) string { return filepath.Join(cwd, rel) }
	for _, tc := range []struct {
		command string
		want    []string
	}{
		{"./post.sh", []string{p("post.sh")}},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh`, []string{p(".claude/hooks/check.sh")}},
		{"timeout 5 bash scripts/lint.sh --fix", []string{p("scripts/lint.sh")}},
		{"FOO=1 python3 -u tools/fmt.py", []string{p("tools/fmt.py")}},
		{"npx prettier --write .", []string{p(".npmrc"), p("node_modules/.bin"), p("node_modules/prettier"), p("package.json")}},
		{"npm run fmt", []string{p(".npmrc"), p("node_modules/.bin"), p("node_modules/fmt"), p("package.json"), p("scripts/fmt.sh")}},
		{"make fmt", []string{p("GNUmakefile"), p("Makefile"), p("makefile")}},
		{"go run ./cmd/fmt", []string{p("cmd/fmt"), p("go.mod"), p("go.sum"), p("go.work")}},
		{"gofmt -w . && echo done", nil},
		{"jq -r .tool_input.file_path | xargs prettier --write", nil},
	} {
		if got := Uses(tc.command, cwd); !slices.Equal(got, tc.want) {
			t.Errorf("Uses(%q) = %v; want %v", tc.command, got, tc.want)
		}
	}
}

// A baseline taken before the agent's first write: unchanged files pass, a changed one is
// named, a file not recorded (a hook added later) is refused, and before any write nothing is.
func TestBaselineRefusesWhatChangedAfterTheFirstWrite(t *testing.T) {
	cwd := t.TempDir()
	os.WriteFile(filepath.Join(cwd, "post.sh"), []byte("echo ok"), 0o755)
	cfg, _, err := ParseConfig([]byte(`{"hooks":{"PostToolUse":[{"hooks":[{"command":"./post.sh","runAsMe":true},{"command":"./walled.sh"}]}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	var b Baseline
	if err := b.Check("./anything.sh", cwd); err != nil {
		t.Fatalf("before any write: %v", err)
	}
	if !b.BeforeWrite(cfg, cwd) || b.BeforeWrite(cfg, cwd) {
		t.Fatal("the baseline is taken once, at the first write")
	}
	if _, ok := b.Files[filepath.Join(cwd, "walled.sh")]; ok {
		t.Error("a walled hook's files were recorded")
	}
	if err := b.Check("./post.sh", cwd); err != nil {
		t.Fatalf("unchanged: %v", err)
	}
	os.WriteFile(filepath.Join(cwd, "post.sh"), []byte("echo owned"), 0o755)
	if err := b.Check("./post.sh", cwd); err == nil || !strings.Contains(err.Error(), filepath.Join(cwd, "post.sh")) {
		t.Errorf("changed: %v", err)
	}
	if err := b.Check("./later.sh", cwd); err == nil || !strings.Contains(err.Error(), "cannot tell") {
		t.Errorf("not recorded: %v", err)
	}
}

// A project cannot let its own hooks out of the walls.
func TestProjectHooksCannotRunAsMe(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".phoenix"), 0o755)
	os.WriteFile(filepath.Join(dir, ".phoenix/hooks.json"), []byte(`{"hooks":{"Stop":[{"hooks":[{"command":"./x.sh","runAsMe":true}]}]}}`), 0o644)
	p := OpenHooks(t.TempDir()).Project(dir)
	if p.Config.Hooks[Stop][0].Hooks[0].RunAsMe {
		t.Error("a project hook kept runAsMe")
	}
	if len(p.Notices) != 1 || !strings.Contains(p.Notices[0], `"runAsMe" is ignored`) {
		t.Errorf("notices %v", p.Notices)
	}
}

// Settings → Hooks' switch writes runAsMe into the person's file, and takes it out again.
func TestSetRunAsMe(t *testing.T) {
	text := `{"hooks":{"post_tool_use":[{"matcher":"Edit","hooks":[{"command":"npx prettier --write .","timeout":30}]}],
	  "Stop":[{"command":"npx prettier --write ."}]},"other":1}`
	on, err := SetRunAsMe(text, PostToolUse, "npx prettier --write .", true)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := ParseConfig([]byte(on))
	if err != nil || !cfg.Hooks[PostToolUse][0].Hooks[0].RunAsMe || cfg.Hooks[Stop][0].Hooks[0].RunAsMe {
		t.Fatalf("on: %s (%v)", on, err)
	}
	if !strings.Contains(on, `"other": 1`) || !strings.Contains(on, `"timeout": 30`) {
		t.Errorf("the rest of the file was lost: %s", on)
	}
	off, err := SetRunAsMe(on, PostToolUse, "npx prettier --write .", false)
	if err != nil || strings.Contains(off, "runAsMe") {
		t.Errorf("off: %s (%v)", off, err)
	}
	if _, err := SetRunAsMe(text, PreToolUse, "npx prettier --write .", true); err == nil {
		t.Error("a hook that is not there was switched")
	}
}

// A relative PATH entry finds a bare program in the project: it counts as the project's.
func TestUsesWithARelativePathEntry(t *testing.T) {
	cwd := t.TempDir()
	t.Setenv("PATH", "node_modules/.bin:"+os.Getenv("PATH"))
	if got := Uses("prettier --write .", cwd); !slices.Equal(got, []string{filepath.Join(cwd, "node_modules/.bin/prettier")}) {
		t.Errorf("Uses = %v", got)
	}
}

// A folder past the fingerprint's budget is never taken as unchanged.
func TestBaselineRefusesAFolderTooLargeToCheck(t *testing.T) {
	defer func(n int) { fingerprintBudget = n }(fingerprintBudget)
	fingerprintBudget = 5
	cwd := t.TempDir()
	os.MkdirAll(filepath.Join(cwd, "node_modules/.bin"), 0o755)
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		os.WriteFile(filepath.Join(cwd, "node_modules/.bin", n), []byte(n), 0o755)
	}
	cfg, _, _ := ParseConfig([]byte(`{"hooks":{"Stop":[{"hooks":[{"command":"npx fmt","runAsMe":true}]}]}}`))
	var b Baseline
	b.BeforeWrite(cfg, cwd)
	if err := b.Check("npx fmt", cwd); err == nil || !strings.Contains(err.Error(), "too many to check") {
		t.Errorf("Check = %v", err)
	}
}
