package instructions

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadWalksUpToTheRepositoryRootNearestLast(t *testing.T) {
	root := t.TempDir()
	outside := filepath.Join(root, "outside")
	repo := filepath.Join(outside, "repo")
	cwd := filepath.Join(repo, "svc", "api")
	config := filepath.Join(root, "config")
	write(t, filepath.Join(outside, "AGENTS.md"), "above the repository: never read")
	write(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(repo, "AGENTS.md"), "repo rules")
	write(t, filepath.Join(repo, "svc", "CLAUDE.md"), "svc rules from CLAUDE.md")
	write(t, filepath.Join(cwd, "AGENTS.md"), "api rules")
	write(t, filepath.Join(cwd, "CLAUDE.md"), "ignored: AGENTS.md wins in the same directory")
	write(t, filepath.Join(config, "AGENTS.md"), "my own rules")

	s := Load(cwd, config)
	labels := s.Labels()
	wantTail := []string{"../../AGENTS.md", "../CLAUDE.md", "AGENTS.md"}
	if len(labels) != 4 || !slices.Equal(labels[1:], wantTail) {
		t.Fatalf("labels = %q, want the personal file then %q", labels, wantTail)
	}
	if s.Files[0].Path != filepath.Join(config, "AGENTS.md") {
		t.Fatalf("first file = %s, want the personal one", s.Files[0].Path)
	}
	p := s.Prompt()
	for _, want := range []string{"my own rules", "repo rules", "svc rules from CLAUDE.md", "api rules", "## ../CLAUDE.md"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "never read") || strings.Contains(p, "AGENTS.md wins") {
		t.Errorf("prompt holds a file it must not:\n%s", p)
	}
	if strings.Index(p, "repo rules") > strings.Index(p, "api rules") || strings.Index(p, "my own rules") > strings.Index(p, "repo rules") {
		t.Errorf("prompt is not ordered farthest first, nearest last:\n%s", p)
	}
	if len(s.Notices) != 0 {
		t.Errorf("notices = %q", s.Notices)
	}
}

func TestLoadOutsideARepositoryReadsOnlyTheWorkingDirectory(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "proj")
	write(t, filepath.Join(root, "AGENTS.md"), "parent, not a repository")
	write(t, filepath.Join(cwd, "AGENTS.md"), "here")
	if got := Load(cwd, "").Labels(); !slices.Equal(got, []string{"AGENTS.md"}) {
		t.Fatalf("labels = %q", got)
	}
	if got := Load(t.TempDir(), "").Prompt(); got != "" {
		t.Fatalf("no files gave a prompt: %q", got)
	}
}

func TestUnusableFilesAreSkippedWithANotice(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, ".git", "HEAD"), "x")
	if err := os.WriteFile(filepath.Join(cwd, "AGENTS.md"), []byte{0xff, 0xfe, 'h', 'i'}, 0o644); err != nil {
		t.Fatal(err)
	}
	config := t.TempDir()
	if err := os.Mkdir(filepath.Join(config, "AGENTS.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := Load(cwd, config)
	if len(s.Files) != 0 {
		t.Fatalf("files = %+v", s.Files)
	}
	joined := strings.Join(s.Notices, "\n")
	if !strings.Contains(joined, "AGENTS.md was skipped: it is not UTF-8 text") || !strings.Contains(joined, "not a regular file") {
		t.Fatalf("notices = %q", s.Notices)
	}
}

func TestTheCapCutsTheFarthestFirstAndSaysSo(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "sub")
	write(t, filepath.Join(root, ".git", "HEAD"), "x")
	write(t, filepath.Join(root, "AGENTS.md"), strings.Repeat("far ", 5000))   // 20,000 bytes
	write(t, filepath.Join(cwd, "AGENTS.md"), strings.Repeat("é near ", 3000)) // 24,000 bytes
	s := Load(cwd, "")
	total := 0
	for _, f := range s.Files {
		total += len(f.Text)
	}
	if total > MaxBytes {
		t.Fatalf("total %d bytes > cap %d", total, MaxBytes)
	}
	near, far := s.Files[1], s.Files[0]
	if near.Cut != 0 || far.Cut != 20000-(MaxBytes-24000) {
		t.Fatalf("cuts: near %d far %d", near.Cut, far.Cut)
	}
	if !strings.Contains(s.Prompt(), "bytes of ../AGENTS.md were cut") {
		t.Fatalf("the prompt does not say what was cut")
	}
	// One huge file is cut at a rune boundary, not skipped as binary.
	write(t, filepath.Join(cwd, "AGENTS.md"), strings.Repeat("é", MaxBytes))
	s = Load(cwd, "")
	if len(s.Files) != 2 || s.Files[1].Cut == 0 || len(s.Notices) != 1 {
		t.Fatalf("huge file: %d files, cut %d, notices %q", len(s.Files), s.Files[1].Cut, s.Notices)
	}
}

func TestDisabledGivesNoPrompt(t *testing.T) {
	cwd := t.TempDir()
	write(t, filepath.Join(cwd, "AGENTS.md"), "x")
	s := Load(cwd, "")
	s.Disabled = true
	if s.Prompt() != "" {
		t.Fatal("disabled instructions still reach the prompt")
	}
}

func TestConfigDir(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/cfg")
	if got := ConfigDir(); got != "/x/cfg/phoenix-desktop" {
		t.Fatalf("ConfigDir = %s", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	t.Setenv("HOME", "/home/p")
	if got := ConfigDir(); got != "/home/p/.config/phoenix-desktop" {
		t.Fatalf("ConfigDir with a relative XDG_CONFIG_HOME = %s", got)
	}
}

// TestProjectReadElsewhereThenPersonalIsLoad: a project on another machine is read there
// (LoadProject) and the person's own file added here (WithPersonal); the result is what Load
// gives when both are on one machine, the cap over all of them included.
func TestProjectReadElsewhereThenPersonalIsLoad(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "sub")
	config := filepath.Join(root, "config")
	write(t, filepath.Join(root, ".git", "HEAD"), "x")
	write(t, filepath.Join(root, "AGENTS.md"), strings.Repeat("far ", 6000))
	write(t, filepath.Join(cwd, "CLAUDE.md"), "never read: AGENTS.md is there")
	write(t, filepath.Join(config, "AGENTS.md"), strings.Repeat("mine ", 2000))
	if err := os.WriteFile(filepath.Join(root, "sub", "AGENTS.md"), []byte{0xff}, 0o644); err != nil {
		t.Fatal(err)
	}
	project := LoadProject(cwd)
	if got := project.Labels(); !slices.Equal(got, []string{"../AGENTS.md"}) {
		t.Fatalf("project labels = %q (a non-UTF-8 AGENTS.md hides CLAUDE.md, as locally)", got)
	}
	if project.Files[0].Cut != 0 {
		t.Fatalf("the project's reading cut already: %d", project.Files[0].Cut)
	}
	got, want := WithPersonal(project, config, cwd), Load(cwd, config)
	if got.Prompt() != want.Prompt() || !slices.Equal(got.Notices, want.Notices) || !slices.Equal(got.Labels(), want.Labels()) {
		t.Fatalf("LoadProject + WithPersonal differs from Load: labels %q / %q, notices %q / %q", got.Labels(), want.Labels(), got.Notices, want.Notices)
	}
	if len(got.Files) != 2 || got.Files[0].Cut != 24000+10000-MaxBytes {
		t.Fatalf("the cap did not cut the personal file (the farthest): labels %q", got.Labels())
	}
}
