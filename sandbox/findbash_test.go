//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFindBashLooksAgainWhenMoved: the supervisor keeps where it found bash, and looks again
// in PATH once that file is gone.
func TestFindBashLooksAgainWhenMoved(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	t.Setenv("PATH", first+string(os.PathListSeparator)+second)
	defer foundBash.Store(nil)
	foundBash.Store(nil)
	write := func(dir string) string {
		p := filepath.Join(dir, "bash")
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inFirst := write(first)
	if got, err := findBash(); err != nil || got != inFirst {
		t.Fatalf("findBash() = %q, %v; want %q", got, err, inFirst)
	}
	inSecond := write(second)
	if got, err := findBash(); err != nil || got != inFirst {
		t.Fatalf("findBash() = %q, %v; want the kept %q", got, err, inFirst)
	}
	if err := os.Remove(inFirst); err != nil {
		t.Fatal(err)
	}
	if got, err := findBash(); err != nil || got != inSecond {
		t.Fatalf("after the first bash went away, findBash() = %q, %v; want %q", got, err, inSecond)
	}
	if err := os.Remove(inSecond); err != nil {
		t.Fatal(err)
	}
	if got, err := findBash(); err == nil {
		t.Fatalf("with no bash in PATH, findBash() = %q; want an error", got)
	}
}
