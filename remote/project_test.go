package remote

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// writeAs writes a file of the remote user (the test runs as root), making its folders.
func writeAs(t *testing.T, s *remotetest.Server, path, text string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	for p := path; strings.HasPrefix(p, s.Home+"/"); p = filepath.Dir(p) {
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRemoteProjectFilesAreReadThere: a remote project's AGENTS.md, commands and skills are
// read on the host, by the agent, with the rules a local project's are read with (up to the
// repository root, AGENTS.md before CLAUDE.md); a file the remote user cannot read is skipped
// with a notice, as locally.
func TestRemoteProjectFilesAreReadThere(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	proj := s.ProjectDir(t)
	sub := filepath.Join(proj, "svc")
	writeAs(t, s, filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n", 0o644)
	writeAs(t, s, filepath.Join(proj, "AGENTS.md"), "Rules of the host's repository.", 0o644)
	writeAs(t, s, filepath.Join(sub, "CLAUDE.md"), "Rules of the service.", 0o644)
	writeAs(t, s, filepath.Join(proj, ".claude", "commands", "deploy.md"), "---\ndescription: Deploy it\n---\nDeploy $ARGUMENTS now.", 0o644)
	writeAs(t, s, filepath.Join(proj, ".claude", "skills", "release", "SKILL.md"), "---\nname: release\ndescription: Cut a release\n---\nSteps.", 0o644)

	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	files, err := sess.ReadProject(ctx, sub, nil)
	if err != nil {
		t.Fatalf("ReadProject: %v", err)
	}
	if got := files.Instructions.Labels(); !slices.Equal(got, []string{"../AGENTS.md", "CLAUDE.md"}) {
		t.Fatalf("instructions read there: %q (notices %q)", got, files.Instructions.Notices)
	}
	if p := files.Instructions.Prompt(); !strings.Contains(p, "Rules of the host's repository.") || !strings.Contains(p, "Rules of the service.") {
		t.Fatalf("the prompt lacks the host's files:\n%s", p)
	}
	cmd, ok := files.Custom.Command("deploy")
	if !ok || cmd.Path != filepath.Join(proj, ".claude", "commands", "deploy.md") || cmd.Description != "Deploy it" {
		t.Fatalf("the host's command: %+v (found %v)", cmd, ok)
	}
	if got := files.Custom.SkillNames(); !slices.Equal(got, []string{"release"}) || files.Custom.Skills[0].Path != filepath.Join(proj, ".claude", "skills", "release", "SKILL.md") {
		t.Fatalf("the host's skills: %+v", files.Custom.Skills)
	}

	// Unreadable by the remote user (root's, private): skipped with a notice, nothing else.
	writeAs(t, s, filepath.Join(sub, "AGENTS.md"), "secret", 0o600)
	if err := os.Chown(filepath.Join(sub, "AGENTS.md"), 0, 0); err != nil {
		t.Fatal(err)
	}
	files, err = sess.ReadProject(ctx, sub, nil)
	if err != nil {
		t.Fatalf("ReadProject: %v", err)
	}
	if got := files.Instructions.Labels(); !slices.Equal(got, []string{"../AGENTS.md"}) {
		t.Fatalf("with an unreadable AGENTS.md: %q", got)
	}
	if n := strings.Join(files.Instructions.Notices, "\n"); !strings.Contains(n, "AGENTS.md was skipped") || !strings.Contains(n, "permission denied") {
		t.Fatalf("notices = %q", files.Instructions.Notices)
	}
	if _, err := sess.ReadProject(ctx, "relative/dir", nil); err == nil || !strings.Contains(err.Error(), "not an absolute path") {
		t.Fatalf("a relative folder: %v", err)
	}
	sess.Close()
	s.WaitNoProcesses(t)
}

// TestRemoteAllowedHostsAreReadAndRemovedThere: Settings reads a host's allowed hosts (Project
// mode's "always" answers, kept there) through the agent, and Forget takes one off the file
// there.
func TestRemoteAllowedHostsAreReadAndRemovedThere(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	file := filepath.Join(s.Home, ".config", "phoenix-desktop", remoteRulesFile)
	t.Cleanup(func() { os.Remove(file) })
	writeAs(t, s, file, `{"version": 1, "projects": {
		"/home/x/app": {"hosts": ["example.org", "*.golang.org"]},
		"/home/x/lib": {"package_registries": true}}}`, 0o600)

	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	got, err := sess.AllowedHosts(ctx)
	if err != nil {
		t.Fatalf("AllowedHosts: %v", err)
	}
	if len(got) != 2 || got[0].Project != "/home/x/app" || !slices.Equal(got[0].Hosts, []string{"example.org", "*.golang.org"}) ||
		got[1].Project != "/home/x/lib" || !got[1].Registries || len(got[1].Hosts) != 0 {
		t.Fatalf("AllowedHosts = %+v", got)
	}
	if err := sess.RemoveAllowedHost(ctx, "/home/x/app", "example.org"); err != nil {
		t.Fatalf("RemoveAllowedHost: %v", err)
	}
	b, err := os.ReadFile(file)
	if err != nil || strings.Contains(string(b), `"example.org"`) || !strings.Contains(string(b), "*.golang.org") {
		t.Fatalf("the file there after the removal: %s (%v)", b, err)
	}
	got, err = sess.AllowedHosts(ctx)
	if err != nil || !slices.Equal(got[0].Hosts, []string{"*.golang.org"}) {
		t.Fatalf("after the removal: %+v %v", got, err)
	}
	if err := sess.RemoveAllowedHost(ctx, "/home/x/app", "not a host!"); err == nil || !strings.Contains(err.Error(), "on "+s.Dest) {
		t.Fatalf("a bad entry: %v", err)
	}
	sess.Close()
	s.WaitNoProcesses(t)
}
