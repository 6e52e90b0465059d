package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

func writeReadable(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestChatRemoteProjectFilesComeFromTheHost: a remote conversation's first request carries
// the host's AGENTS.md (read there, as the remote user) after the person's own, read here; the
// host's command is what "/name" runs and the host's skill is offered. An AGENTS.md the remote
// user cannot read is skipped with a notice, as locally — this machine's root could read it,
// so the notice shows the file was read on the host.
func TestChatRemoteProjectFilesComeFromTheHost(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	writeReadable(t, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeReadable(t, filepath.Join(proj, "AGENTS.md"), "Host rule: indent with tabs.")
	writeReadable(t, filepath.Join(proj, ".claude", "commands", "greet.md"), "---\ndescription: Greet\n---\necho: hello $ARGUMENTS from the host's command")
	writeReadable(t, filepath.Join(proj, ".claude", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release of this project\n---\nSteps.")
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	writeReadable(t, filepath.Join(cfg, "phoenix-desktop", "AGENTS.md"), "Personal rule: answer briefly.")

	srv := startModelWithKey(t, "sk-test-remote-0001")
	data := t.TempDir()
	code, out, errs := cli(t, "chat", "--base-url", srv.URL(), "--model", domain.DemoModel, "--data-dir", data,
		"--remote", s.Dest, "--cwd", proj, "/greet world")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "Instructions: "+filepath.Join(cfg, "phoenix-desktop", "AGENTS.md")+", AGENTS.md", "Skills: release", "hello world from the host's command")
	first := srv.Requests()[0]
	if first.Chat == nil {
		t.Fatalf("the first request is not a chat: %+v", first)
	}
	sys := first.Chat.SystemPrompt()
	mustContainAll(t, sys, "Host rule: indent with tabs.", "Personal rule: answer briefly.",
		"release: Cut a release of this project ("+filepath.Join(proj, ".claude", "skills", "release", "SKILL.md")+")")
	if strings.Index(sys, "Personal rule") > strings.Index(sys, "Host rule") {
		t.Errorf("the host's file is not nearer than the person's:\n%s", sys)
	}
	s.WaitNoProcesses(t)

	// Root's own private file: this machine could read it, the remote user cannot.
	if err := os.WriteFile(filepath.Join(proj, "AGENTS.md"), []byte("root's secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(proj, "AGENTS.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cli(t, "chat", "--base-url", srv.URL(), "--model", domain.DemoModel, "--data-dir", data,
		"--remote", s.Dest, "--cwd", proj, "echo: second")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "! Instructions: AGENTS.md was skipped", "permission denied")
	sys = srv.LastChat().SystemPrompt()
	if strings.Contains(sys, "root's secret") || !strings.Contains(sys, "Personal rule") {
		t.Errorf("with the host's file unreadable there the prompt is:\n%s", sys)
	}
	s.WaitNoProcesses(t)
}

// TestChatRemoteProjectHooksRunOnTheHostOnceAllowedThere: a remote project's hooks are listed
// from the host (hooks --remote) and do not run until allowed for that host; once allowed
// they run there, as the remote user, around the conversation's bash. The same machine under
// another name, or the same folder here, is not allowed by it. The person's own hook runs
// here, told of the host.
func TestChatRemoteProjectHooksRunOnTheHostOnceAllowedThere(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	marker := filepath.Join(proj, "hook-ran-by")
	writeReadable(t, filepath.Join(proj, ".phoenix", "hooks.json"),
		`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":"id -u >> \"$CLAUDE_PROJECT_DIR/hook-ran-by\""}]}]}}`)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	writeReadable(t, filepath.Join(cfg, "phoenix-desktop", "hooks.json"),
		`{"hooks":{"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"echo \"mine, for $PHOENIX_REMOTE_HOST\""}]}]}}`)
	srv := startModelWithKey(t, "sk-test-remote-0001")
	data := t.TempDir()
	chat := func(dest string) (string, string) {
		t.Helper()
		code, out, errs := cli(t, "chat", "--base-url", srv.URL(), "--model", domain.DemoModel, "--data-dir", data,
			"--mode", "project", "--remote", dest, "--cwd", proj, "bash: echo hi")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		return out, errs
	}

	code, out, errs := cli(t, "hooks", "--remote", s.Dest, "--cwd", proj)
	if code != 0 {
		t.Fatalf("hooks --remote: exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "Project hooks of "+proj+" on "+s.Dest+" (.phoenix/hooks.json)", "not allowed",
		"hooks allow --remote "+s.Dest+" --cwd "+proj)
	out, errs = chat(s.Dest)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's hook ran on the host before it was allowed")
	}
	mustContainAll(t, out+errs, "on "+s.Dest+" has hooks (.phoenix/hooks.json) that do not run until you allow them", "mine, for "+s.Dest)

	// Allowed here for the folder of the same path: nothing of it applies to the host.
	if code, out, errs := cli(t, "hooks", "allow", "--cwd", proj); code != 0 {
		t.Fatalf("hooks allow here: exit %d\n%s\n%s", code, out, errs)
	}
	chat(s.Dest)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an approval of the folder here ran the host's hook")
	}

	if code, out, errs := cli(t, "hooks", "allow", "--remote", s.Dest, "--cwd", proj); code != 0 || !strings.Contains(out, "Allowed.") {
		t.Fatalf("hooks allow --remote: exit %d\n%s\n%s", code, out, errs)
	}
	chat(s.Dest)
	b, err := os.ReadFile(marker)
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(s.UID) {
		t.Fatalf("the hook's run on the host: %q %v (want the remote user's uid %d once)", b, err, s.UID)
	}

	// The same machine named otherwise is another host to the approval.
	chat(remotetest.TestUser + "@" + s.Dest)
	if b2, _ := os.ReadFile(marker); string(b2) != string(b) {
		t.Errorf("the approval for %s ran the hook for %s@%s too: %q", s.Dest, remotetest.TestUser, s.Dest, b2)
	}
	s.WaitNoProcesses(t)
}

// startModelWithKey starts a fake model server for the test and sets the API key a chat
// sends it.
func startModelWithKey(t *testing.T, key string) *fakellm.Server {
	t.Helper()
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	t.Setenv(providers.EnvAPIKey, key)
	return srv
}
