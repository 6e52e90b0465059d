//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
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
