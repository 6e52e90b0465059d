//go:build linux

package mcp

import (
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExitNoteLooksWithoutReaping: how an ended child ended is told without reaping it, so
// that the Wait of whoever started it still gets its status; a running child tells nothing.
func TestExitNoteLooksWithoutReaping(t *testing.T) {
	for _, c := range []struct {
		script, want string
		kill         bool
	}{
		{"exit 3", "exit status 3", false},
		{"exec sleep 30", "signal: SIGKILL", true},
	} {
		cmd := exec.Command("sh", "-c", c.script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if c.kill {
			if got := exitNote(cmd.Process); got != "" {
				t.Errorf("a running process is described as %q", got)
			}
			_ = cmd.Process.Kill()
		}
		// Block until it has ended, still without reaping it.
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
			t.Fatal(err)
		}
		if got := exitNote(cmd.Process); got != c.want {
			t.Errorf("%q: exitNote = %q, want %q", c.script, got, c.want)
		}
		err := cmd.Wait()
		if cmd.ProcessState == nil || err == nil {
			t.Errorf("%q: Wait found no status after exitNote looked (%v)", c.script, err)
		}
	}
}
