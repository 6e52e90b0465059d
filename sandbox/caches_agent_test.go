//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// A go first on PATH inside a tree that Project-mode commands write (a project's folder on
// PATH, as direnv leaves it) is never run outside the sandbox to ask where Go's caches are.
func TestGoInAProjectTreeIsNotAskedForCaches(t *testing.T) {
	tree := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	bin := filepath.Join(tree, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	fake := "#!/bin/sh\ntouch " + marker + "\necho /tmp/x\necho /tmp/y\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	reset := func() {
		goCacheDirs.Lock()
		goCacheDirs.asked = ""
		goCacheDirs.Unlock()
	}
	reset()
	t.Cleanup(reset)
	// Before any Project command wrote the tree, its go is as good as any (the control: the
	// fake runs, so the check below can fail).
	if env := goEnvCaches(); env["GOCACHE"] != "/tmp/x" {
		t.Fatalf("the fake go was not asked: %v", env)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	reset()
	agentTrees.note(tree)
	t.Cleanup(func() {
		agentTrees.mu.Lock()
		agentTrees.trees = nil
		agentTrees.mu.Unlock()
	})
	if env := goEnvCaches(); env != nil {
		t.Errorf("caches from the project's go: %v", env)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the project's go ran outside the sandbox")
	}
}
