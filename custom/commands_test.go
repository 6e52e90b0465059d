package custom

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// collection copies testdata/collection (a command as the public collections write them: a
// 120 KB prompt whose front matter names a model and tools) into a fresh repository.
func collection(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/collection")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A 120 KB command loads whole, and one over MaxFileBytes is skipped with a notice that
// says how large it is and what the limit is (issue 38).
func TestLargeCommandsLoadAndTooLargeAreSkippedWithTheReason(t *testing.T) {
	dir := collection(t)
	cmds := filepath.Join(dir, ".claude", "commands")
	fixture, err := os.ReadFile(filepath.Join(cmds, "tools", "api-scaffold.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(fixture) < 120<<10 {
		t.Fatalf("the fixture is %d bytes; it must stand for the 120 KB commands of the collections", len(fixture))
	}
	huge := "---\ndescription: too big\n---\n" + strings.Repeat("x", MaxFileBytes)
	if err := os.WriteFile(filepath.Join(cmds, "huge.md"), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Load(dir, nil)
	c, ok := s.Command("api-scaffold")
	if !ok {
		t.Fatalf("the 120 KB command was not loaded; notices: %v", s.Notices)
	}
	if c.Model != "claude-sonnet-4-0" || c.Description != "Scaffold a production-ready API service with routes, validation, persistence and tests" {
		t.Errorf("its front matter was read as %+v", c)
	}
	if !strings.HasSuffix(strings.TrimSpace(c.Body), "Do not stop before the tests\npass.") {
		t.Errorf("its prompt was cut: it ends %q", c.Body[max(0, len(c.Body)-80):])
	}
	if _, ok := s.Command("huge"); ok {
		t.Error("a command over the limit was loaded")
	}
	if len(s.Notices) != 1 || !strings.Contains(s.Notices[0], "huge.md was skipped: it is 1.0 MB, larger than the 1 MB") {
		t.Errorf("notices = %q; want one that names huge.md, its size and the limit", s.Notices)
	}
}

// A SKILL.md is read whole up to the same limit: one with a long body loads, one over it is
// skipped with the reason rather than read in part.
func TestLargeSkillsLoadAndTooLargeAreSkippedWithTheReason(t *testing.T) {
	dir := collection(t)
	skills := filepath.Join(dir, ".claude", "skills")
	write := func(name string, bodyBytes int) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(skills, name), 0o755); err != nil {
			t.Fatal(err)
		}
		text := "---\nname: " + name + "\ndescription: Use when the task is about " + name + "\n---\n# " + name + "\n" + strings.Repeat("Step. ", bodyBytes/6)
		if err := os.WriteFile(filepath.Join(skills, name, "SKILL.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("docx", 200<<10)
	write("giant", MaxFileBytes+1)
	s := Load(dir, nil)
	if got := s.SkillNames(); len(got) != 1 || got[0] != "docx" {
		t.Errorf("skills = %v; want [docx]", got)
	}
	if len(s.Notices) != 1 || !strings.Contains(s.Notices[0], filepath.Join("giant", "SKILL.md")+" was skipped: it is 1.0 MB, larger than the 1 MB") {
		t.Errorf("notices = %q; want one that names giant's SKILL.md, its size and the limit", s.Notices)
	}
}

// TestProjectReadElsewhereThenPersonal: a project on another machine is read there
// (LoadProject) and the person's commands added here (WithPersonal): with skills it is what
// Load gives on one machine, the project's names first; without, the person's skills are
// left out (their files are not where the conversation's tools run) and their commands kept.
func TestProjectReadElsewhereThenPersonal(t *testing.T) {
	dir := fixture(t)
	personal := t.TempDir()
	writeFile(t, filepath.Join(personal, "commands", "mine.md"), "my own command")
	writeFile(t, filepath.Join(personal, "commands", "review.md"), "shadowed by the project's")
	writeFile(t, filepath.Join(personal, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: my notes\n---\n")

	project := LoadProject(dir)
	if _, ok := project.Command("mine"); ok || len(project.Commands) == 0 {
		t.Fatalf("the project's reading holds %d commands, mine among them: %v", len(project.Commands), ok)
	}
	whole, want := WithPersonal(project, []string{personal}, true), Load(dir, []string{personal})
	if fmt.Sprint(whole) != fmt.Sprint(want) {
		t.Fatalf("LoadProject + WithPersonal differs from Load:\n%v\n%v", whole, want)
	}
	if r, _ := whole.Command("review"); r.Label == "personal "+filepath.Join(personal, "commands") {
		t.Fatalf("the person's /review took precedence over the project's")
	}
	remote := WithPersonal(project, []string{personal}, false)
	if _, ok := remote.Command("mine"); !ok {
		t.Fatalf("the person's command is missing: %v", remote.Commands)
	}
	if slices.Contains(remote.SkillNames(), "notes") || !slices.Contains(whole.SkillNames(), "notes") {
		t.Fatalf("skills: with the person's %v, without %v", whole.SkillNames(), remote.SkillNames())
	}
	if !slices.Equal(remote.SkillNames(), project.SkillNames()) {
		t.Fatalf("the project's skills changed: %v, want %v", remote.SkillNames(), project.SkillNames())
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
