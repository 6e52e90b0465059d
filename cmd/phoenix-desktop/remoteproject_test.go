package main

import (
	"os"
	"path/filepath"
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

	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	t.Setenv(providers.EnvAPIKey, "sk-test-remote-0001")
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
