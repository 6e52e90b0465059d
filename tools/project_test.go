package tools

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// The one mapping from mode to sandbox policy (issue 24): what bash and the MCP servers are
// handed for each mode. A missing or unknown mode is Restricted, never looser.
func TestSandboxPolicy_REQ_BED_014(t *testing.T) {
	cases := []struct {
		mode domain.Mode
		want sandbox.Policy
	}{
		{domain.ModeRestricted, sandbox.Policy{TempDir: "/tmp/c"}},
		{"", sandbox.Policy{TempDir: "/tmp/c"}},
		{"sandboxed-v9", sandbox.Policy{TempDir: "/tmp/c"}},
		{domain.ModeProject, sandbox.Policy{TempDir: "/tmp/c", Project: &sandbox.Project{Tree: "/src/app", ProxySocket: "/run/p.sock"}}},
		{domain.ModeUnrestricted, sandbox.Policy{TempDir: "/tmp/c", Unrestricted: true}},
	}
	for _, c := range cases {
		got := SandboxPolicy(Env{Cwd: "/src/app", Mode: c.mode, TempDir: "/tmp/c", ProxySocket: "/run/p.sock"})
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("mode %q: policy %+v (project %+v); want %+v", c.mode, got, got.Project, c.want)
		}
	}
	// Without a proxy the Project policy has no network at all.
	if p := SandboxPolicy(Env{Cwd: "/src/app", Mode: domain.ModeProject, TempDir: "/t"}); p.Project == nil || p.Project.ProxySocket != "" {
		t.Errorf("project without a proxy: %+v", p.Project)
	}
}

func TestProtectedInTree(t *testing.T) {
	tree := "/src/app"
	for path, want := range map[string]bool{
		"/src/app/main.go":               false,
		"/src/app/.git/hooks/pre-commit": true,
		"/src/app/.git/hooks":            true,
		"/src/app/.git/config":           true,
		"/src/app/.git":                  true, // a pointer file here would move the repository
		"/src/app/.git/objects/ab/cd":    false,
		"/src/app/.git/index":            false,
		"/src/app/.gitmodules":           true,
		"/src/app/.vscode/settings.json": true,
		"/src/app/.envrc":                true,
		"/src/app/sub/.envrc":            false, // the patterns are relative to the tree's root
		"/src/app/.gitignore":            false,
		"/src/app/.githooks":             false,
		"/src/app":                       false,
	} {
		if got := protectedInTree(tree, path, ProtectedPatterns); got != want {
			t.Errorf("protectedInTree(%s) = %v; want %v", path, got, want)
		}
	}
	if protectedInTree(tree, "/src/app/build.sh", []string{"build.sh"}) != true {
		t.Error("the patterns are a parameter: a pattern given is honoured")
	}
}

// patch in Project mode writes inside the tree, never outside it (also through a symbolic
// link) and never a protected file; Restricted refuses every write.
func TestPatchInProjectMode(t *testing.T) {
	tree := t.TempDir()
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(tree, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tree, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tree, ".git", "hooks"), filepath.Join(tree, "hooks")); err != nil {
		t.Fatal(err)
	}
	env := Env{Cwd: tree, Mode: domain.ModeProject, TempDir: t.TempDir()}
	create := op{"operation": "overwrite", "new_text": "new\n"}

	if out := runPatch(t, env, "pkg/main.go", create); out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("a file in the tree: %s", out.Content)
	}
	if got := readFile(t, filepath.Join(tree, "pkg", "main.go")); got != "new\n" {
		t.Fatalf("content %q", got)
	}
	refused := map[string]string{
		filepath.Join(outside, "new.txt"): "outside the working tree",
		"../escape.txt":                   "outside the working tree",
		"link":                            "outside the working tree",
		"outdir/new.txt":                  "outside the working tree",
		".git/hooks/pre-commit":           "protected file",
		"hooks/post-checkout":             "protected file",
		".git/config":                     "protected file",
		".vscode/tasks.json":              "protected file",
		".bashrc":                         "protected file",
		"sub/.git":                        "git repository",
		"sub/.GIT/config":                 "git repository",
		".git/info/exclude":               "git repository",
		"vendor/lib/.git/hooks/pre-push":  "git repository",
		"bare/config":                     "git repository",
		"half/refs/heads/main":            "git repository",
	}
	// A vendored repository, a bare one, and a directory a write would make a bare one.
	for _, d := range []string{"vendor/lib/.git/hooks", "bare/objects", "bare/refs", "half/objects"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"bare/HEAD", "half/HEAD"} {
		if err := os.WriteFile(filepath.Join(tree, f), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for path, why := range refused {
		out := runPatch(t, env, path, create)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, why) || !strings.Contains(out.Content, "Nothing was changed") {
			t.Errorf("%s: %s %q; want refused as %q", path, out.Outcome, out.Content, why)
		}
	}
	if got := readFile(t, filepath.Join(outside, "secret")); got != "x\n" {
		t.Errorf("the file behind the link changed: %q", got)
	}
	for _, p := range []string{filepath.Join(outside, "new.txt"), filepath.Join(tree, ".git", "hooks", "pre-commit"), filepath.Join(tree, ".bashrc")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// Unrestricted writes where it is asked to; Restricted writes nothing.
	if out := runPatch(t, Env{Cwd: tree, Mode: domain.ModeUnrestricted}, ".envrc", create); out.Outcome != domain.OutcomeSuccess {
		t.Errorf("unrestricted: %s", out.Content)
	}
	if out := runPatch(t, Env{Cwd: tree, Mode: domain.ModeRestricted}, "pkg/main.go", create); out.Outcome != domain.OutcomeError {
		t.Errorf("restricted: %s", out.Content)
	}
}
