//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The kept listings never hide a repository: whatever a command makes in a directory whose
// listing was kept moves that directory's change time, so it is read again. racyWindow 0
// keeps every listing, as for a tree whose directories changed long ago.
func TestKeptListingsSeeEveryNewRepository(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0
	tree := t.TempDir()
	for _, d := range []string{"node_modules/a/b", "node_modules/c", "src/x", "plain"} {
		if err := os.MkdirAll(filepath.Join(tree, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(findGitDirs(tree)); n != 0 {
		t.Fatalf("%d repositories in a tree without any", n)
	}
	// Ways of making one, each in a directory whose listing is kept.
	steps := []func() error{
		func() error { return os.Mkdir(filepath.Join(tree, "node_modules", "a", "b", ".git"), 0o755) },
		func() error {
			return os.WriteFile(filepath.Join(tree, "src", "x", ".git"), []byte("gitdir: /elsewhere\n"), 0o644)
		},
		func() error {
			if err := os.Mkdir(filepath.Join(tree, "node_modules", "c", "y"), 0o755); err != nil {
				return err
			}
			return os.Rename(filepath.Join(tree, "node_modules", "c", "y"), filepath.Join(tree, "node_modules", "c", ".GIT"))
		},
		func() error {
			for _, d := range []string{"objects", "refs"} {
				if err := os.Mkdir(filepath.Join(tree, "plain", d), 0o755); err != nil {
					return err
				}
			}
			return os.WriteFile(filepath.Join(tree, "plain", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		},
	}
	for i, step := range steps {
		findGitDirs(tree) // keep the listings as they are
		if err := step(); err != nil {
			t.Fatal(err)
		}
		if n := len(findGitDirs(tree)); n != i+1 {
			t.Fatalf("after step %d: %d repositories found, want %d", i+1, n, i+1)
		}
	}
}
