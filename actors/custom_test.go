package actors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
)

func withHooks(cfgDir string) harnessOption {
	return func(c *Config) {
		c.Hooks = custom.OpenHooks(cfgDir)
		c.PersonalDirs = []string{cfgDir}
	}
}

// projectFixture copies custom's tree written for Claude Code (.claude/commands, skills and a
// settings.json with a PreToolUse hook) into the harness's working directory.
func projectFixture(t *testing.T, cwd string) {
	t.Helper()
	if err := os.CopyFS(cwd, os.DirFS("../custom/testdata/claude-project")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(cwd, ".claude/hooks/no-rm.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(cwd, ".git", "HEAD"), "ref: refs/heads/main\n")
}

// turnEvents sends a message and collects the hook runs and notices until the conversation
// rests.
func (h *harness) turnEvents(id, text string) (domain.Conversation, []HookRan, []Notice) {
	h.t.Helper()
	h.send(id, text)
	var hooks []HookRan
	var notices []Notice
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			switch e := ev.(type) {
			case HookRan:
				hooks = append(hooks, e)
			case Notice:
				notices = append(notices, e)
			case StateChanged:
				if e.Conv.ID == id && !domain.Busy(e.Conv.State) {
					return e.Conv, hooks, notices
				}
			}
		case <-timeout.C:
			h.t.Fatalf("timed out waiting for %q to rest", text)
		}
	}
}

func TestHookRefusesRmAndTheModelSeesWhy(t *testing.T) {
	cfgDir := t.TempDir()
	h := newHarness(t, withHooks(cfgDir))
	projectFixture(t, h.cwd)
	writeFile(t, filepath.Join(h.cwd, "build", "out.o"), "object")
	p, _ := h.rt.ProjectHooks(context.Background(), "", h.cwd)
	if p.Allowed || len(p.Files) != 1 {
		t.Fatalf("project hooks = %+v", p)
	}
	if err := h.rt.AllowProjectHooks(context.Background(), "", h.cwd, p.Fingerprint); err != nil {
		t.Fatal(err)
	}
	c := h.create(NewConversation{})
	end, hooks, _ := h.turnEvents(c.ID, "bash: rm -rf build")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state %s", end.State.Kind())
	}
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeError {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "refused this call")
	mustContain(t, res[0].Content, "rm is not allowed in this project: move files to ./trash instead")
	if _, err := os.Stat(filepath.Join(h.cwd, "build", "out.o")); err != nil {
		t.Fatalf("the refused command ran: %v", err)
	}
	if len(hooks) != 1 || !hooks[0].Result.Project || !hooks[0].Result.Blocked {
		t.Fatalf("the hook's run is not in the transcript: %+v", hooks)
	}
	// The model's next request carries the reason.
	found := false
	for _, m := range h.srv.LastChat().Messages {
		found = found || strings.Contains(m.Content.String(), "move files to ./trash")
	}
	if !found {
		t.Fatal("the model did not see why the call was refused")
	}
	// A call the hook lets through runs.
	h.turnEvents(c.ID, "bash: echo fine")
	if res := results(h.history(c.ID)); res[1].Outcome != domain.OutcomeSuccess || !strings.Contains(res[1].Content, "fine") {
		t.Fatalf("the allowed call: %+v", res[1])
	}
}

func TestHungHookIsKilledAtTimeoutAndTheTurnGoesOn(t *testing.T) {
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "hooks.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"sleep 300","timeout":0.5}]}]}}`)
	h := newHarness(t, withHooks(cfgDir))
	c := h.create(NewConversation{})
	end, hooks, _ := h.turnEvents(c.ID, "bash: echo still-here")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state %s", end.State.Kind())
	}
	if res := results(h.history(c.ID)); len(res) != 1 || !strings.Contains(res[0].Content, "still-here") {
		t.Fatalf("the call did not run after the hook timed out: %+v", res)
	}
	if len(hooks) != 1 || !hooks[0].Result.TimedOut {
		t.Fatalf("hook runs = %+v", hooks)
	}
	mustContain(t, hooks[0].Text, "timeout; the turn goes on")
}

func TestProjectHookDoesNotRunBeforeApproval(t *testing.T) {
	cfgDir := t.TempDir()
	h := newHarness(t, withHooks(cfgDir))
	writeFile(t, filepath.Join(h.cwd, ".phoenix", "hooks.json"),
		`{"hooks":{"PostToolUse":[{"hooks":[{"command":"echo project hook ran"}]}]}}`)
	c := h.create(NewConversation{})
	_, hooks, notices := h.turnEvents(c.ID, "bash: echo one")
	if len(hooks) != 0 {
		t.Fatalf("a project hook ran before approval: %+v", hooks)
	}
	told := false
	for _, n := range notices {
		told = told || strings.Contains(n.Text, "do not run until you allow them")
	}
	if !told {
		t.Fatalf("the person was not told of the waiting hooks: %+v", notices)
	}
	proj, _ := h.rt.ProjectHooks(context.Background(), "", h.cwd)
	if err := h.rt.AllowProjectHooks(context.Background(), "", h.cwd, proj.Fingerprint); err != nil {
		t.Fatal(err)
	}
	_, hooks, _ = h.turnEvents(c.ID, "bash: echo two")
	if len(hooks) != 1 || !strings.Contains(hooks[0].Text, "project hook ran") {
		t.Fatalf("the approved hook: %+v", hooks)
	}
}

func TestPromptHookRefusesOrAddsContext(t *testing.T) {
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "hooks.json"), `{"hooks":{"UserPromptSubmit":[{"hooks":[{"command":
	  "if grep -q password; then echo 'do not paste passwords' >&2; exit 2; fi; echo 'Branch: main'"}]}]}}`)
	h := newHarness(t, withHooks(cfgDir))
	c := h.create(NewConversation{})
	err := h.rt.Send(context.Background(), c.ID, "my password is hunter2", nil)
	if !errors.Is(err, ErrHookRefused) || !strings.Contains(err.Error(), "do not paste passwords") {
		t.Fatalf("Send = %v", err)
	}
	if msgs := h.history(c.ID); len(msgs) != 0 {
		t.Fatalf("a refused message was stored: %+v", msgs)
	}
	h.turnEvents(c.ID, "echo: ok")
	mustContain(t, h.history(c.ID)[0].Text, "[Added by a hook]\nBranch: main")
	// A message put in the queue meets the same hooks: refused, it never enters the queue.
	if _, err := h.rt.Enqueue(context.Background(), c.ID, "queued password", nil); !errors.Is(err, ErrHookRefused) {
		t.Fatalf("Enqueue = %v", err)
	}
	q, err := h.rt.Queue(context.Background(), c.ID)
	if err != nil || len(q.Items) != 0 {
		t.Fatalf("a refused message was queued: %+v, %v", q, err)
	}
}

func TestCommandsAndSkillsFixedUntilReload(t *testing.T) {
	cfgDir := t.TempDir()
	h := newHarness(t, withHooks(cfgDir))
	projectFixture(t, h.cwd)
	c := h.create(NewConversation{})
	set, err := h.rt.Commands(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	prompt, _, ok := set.Expand("/review 12 low")
	if !ok || !strings.Contains(prompt, "Review pull request #12 with priority low.") {
		t.Fatalf("/review expands to %q (%v)", prompt, ok)
	}
	h.turnEvents(c.ID, "echo: hi")
	sys := h.srv.LastChat().SystemPrompt()
	mustContain(t, sys, "- pdf-forms: Fill in PDF forms")
	writeFile(t, filepath.Join(h.cwd, ".agents", "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy to staging\n---\nsteps")
	h.turnEvents(c.ID, "echo: again")
	if strings.Contains(h.srv.LastChat().SystemPrompt(), "deploy") {
		t.Fatal("a new skill changed the system prompt before a reload")
	}
	if _, err := h.rt.ReloadInstructions(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.turnEvents(c.ID, "echo: third")
	mustContain(t, h.srv.LastChat().SystemPrompt(), "- deploy: Deploy to staging")
}

func TestToolAliasesNameTools(t *testing.T) {
	for name := range toolAliases {
		if !domain.Offers(false, name) {
			t.Errorf("toolAliases names %q, which is not a tool", name)
		}
	}
}
