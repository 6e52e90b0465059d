package hostexec

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestInsideTree(t *testing.T) {
	tree := t.TempDir()
	outside := t.TempDir()
	link := filepath.Join(outside, "tool")
	target := filepath.Join(tree, "node_modules", ".bin", "tool")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	treeLink := filepath.Join(outside, "project")
	if err := os.Symlink(tree, treeLink); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		target: true,
		link:   true, // a link outside to a program inside
		filepath.Join(tree, "..", filepath.Base(tree), "x"): true,
		tree + "-sibling/tool":                              false,
		"/usr/bin/git":                                      false,
		"node_modules/.bin/tool":                            true, // relative
	} {
		if got := InsideTree(tree, path); got != want {
			t.Errorf("InsideTree(%s) = %v, want %v", path, got, want)
		}
	}
	// The tree named through a link of its own.
	if !InsideTree(treeLink, target) {
		t.Error("a program inside a tree named by a link is not seen as inside")
	}
}

func TestLookPathPassesOverTheTree(t *testing.T) {
	tree := t.TempDir()
	bin := filepath.Join(tree, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := LookPath("sh", tree); !errors.Is(err, ErrInTree) {
		t.Errorf("LookPath(sh) with the tree first on PATH: %v, want ErrInTree", err)
	}
	if p, err := LookPath("sh", t.TempDir()); err != nil || p != filepath.Join(bin, "sh") {
		t.Errorf("LookPath(sh) for another tree: %q, %v", p, err)
	}
	if _, err := LookPath("no-such-program-here"); !errors.Is(err, exec.ErrNotFound) {
		t.Errorf("a missing program: %v", err)
	}
}
