package custom

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture copies the tree written for other agents (testdata/claude-project) into a fresh
// repository, so that nothing above it is read.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/claude-project")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// CopyFS keeps no modes: the hook script must stay executable, as it is in the tree.
	if err := os.Chmod(filepath.Join(dir, ".claude/hooks/no-rm.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCommandsFromOtherAgentsWorkUnchanged(t *testing.T) {
	dir := fixture(t)
	s := Load(dir, nil)
	names := map[string]Command{}
	for _, c := range s.Commands {
		names[c.Name] = c
	}
	for _, want := range []string{"review", "fix-issue", "component", "explain", "test"} {
		if _, ok := names[want]; !ok {
			t.Errorf("command /%s was not found; found %v (notices %v)", want, keys(names), s.Notices)
		}
	}
	r := names["review"]
	if r.Description != "Review a pull request: correctness first, then style" || r.ArgumentHint != "[pr-number] [priority]" || r.Model != "claude-3-5-haiku-20241022" {
		t.Errorf("review's front matter was read as %+v", r)
	}
	if c := names["component"]; c.Label != "project .claude/commands (frontend)" || c.Description == "" {
		t.Errorf("a command in a sub-folder: %+v", c)
	}
	if got := names["fix-issue"].Description; got != "Fix issue $ARGUMENTS following our coding standards." {
		t.Errorf("a command without front matter is described by its first line; got %q", got)
	}
	cases := []struct{ in, want string }{
		{"/review 456 high", "Review pull request #456 with priority high."},
		{"/fix-issue 123 \"with care\"", "Fix issue 123 \"with care\" following"},
		{"/explain func main() {}", "Explain this code in plain words: func main() {}"},
		{"/test now please", "ARGUMENTS: now please"},
	}
	for _, c := range cases {
		got, _, ok := s.Expand(c.in)
		if !ok || !strings.Contains(got, c.want) {
			t.Errorf("Expand(%q) = %q, %v; want it to contain %q", c.in, got, ok, c.want)
		}
	}
	for _, notCmd := range []string{"/tmp/x is full", "/nosuch thing", "review this", ""} {
		if _, _, ok := s.Expand(notCmd); ok {
			t.Errorf("%q was taken for a command", notCmd)
		}
	}
	if got := s.Complete("re"); len(got) != 1 || got[0].Name != "review" {
		t.Errorf("Complete(re) = %v", got)
	}
}

func keys(m map[string]Command) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestSkillsFromOtherAgentsListedInPrompt(t *testing.T) {
	dir := fixture(t)
	s := Load(dir, nil)
	if len(s.Skills) != 1 || s.Skills[0].Name != "pdf-forms" {
		t.Fatalf("skills = %+v (notices %v)", s.Skills, s.Notices)
	}
	p := s.SkillsPrompt()
	for _, want := range []string{"# Skills", "- pdf-forms: Fill in PDF forms", filepath.Join(dir, ".claude/skills/pdf-forms/SKILL.md")} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "scripts/fill.py") {
		t.Error("a skill's body went into the prompt; only its name and description belong there")
	}
	found := false
	for _, n := range s.Notices {
		found = found || strings.Contains(n, "nodesc") && strings.Contains(n, "no description")
	}
	if !found {
		t.Errorf("a skill without a description is skipped with a notice; notices %v", s.Notices)
	}
}

func TestSkillsPromptIsCapped(t *testing.T) {
	var s Set
	for i := range 200 {
		s.Skills = append(s.Skills, Skill{Name: "s", Description: strings.Repeat("d", 200), Path: "/p/" + string(rune('a'+i%26))})
	}
	p := s.SkillsPrompt()
	head := strings.Index(p, "- s:")
	if body := len(p) - head; body > MaxSkillsPromptBytes+200 {
		t.Errorf("the skills list is %d bytes, over the %d cap", body, MaxSkillsPromptBytes)
	}
	if !strings.Contains(p, "more skills were left out") {
		t.Error("the prompt does not say skills were left out")
	}
}

func TestNearestAndProjectWin(t *testing.T) {
	dir := fixture(t)
	personal := t.TempDir()
	os.MkdirAll(filepath.Join(personal, "commands"), 0o755)
	os.WriteFile(filepath.Join(personal, "commands", "review.md"), []byte("personal review"), 0o644)
	os.WriteFile(filepath.Join(personal, "commands", "mine.md"), []byte("---\ndescription: mine\n---\nmine $1"), 0o644)
	s := Load(dir, []string{personal})
	r, _ := s.Command("review")
	if !strings.Contains(r.Body, "pull request") {
		t.Errorf("the project's /review should win over the person's; got %q", r.Body)
	}
	m, ok := s.Command("mine")
	if !ok || m.Label != "personal "+filepath.Join(personal, "commands") && !strings.HasPrefix(m.Label, "personal ") {
		t.Errorf("personal command: %+v %v", m, ok)
	}
}

func TestFrontMatterThatIsNotStrictYAML(t *testing.T) {
	meta, body := splitFrontMatter("---\ndescription: Deploy: staging first\nmodel: x\n---\nbody\n")
	if meta["description"] != "Deploy: staging first" || meta["model"] != "x" || body != "body\n" {
		t.Errorf("meta %v body %q", meta, body)
	}
	meta, body = splitFrontMatter("---\nnot closed\n")
	if len(meta) != 0 || body != "---\nnot closed\n" {
		t.Errorf("unclosed front matter: %v %q", meta, body)
	}
}

// --- hooks ---------------------------------------------------------------------------------

func bashInput(cwd, command string) Input {
	raw, _ := json.Marshal(map[string]any{"command": command})
	return Input{SessionID: "c1", Cwd: cwd, HookEventName: PreToolUse, ToolName: "bash", ToolInput: raw, ToolAliases: []string{"Bash"}}
}

func writePersonHooks(t *testing.T, cfgDir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(cfgDir, PersonHooksFile), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestHookRefusesRmWithAReason(t *testing.T) {
	dir, cfgDir := fixture(t), t.TempDir()
	h := OpenHooks(cfgDir)
	// The project's Claude Code hook, once allowed, runs as written.
	p := h.Project(dir)
	if len(p.Files) != 1 || p.Files[0] != ".claude/settings.json" || p.Allowed {
		t.Fatalf("project hooks = %+v", p)
	}
	if err := h.AllowProject(dir, p.Fingerprint); err != nil {
		t.Fatal(err)
	}
	run := PersonRunner{Dir: dir, Env: Env(nil, dir)}
	out := h.Run(context.Background(), bashInput(dir, "rm -rf build"), Runners{Walled: run})
	if !out.Blocked || !strings.Contains(out.Reason, "rm is not allowed in this project") {
		t.Fatalf("the rm call was not refused: %+v", out)
	}
	if line := out.Results[0].Line(); !strings.Contains(line, "refused: rm is not allowed") {
		t.Errorf("the transcript line: %q", line)
	}
	out = h.Run(context.Background(), bashInput(dir, "ls -la"), Runners{Walled: run})
	if out.Blocked || len(out.Results) != 1 {
		t.Errorf("ls was refused or not checked: %+v", out)
	}
}

func TestProjectHookNotRunBeforeApproval(t *testing.T) {
	dir, cfgDir := fixture(t), t.TempDir()
	h := OpenHooks(cfgDir)
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(dir, ".claude/settings.json"),
		[]byte(`{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"touch `+marker+`"}]}]}}`), 0o644)
	run := PersonRunner{Dir: dir}
	out := h.Run(context.Background(), bashInput(dir, "true"), Runners{Walled: run})
	if out.Ran() {
		t.Fatalf("a project hook ran before the person allowed it: %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project hook's command ran")
	}
	if len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "do not run until you allow them") {
		t.Errorf("the person is not told about the waiting hooks: %v", out.Notices)
	}
	if again := h.Run(context.Background(), bashInput(dir, "true"), Runners{Walled: run}); len(again.Notices) != 0 {
		t.Errorf("the notice is told again: %v", again.Notices)
	}
	fp := h.Project(dir).Fingerprint
	// The configuration changes after it was shown: the approval is refused.
	os.WriteFile(filepath.Join(dir, ".claude/settings.json"),
		[]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"touch `+marker+`.2"}]}]}}`), 0o644)
	if err := h.AllowProject(dir, fp); err != ErrHooksChanged {
		t.Fatalf("allowing a changed configuration: %v", err)
	}
	p := h.Project(dir)
	if err := h.AllowProject(dir, p.Fingerprint); err != nil {
		t.Fatal(err)
	}
	if out := h.Run(context.Background(), bashInput(dir, "true"), Runners{Walled: run}); !out.Ran() || out.Results[0].Exit != 0 {
		t.Fatalf("the allowed hook did not run: %+v", out)
	}
	// Changing it again withdraws the approval.
	os.WriteFile(filepath.Join(dir, ".claude/settings.json"),
		[]byte(`{"hooks":{"PreToolUse":[{"hooks":[{"command":"echo changed"}]}]}}`), 0o644)
	if out := h.Run(context.Background(), bashInput(dir, "true"), Runners{Walled: run}); out.Ran() {
		t.Errorf("a changed project configuration ran without a new approval: %+v", out)
	}
}

func TestHungHookIsKilledAtItsTimeout(t *testing.T) {
	dir, cfgDir := t.TempDir(), t.TempDir()
	writePersonHooks(t, cfgDir, `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"sleep 300 & sleep 300","timeout":0.3}]}]}}`)
	h := OpenHooks(cfgDir)
	out := h.Run(context.Background(), bashInput(dir, "ls"), Runners{Walled: PersonRunner{Dir: dir}})
	if len(out.Results) != 1 || !out.Results[0].TimedOut || out.Blocked {
		t.Fatalf("the hung hook: %+v", out)
	}
	if line := out.Results[0].Line(); !strings.Contains(line, "timeout; the turn goes on") {
		t.Errorf("line %q", line)
	}
}

func TestHookJSONAnswers(t *testing.T) {
	dir, cfgDir := t.TempDir(), t.TempDir()
	writePersonHooks(t, cfgDir, `{"hooks":{
	  "PreToolUse":[{"matcher":"Edit|Write","hooks":[{"command":"echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no edits on Fridays\"}}'"}]}],
	  "UserPromptSubmit":[{"hooks":[{"command":"echo 'Current branch: main'"}]}],
	  "post_tool_use":[{"matcher":"mcp__.*","hooks":[{"command":"echo '{\"decision\":\"block\",\"reason\":\"check the output\"}'"}]}],
	  "SessionStart":[{"hooks":[{"command":"true"}]}]
	}}`)
	h := OpenHooks(cfgDir)
	run := PersonRunner{Dir: dir}
	patch := Input{Cwd: dir, HookEventName: PreToolUse, ToolName: "patch", ToolAliases: []string{"Edit", "Write", "MultiEdit"}}
	if out := h.Run(context.Background(), patch, Runners{Walled: run}); !out.Blocked || out.Reason != "no edits on Fridays" {
		t.Errorf("deny by JSON: %+v", out)
	}
	if out := h.Run(context.Background(), bashInput(dir, "ls"), Runners{Walled: run}); out.Ran() {
		t.Errorf("an Edit|Write matcher ran for bash: %+v", out)
	}
	prompt := Input{Cwd: dir, HookEventName: UserPromptSubmit, Prompt: "hi"}
	if out := h.Run(context.Background(), prompt, Runners{Walled: run}); out.Blocked || out.Context != "Current branch: main" {
		t.Errorf("prompt context: %+v", out)
	}
	post := Input{Cwd: dir, HookEventName: PostToolUse, ToolName: "mcp__fs__read"}
	if out := h.Run(context.Background(), post, Runners{Walled: run}); !out.Blocked || out.Reason != "check the output" {
		t.Errorf("snake_case event and a regex matcher: %+v", out)
	}
	_, notes, _ := ParseConfig([]byte(`{"hooks":{"TeammateIdle":[{"hooks":[{"command":"true"}]}]}}`))
	if len(notes) != 1 || !strings.Contains(notes[0], "TeammateIdle") {
		t.Errorf("an unsupported event is not noted: %v", notes)
	}
}

func TestHookInputIsClaudeCodeShaped(t *testing.T) {
	dir, cfgDir := t.TempDir(), t.TempDir()
	got := filepath.Join(t.TempDir(), "stdin.json")
	writePersonHooks(t, cfgDir, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"cat > `+got+`; echo \"$CLAUDE_PROJECT_DIR\" >> `+got+`"}]}]}}`)
	h := OpenHooks(cfgDir)
	out := h.Run(context.Background(), bashInput(dir, "ls"), Runners{Walled: PersonRunner{Dir: dir, Env: Env(nil, dir)}})
	if !out.Ran() {
		t.Fatal("no hook ran")
	}
	b, _ := os.ReadFile(got)
	first, rest, _ := strings.Cut(string(b), "\n")
	var in map[string]any
	if err := json.Unmarshal([]byte(first), &in); err != nil {
		t.Fatalf("stdin was not JSON: %q", b)
	}
	if in["hook_event_name"] != "PreToolUse" || in["tool_name"] != "Bash" || in["cwd"] != dir || in["session_id"] != "c1" {
		t.Errorf("stdin = %v", in)
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "ls" {
		t.Errorf("tool_input = %v", in["tool_input"])
	}
	if strings.TrimSpace(rest) != dir {
		t.Errorf("CLAUDE_PROJECT_DIR = %q", rest)
	}
}

func TestBadHooksFileIsRefusedOnSave(t *testing.T) {
	h := OpenHooks(t.TempDir())
	if _, err := h.SavePerson(`{"hooks": [1,2]}`); err == nil {
		t.Error("a hooks file whose hooks are a list was saved")
	}
	if _, err := h.SavePerson(`not json`); err == nil {
		t.Error("text that is not JSON was saved")
	}
	notes, err := h.SavePerson(`{"hooks":{"Stop":[{"hooks":[{"type":"prompt","prompt":"x"}]}]}}`)
	if err != nil || len(notes) != 1 {
		t.Errorf("a prompt hook: notes %v err %v", notes, err)
	}
	if text, _ := h.PersonText(); !strings.Contains(text, "prompt") {
		t.Errorf("the file was not saved as written: %q", text)
	}
}

// The hooks files are kept parsed while they stay the same (issue 39), and an edit still
// applies from the next event on: files whose times lie well in the past (so the kept
// reading is used) are edited in place and replaced, and each change is seen.
func TestHooksFileEditsApplyWhileKeptParsed(t *testing.T) {
	dir, cfgDir := fixture(t), t.TempDir()
	h := OpenHooks(cfgDir)
	past := time.Now().Add(-time.Hour)
	settle := func(path string) {
		t.Helper()
		past = past.Add(time.Second)
		if err := os.Chtimes(path, past, past); err != nil {
			t.Fatal(err)
		}
	}
	person := filepath.Join(cfgDir, PersonHooksFile)
	writePersonHooks(t, cfgDir, `{"hooks":{"PreToolUse":[{"hooks":[{"command":"true"}]}]}}`)
	settle(person)
	for range 2 {
		if !h.Has(PreToolUse, "") {
			t.Fatal("the person's PreToolUse hook is not seen")
		}
	}
	writePersonHooks(t, cfgDir, `{"hooks":{"Stop":[{"hooks":[{"command":"true"}]}]}}`)
	settle(person)
	if h.Has(PreToolUse, "") || !h.Has(Stop, "") {
		t.Fatal("an edit of the person's hooks file did not apply at the next event")
	}
	writePersonHooks(t, cfgDir, `{"hooks": nonsense`)
	settle(person)
	for range 2 {
		if cfg, notes := h.Person(); cfg.Count() != 0 || len(notes) != 1 || strings.Count(notes[0], person) != 1 {
			t.Fatalf("a broken hooks file: %v, notes %q; want no hooks and one notice naming the file once", cfg, notes)
		}
	}

	settings := filepath.Join(dir, ".claude/settings.json")
	settle(settings)
	before := h.Project(dir)
	if len(before.Files) != 1 {
		t.Fatalf("project hooks = %+v", before)
	}
	tmp := settings + ".new"
	if err := os.WriteFile(tmp, []byte(`{"hooks":{"Stop":[{"hooks":[{"command":"true"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	settle(tmp)
	if err := os.Rename(tmp, settings); err != nil {
		t.Fatal(err)
	}
	if after := h.Project(dir); after.Fingerprint == before.Fingerprint || len(after.Config.Hooks[Stop]) != 1 {
		t.Fatalf("a project hooks file replaced by rename was not read again: %+v", after)
	}
}
