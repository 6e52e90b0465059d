package custom

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// PersonRunner runs the person's own hooks as the person, without the sandbox: they are
// programs the person configured, like their shell's. It runs `bash -c` in its own process
// group, and the end of ctx kills the whole group.
type PersonRunner struct {
	// Dir is the working directory; Env the whole environment (nil: the app's).
	Dir string
	Env []string
}

// Run implements Runner.
func (p PersonRunner) Run(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (int, error) {
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// A background process the hook left holding its output must not hold the turn.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ctx.Err() != nil {
			// Killed at the deadline: the group may hold more than the shell.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		if st, ok := exit.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return 128 + int(st.Signal()), ctx.Err()
		}
		return exit.ExitCode(), ctx.Err()
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		return cmd.ProcessState.ExitCode(), nil
	}
	return 0, err
}

// Env is the environment of a hook: the given one with the project directory named as
// Phoenix Desktop and Claude Code name it, so that hook scripts written for Claude Code
// ("$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh) find their files.
func Env(base []string, cwd string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if hasKey(kv, "PHOENIX_PROJECT_DIR") || hasKey(kv, "CLAUDE_PROJECT_DIR") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "PHOENIX_PROJECT_DIR="+cwd, "CLAUDE_PROJECT_DIR="+cwd)
}

func hasKey(kv, key string) bool {
	return len(kv) > len(key) && kv[:len(key)] == key && kv[len(key)] == '='
}
