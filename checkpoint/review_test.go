package checkpoint

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestProjectHeadAndForeignReads: a folder outside any repository has no HEAD; a repository
// with no commit has the empty tree; a sub-folder of a committed repository has its own
// tree, which the shadow repository reads and diffs through the project's objects, and a
// tree made with one file replaced differs from the snapshot in that file only.
func TestProjectHeadAndForeignReads(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	outside := t.TempDir()
	if _, _, err := ProjectHead(ctx, outside); !errors.Is(err, ErrNotGit) {
		t.Fatalf("a folder outside a repository: %v, want ErrNotGit", err)
	}
	proj := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = proj
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	sub := filepath.Join(proj, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if tree, _, err := ProjectHead(ctx, sub); err != nil || tree != EmptyTree {
		t.Fatalf("no commit yet: %q %v, want the empty tree", tree, err)
	}
	for name, text := range map[string]string{"a.txt": "a\n", "b.txt": "b\n"} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-qm", "one")
	head, objects, err := ProjectHead(ctx, sub)
	if err != nil || head == EmptyTree || !strings.HasSuffix(objects, filepath.Join(".git", "objects")) {
		t.Fatalf("ProjectHead = %q %q %v", head, objects, err)
	}
	if err := os.WriteFile(filepath.Join(sub, "a.txt"), []byte("a changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(ctx, filepath.Join(t.TempDir(), "shadow.git"), sub)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	now, err := repo.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := repo.DiffTrees(ctx, objects, head, now)
	if err != nil || !strings.Contains(diff, "-a\n+a changed\n") || strings.Contains(diff, "b.txt") {
		t.Fatalf("diff against HEAD: %v\n%s", err, diff)
	}
	if _, err := repo.DiffTrees(ctx, "", head, now); err == nil {
		t.Fatal("the shadow repository read the project's objects without being given them")
	}
	f, err := repo.ReadFile(ctx, objects, head, "a.txt")
	if err != nil || string(f.Content) != "a\n" || f.Mode != "100644" {
		t.Fatalf("a.txt at HEAD: %+v %v", f, err)
	}
	if f, err := repo.ReadFile(ctx, "", now, "missing.txt"); err != nil || f.Mode != "" {
		t.Fatalf("a file the tree does not hold: %+v %v", f, err)
	}
	back, err := repo.WithFile(ctx, now, "a.txt", f)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := repo.Changes(ctx, now, back)
	if err != nil || len(ch) != 1 || ch[0] != (Change{Path: "a.txt", Status: Modified}) {
		t.Fatalf("WithFile changed %+v, %v", ch, err)
	}
	gone, err := repo.WithFile(ctx, now, "b.txt", File{})
	if err != nil {
		t.Fatal(err)
	}
	if ch, err := repo.Changes(ctx, now, gone); err != nil || len(ch) != 1 || ch[0].Status != Deleted {
		t.Fatalf("WithFile removing b.txt: %+v, %v", ch, err)
	}
}
