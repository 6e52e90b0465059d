//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNextCommandStartsFromAThreadRestrictedAhead: in the mount view a long-lived supervisor
// restricts a thread for the next command as soon as it has answered one, and a command
// with the same policy starts from it; a command of another conversation (another temp dir)
// does not, and gets its own temp dir's rules, not the last one's: it writes its own temp
// dir and cannot write the other's.
func TestNextCommandStartsFromAThreadRestrictedAhead(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	a, b := t.TempDir(), t.TempDir()
	run := func(dir, script string) int {
		t.Helper()
		code, err := Run(context.Background(), Policy{TempDir: dir}, script, RunOptions{Env: append(os.Environ(), "A="+a, "B="+b)})
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		return code
	}
	ahead := func() int64 { return startedAhead.Load() }

	run(a, "true")
	before := ahead()
	if code := run(a, `echo a > "$A/mine"`); code != 0 {
		t.Fatalf("a command could not write its own temp dir: exit %d", code)
	}
	if got := ahead(); got != before+1 {
		t.Fatalf("the second command of a conversation started from a thread restricted ahead %d times; want 1", got-before)
	}

	// Another conversation: the thread restricted for a's policy must not serve it.
	before = ahead()
	if code := run(b, `echo b > "$B/mine" && ! echo b 2>/dev/null > "$A/theirs"`); code != 0 {
		t.Fatalf("a command of another conversation could not write its own temp dir, or could write the last one's: exit %d", code)
	}
	if got := ahead(); got != before {
		t.Fatalf("a command with another temp dir started from the thread restricted for the last one")
	}
	if _, err := os.Stat(filepath.Join(a, "theirs")); err == nil {
		t.Fatalf("a command wrote another conversation's temp dir")
	}
	if code := run(b, `echo b >> "$B/mine" && ! echo b 2>/dev/null > "$A/theirs"`); code != 0 {
		t.Fatalf("the next command of that conversation could not write its temp dir, or could write the other's: exit %d", code)
	}
	if got := ahead(); got != before+1 {
		t.Fatalf("the next command of the new conversation did not start from a thread restricted ahead")
	}
}

// TestNextProjectCommandStartsFromAThreadRestrictedAhead: in Project mode too the next
// command of a conversation starts from a thread restricted ahead, with every wall: it
// writes the tree and its own temp dir, not a protected file nor a place outside. When the
// tree is replaced at its path (a new directory there, the old one moved aside), the thread
// restricted for the old one — whose rules hold the old directory — is not used: the next
// command writes the new tree.
func TestNextProjectCommandStartsFromAThreadRestrictedAhead(t *testing.T) {
	f := newProjectFixture(t)
	tmp := t.TempDir()
	run := func(script string) int {
		t.Helper()
		var errb strings.Builder
		code, err := Run(context.Background(), Policy{TempDir: tmp, Project: &Project{Tree: f.tree}}, script,
			RunOptions{Dir: f.tree, Env: append(f.env, "T="+tmp, "TREE="+f.tree), Stderr: &errb})
		if err != nil {
			t.Fatalf("%q: %v (stderr %q)", script, err, errb.String())
		}
		return code
	}
	ahead := func() int64 { return startedAhead.Load() }

	run("true")
	before := ahead()
	walls := `echo a >> "$TREE/main.go" && echo t > "$T/mine" &&
! echo x 2>/dev/null >> "$TREE/.git/config" && ! echo x 2>/dev/null > "$OUT/keep.txt"`
	if code := run(walls); code != 0 {
		t.Fatalf("from a thread restricted ahead, a Project command could not write the tree or its temp dir, or could write a protected file or outside: exit %d", code)
	}
	if got := ahead(); got != before+1 {
		t.Fatalf("the second Project command started from a thread restricted ahead %d times; want 1", got-before)
	}
	if b, _ := os.ReadFile(filepath.Join(f.outside, "keep.txt")); string(b) != "outside\n" {
		t.Fatalf("a place outside changed: %q", b)
	}

	// The tree replaced at its path: a new directory, the old one moved aside.
	old := f.tree + ".old"
	if err := os.Rename(f.tree, old); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(old) })
	if err := os.Mkdir(f.tree, 0o755); err != nil {
		t.Fatal(err)
	}
	before = ahead()
	if code := run(`echo new > "$TREE/new.txt"`); code != 0 {
		t.Fatalf("after the tree was replaced, a command could not write the new tree: exit %d", code)
	}
	if got := ahead(); got != before {
		t.Fatalf("after the tree was replaced, a command started from the thread restricted for the old one")
	}
	if _, err := os.Stat(filepath.Join(old, "new.txt")); err == nil {
		t.Fatal("the command wrote the old tree")
	}
}
