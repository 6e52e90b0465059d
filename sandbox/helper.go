//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// MaybeRunHelper turns this process into the sandbox helper when it was started by Command,
// and never returns then. Otherwise it returns at once. main, and TestMain of every test
// package that runs commands, call it before anything else.
func MaybeRunHelper() {
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		return
	}
	// syscall.Exit, not os.Exit: the helper has nothing buffered to flush, and os.Exit runs
	// the runtime's exit hooks, which in a race-detector build pause for a second.
	syscall.Exit(runHelper(os.Args[2:]))
}

// Helper stages: the supervisor runs first; for a restricted command it starts the restrict
// stage, which restricts itself and becomes bash. Two processes, so that the supervisor stays
// outside the sandbox: the sandboxed command can neither signal it (Landlock scoping) nor
// trace it (Landlock and seccomp), and so cannot escape the final sweep.
const (
	stageSupervise = ""
	stageRestrict  = "restrict"
)

// runHelper returns the exit status for os.Exit; the restrict stage returns only on failure.
func runHelper(args []string) int {
	if len(args) != 2 {
		return setupFailed(fmt.Errorf("expected a policy and a script, got %d arguments", len(args)))
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return setupFailed(fmt.Errorf("decode the policy: %w", err))
	}
	switch cfg.Stage {
	case stageSupervise:
		return supervise(cfg, args[1])
	case stageRestrict:
		return restrictAndExec(cfg, args[1])
	}
	return setupFailed(fmt.Errorf("unknown helper stage %q", cfg.Stage))
}

// supervise runs the command as its child and, whatever happens, leaves no process behind.
func supervise(cfg helperConfig, script string) int {
	// Catch the stop request first: a stop that arrives during set-up is then handled after
	// the child has started, by the same sweep as any other.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)

	// Orphaned descendants (a command's children after it exits, and whatever left the
	// process group with setsid) are reparented to the helper instead of init, so the sweep
	// below finds every one of them.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return setupFailed(fmt.Errorf("become a child subreaper: %w", err))
	}
	if err := closeInheritedFiles(); err != nil {
		return setupFailed(err)
	}
	path, argv := "", []string{"bash", "-c", script}
	if cfg.Restricted {
		next, err := json.Marshal(helperConfig{Stage: stageRestrict, Restricted: true, TempDir: cfg.TempDir})
		if err != nil {
			return setupFailed(fmt.Errorf("encode the policy: %w", err))
		}
		// /proc/self/exe is this very binary even if the file on disk was replaced since.
		path, argv = "/proc/self/exe", []string{os.Args[0], HelperArg, string(next), script}
	} else {
		bash, err := exec.LookPath("bash")
		if err != nil {
			return setupFailed(fmt.Errorf("find bash: %w", err))
		}
		path = bash
	}
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		// A process group of its own, so one kill reaches bash and its ordinary children.
		// Should the helper itself be killed (the app's WaitDelay ran out), bash goes too.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return setupFailed(fmt.Errorf("start bash: %w", err))
	}

	exited := make(chan unix.WaitStatus, 1)
	go func() {
		var ws unix.WaitStatus
		for {
			_, err := unix.Wait4(pid, &ws, 0, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil {
				exited <- ws
			}
			// ECHILD: the sweep reaped bash first, which happens only after a stop request.
			return
		}
	}()

	status := 128 + int(syscall.SIGKILL)
	select {
	case ws := <-exited:
		status = exitStatus(ws)
	case <-stop:
	}
	// Whether bash finished or we were told to stop, nothing it started outlives it:
	// background jobs do not carry over between tool calls.
	sweep(pid)
	return status
}

// restrictAndExec applies the Restricted policy to this process and replaces it with bash.
func restrictAndExec(cfg helperConfig, script string) int {
	if !cfg.Restricted || cfg.TempDir == "" {
		return setupFailed(errors.New("the restrict stage needs a restricted policy with a temp dir"))
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return setupFailed(fmt.Errorf("find bash: %w", err))
	}
	// Stay on one thread from here to execve: the capabilities are dropped for this thread
	// only (see dropCapabilities), and the exec must come from it.
	runtime.LockOSThread()
	if err := restrictSelf(cfg.TempDir); err != nil {
		return setupFailed(err)
	}
	err = syscall.Exec(bash, []string{"bash", "-c", script}, withTempDir(os.Environ(), cfg.TempDir))
	return setupFailed(fmt.Errorf("run bash: %w", err))
}

// sweep SIGKILLs bash's process group and then, until the helper has no children left, every
// child it has — which, because it is a subreaper, includes every orphaned descendant — and
// reaps them. Killing a generation orphans the next one onto the helper, so each round
// reaches deeper until nothing is left.
func sweep(bashPID int) {
	// bash's pid stays reserved as a group id while any member lives, so this cannot hit an
	// unrelated group.
	_ = unix.Kill(-bashPID, unix.SIGKILL)
	for {
		for _, child := range children() {
			_ = unix.Kill(child, unix.SIGKILL)
		}
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.ECHILD) {
			return
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			// Wait4(-1) fails only with ECHILD or EINTR; anything else means the kernel
			// refuses to tell us, and looping would spin.
			fmt.Fprintf(os.Stderr, "phoenix sandbox: reaping the command's processes failed: %v\n", err)
			return
		}
	}
}

// children lists the helper's direct children. /proc/self/task/*/children is exact and cheap;
// kernels built without CONFIG_PROC_CHILDREN lack it, and then every process's stat is read.
func children() []int {
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	if len(tasks) > 0 {
		var out []int
		for _, t := range tasks {
			b, err := os.ReadFile(t)
			if err != nil {
				continue // the thread exited meanwhile
			}
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
		}
		return out
	}
	return childrenByScan(os.Getpid())
}

func childrenByScan(parent int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name in parentheses may contain spaces; the fields after its
		// closing parenthesis are "state ppid ...".
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(parent) {
			out = append(out, pid)
		}
	}
	return out
}

func exitStatus(ws unix.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 128 + int(syscall.SIGKILL)
}

// closeInheritedFiles marks every descriptor above stderr close-on-exec, so that a file the
// app (or a C library in it) opened without O_CLOEXEC cannot reach bash: Landlock checks
// opening, not the use of a descriptor opened before.
func closeInheritedFiles() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("mark inherited files close-on-exec: %w", err)
	}
	// Kernels before 5.11: walk the descriptor table instead.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return fmt.Errorf("list inherited files: %w", err)
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
	return nil
}

// withTempDir points the temp-dir variables at the private directory, replacing any value
// inherited from the app.
func withTempDir(env []string, dir string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TMPDIR", "TMP", "TEMP", "TEMPDIR":
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+dir, "TMP="+dir, "TEMP="+dir)
}

func setupFailed(err error) int {
	fmt.Fprintf(os.Stderr, "phoenix sandbox: %v\n", err)
	return ExitSetupFailed
}
