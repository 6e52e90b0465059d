//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// isHelper reports whether this process was started by Command as the sandbox helper.
func isHelper() bool { return len(os.Args) > 1 && os.Args[1] == HelperArg }

// MaybeRunHelper turns this process into the sandbox helper when it was started by Command,
// and never returns then. Otherwise it returns at once. main, and TestMain of every test
// package that runs commands, call it before anything else.
func MaybeRunHelper() {
	if !isHelper() {
		return
	}
	// syscall.Exit, not os.Exit: the helper has nothing buffered to flush, and os.Exit runs
	// the runtime's exit hooks, which in a race-detector build pause for a second.
	syscall.Exit(runHelper(os.Args[2:]))
}

// runHelper returns the exit status for syscall.Exit.
func runHelper(args []string) int {
	if len(args) == 1 && (args[0] == serveMode || args[0] == serveViewMode || args[0] == serveProjectMode) {
		return serve(args[0] != serveMode, args[0] == serveProjectMode)
	}
	if len(args) != 2 {
		return setupFailed(fmt.Errorf("expected a policy and a script, got %d arguments", len(args)))
	}
	var cfg helperConfig
	if err := json.Unmarshal([]byte(args[0]), &cfg); err != nil {
		return setupFailed(fmt.Errorf("decode the policy: %w", err))
	}
	if cfg.Restricted && cfg.TempDir == "" {
		return setupFailed(errors.New("a restricted policy needs a temp dir"))
	}
	return supervise(cfg, args[1])
}

// becomeSupervisor prepares this process to supervise commands: it catches the stop signals
// (a stop that arrives during set-up is then handled after the child has started, by the same
// sweep as any other), becomes a child subreaper, so that orphaned descendants (a command's
// children after it exits, and whatever left the process group with setsid) are reparented
// to it instead of init and the sweep finds every one of them, and marks inherited files
// close-on-exec.
func becomeSupervisor() (<-chan os.Signal, error) {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return nil, fmt.Errorf("become a child subreaper: %w", err)
	}
	if err := closeInheritedFiles(); err != nil {
		return nil, err
	}
	return stop, nil
}

// supervise runs one command as its child and, whatever happens, leaves no process behind.
func supervise(cfg helperConfig, script string) int {
	var proxy *relay
	// The working directory this helper inherited names a directory of the mount view it is
	// about to leave behind: once the view is set up (the tree bound writable in Project
	// mode), the same path must be entered again, or the program would keep working in the
	// read-only tree beneath the binding.
	var enterAgain string
	if cfg.MountView {
		enterAgain, _ = os.Getwd()
		// Opened before anything is covered: the temp dir and the proxy's socket may lie
		// below a secret.
		dirFd, err := unix.Open(cfg.TempDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return setupFailed(fmt.Errorf("open the temp dir: %w", err))
		}
		proxyFd := -1
		if cfg.Project != nil && cfg.ProxySocket != "" {
			if proxyFd, err = unix.Open(cfg.ProxySocket, unix.O_PATH|unix.O_CLOEXEC, 0); err != nil {
				return setupFailed(fmt.Errorf("open the proxy's socket: %w", err))
			}
		}
		shm, err := setUpView()
		if err == nil {
			cfg.Shm = shm
			err = prepareView(cfg, dirFd)
			cfg.Mounted = writableTempDir.caches
		}
		unix.Close(dirFd)
		if err == nil && cfg.Project != nil {
			proxy, err = prepareProject(cfg, proxyFd)
		}
		if err != nil {
			return setupFailed(err)
		}
	}
	stop, err := becomeSupervisor()
	if err != nil {
		return setupFailed(err)
	}
	l := launch{files: [3]int{0, 1, 2}, dir: enterAgain, env: bashEnv()}
	if proxy != nil {
		l.env = withGitShim(proxy.proxyEnv(l.env), cfg.TempDir, cfg.Project.Tree)
	}
	pid, err := startCommand(cfg, script, l, func() bool {
		select {
		case <-stop:
			return true
		default:
			return false
		}
	}, nil)
	if err != nil {
		return setupFailed(err)
	}
	if pid == 0 {
		// Stopped during set-up: the command never ran.
		return 128 + int(syscall.SIGKILL)
	}
	status, _ := waitOrStop(pid, func(exited <-chan unix.WaitStatus) (unix.WaitStatus, bool) {
		select {
		case ws := <-exited:
			return ws, true
		case <-stop:
			return 0, false
		}
	})
	if cfg.Project != nil {
		// The program (an MCP server) has ended; its output is closed, so what was done
		// about it goes to the log.
		for _, n := range finishProject() {
			fmt.Fprintf(os.Stderr, "phoenix sandbox: %s\n", n)
		}
	}
	return status
}

// launch is where a command's standard files, working directory and environment come from.
type launch struct {
	files [3]int
	dir   string
	env   []string
}

// startCommand starts `bash -c script` under cfg. stopped is asked once the command exists
// but, if restricted, has not been let run: when it reports a stop, the command is swept
// and pid 0 returned. On error nothing is left running.
func startCommand(cfg helperConfig, script string, l launch, stopped func() bool, ahead *restrictedThread) (int, error) {
	bash, err := findBash()
	if err != nil {
		ahead.end()
		return 0, fmt.Errorf("find bash: %w", err)
	}
	if !cfg.Restricted {
		ahead.end()
		pid, err := syscall.ForkExec(bash, []string{"bash", "-c", script}, &syscall.ProcAttr{
			Dir:   l.dir,
			Env:   l.env,
			Files: []uintptr{uintptr(l.files[0]), uintptr(l.files[1]), uintptr(l.files[2])},
			// A process group of its own, so one kill reaches bash and its ordinary
			// children. Should the supervisor itself be killed, bash goes too.
			Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
		})
		if err != nil {
			return 0, startFailed(err, l.dir, canEnter)
		}
		return pid, nil
	}
	l.env = withCaches(withTempDir(l.env, cfg.TempDir), cfg.Caches, cfg.Mounted, cfg.TempDir)
	pid, release, err := startRestricted(cfg, bash, script, l, ahead)
	if err == nil && stopped() {
		sweep(pid)
		return 0, nil
	}
	if err == nil {
		err = release()
	}
	if err != nil {
		if pid > 0 {
			sweep(pid)
		}
		return 0, err
	}
	return pid, nil
}

// foundBash is where findBash found bash last.
var foundBash atomic.Pointer[string]

// findBash looks bash up in the supervisor's PATH, which is fixed when it starts, once: a
// look-up walks PATH with a stat for each entry, for every command. It looks again when
// the file is no longer there, so a bash that moved is still found.
func findBash() (string, error) {
	if p := foundBash.Load(); p != nil {
		if err := unix.Access(*p, unix.X_OK); err == nil {
			return *p, nil
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", err
	}
	foundBash.Store(&bash)
	return bash, nil
}

// waitOrStop waits for bash (pid) through wait, which returns bash's status and true when it
// exited, or false when the command is to be stopped; either way every process below the
// supervisor is then killed and reaped: background jobs do not carry over between commands.
// It returns the exit status to report and whether bash exited by itself.
func waitOrStop(pid int, wait func(exited <-chan unix.WaitStatus) (unix.WaitStatus, bool)) (int, bool) {
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
	ws, ok := wait(exited)
	if ok {
		status = exitStatus(ws)
	}
	sweep(pid)
	return status, ok
}

// gateScript is what the restricted command's process runs first: it waits for the
// supervisor's go-ahead on descriptor 3 (a line; end of file means the supervisor is gone or
// refused) and then execs its arguments, which are `bash -c script`, possibly behind
// setpriv(1) for the parent-death signal. It runs in bash --posix, which reads no startup
// file (not $BASH_ENV, which the command's own bash then reads once, as always) and, unlike
// dash, passes on environment variables whose names are not shell identifiers; exec keeps
// SHLVL as it was. "command" keeps a function imported from the environment from standing in
// for read.
const gateScript = `IFS= command read -r go <&3 || exit 125
exec 3<&-
exec "$@"`

// shellGate is the same gate without a process of its own, for a command that needs no
// parent-death signal (see startRestricted): bash sources it from descriptor 4 as its
// $BASH_ENV, the startup file a non-interactive bash reads before its -c command, so it
// costs no exec. It closes both of its descriptors and puts back the $BASH_ENV the command
// was given, which bash would have read at this point.
const shellGate = `IFS= command read -r _ <&3 || exit 125
exec 3<&- 4<&-
unset BASH_ENV
if [ -n "${` + savedBashEnv + `+set}" ]; then
	BASH_ENV=$` + savedBashEnv + `
	unset ` + savedBashEnv + `
	. "$BASH_ENV"
fi
`

// savedBashEnv holds the command's own $BASH_ENV while the shell gate stands in for it.
const savedBashEnv = "PHOENIX_SANDBOX_BASH_ENV"

// withShellGate points $BASH_ENV at the shell gate on descriptor 4, keeping the command's
// own value for the gate to restore.
//
// A bash at shell level 1 that sees SSH_CLIENT (or SSH2_CLIENT) takes itself for sshd's own
// shell (Debian builds bash so): it sources ~/.bashrc and skips $BASH_ENV, and so the gate —
// a command of a program sshd started through `exec`, which lowers SHLVL to 0, would run
// before its restrictions were complete. SHLVL is raised to at least 1, so bash counts
// itself a nested shell and always reads $BASH_ENV.
func withShellGate(env []string) []string {
	out := env[:0:0]
	level := false
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		switch name {
		case savedBashEnv:
			continue
		case "BASH_ENV":
			out = append(out, savedBashEnv+"="+value)
			continue
		case "SHLVL":
			if n, err := strconv.Atoi(strings.TrimSpace(value)); err != nil || n < 1 {
				continue
			}
			level = true
		}
		out = append(out, kv)
	}
	if !level {
		out = append(out, "SHLVL=1")
	}
	return append(out, "BASH_ENV=/dev/fd/4")
}

// threadExitTimeout bounds the wait for the restricting thread to end. It normally ends
// within microseconds of starting the command; the bound only turns a runtime surprise into
// a set-up failure instead of a hang.
const threadExitTimeout = 5 * time.Second

// startRestricted starts the restricted command without a second copy of this binary: a
// goroutine locks itself to an OS thread, restricts that thread alone (see
// threadPolicy.applyToThread) and starts the command from it, so that the command inherits
// the restrictions; then the goroutine returns without unlocking, and the runtime ends the
// thread. The supervisor's other threads are never restricted.
//
// The command must not run a single instruction of the script while the restricted thread
// still exists: that thread is in the command's Landlock domain, so the command could signal
// it, and a SIGKILL sent to any thread (kill(2) accepts a thread id) kills the whole
// supervisor, which would let setsid escapees outlive the sweep; it could also read the
// supervisor's memory through /proc/<pid>/task/<tid>. So the thread starts a bash running
// gateScript, which blocks on a pipe; the returned release function waits until the thread is
// gone and only then lets the gate exec bash. bash keeps the pid, process group and
// restrictions of the gate.
//
// A parent-death signal cannot be set when starting the gate, because it would fire when the
// restricting thread ends (it follows the parent thread, not the process); setpriv(1), when
// Command found one that can (cfg.Setpriv), sets it after the release instead. That costs
// two more program starts (the gate's bash and setpriv), so a command that needs no such
// signal — one on a long-lived supervisor, which sweeps it when the app ends or closes the
// socket — is gated inside its own bash instead (shellGate).
//
// ahead, when not nil, is a thread restricted before the command came (see
// restrictedThread); it is used when it was restricted for exactly cfg, and ended otherwise.
//
// On error the returned pid, if not zero, is a started gate the caller must sweep.
func startRestricted(cfg helperConfig, bash, script string, l launch, ahead *restrictedThread) (pid int, release func() error, err error) {
	t := ahead
	if t == nil || !t.fits(cfg) {
		t.end()
		if t, err = restrictThread(cfg); err != nil {
			return 0, nil, err
		}
	}
	var gate [2]int // read end for the gate, write end for the go-ahead
	if err := unix.Pipe2(gate[:], unix.O_CLOEXEC); err != nil {
		t.end()
		return 0, nil, fmt.Errorf("create the start pipe: %w", err)
	}
	defer unix.Close(gate[0])
	files := []uintptr{uintptr(l.files[0]), uintptr(l.files[1]), uintptr(l.files[2]), uintptr(gate[0])}
	argv := []string{"bash", "-c", script}
	if cfg.Setpriv != "" {
		argv = append([]string{"bash", "--posix", "-c", gateScript, "phoenix-sandbox", cfg.Setpriv, "--pdeathsig", "KILL", "--"}, argv...)
	} else {
		var text [2]int
		if err := unix.Pipe2(text[:], unix.O_CLOEXEC); err != nil {
			unix.Close(gate[1])
			t.end()
			return 0, nil, fmt.Errorf("create the gate pipe: %w", err)
		}
		defer unix.Close(text[0])
		// Far below a pipe's capacity, so this never blocks.
		_, err := unix.Write(text[1], []byte(shellGate))
		unix.Close(text[1])
		if err != nil {
			unix.Close(gate[1])
			t.end()
			return 0, nil, fmt.Errorf("write the gate: %w", err)
		}
		files = append(files, uintptr(text[0]))
		l.env = withShellGate(l.env)
	}
	attr := &syscall.ProcAttr{
		Dir:   l.dir,
		Env:   l.env,
		Files: files,
		// A session (and so a process group) of its own: one kill reaches bash and its
		// ordinary children, and no process of the command can join the supervisor's
		// group, which would let it signal the supervisor through the group (kill(0), or the
		// SIGHUP the kernel sends an orphaned group with a stopped member).
		Sys: &syscall.SysProcAttr{Setsid: true},
	}
	pid, err = t.fork(bash, argv, attr)
	if err != nil {
		unix.Close(gate[1])
		return pid, nil, err
	}
	release = func() error {
		defer unix.Close(gate[1])
		if err := waitThreadGone(t.tid); err != nil {
			return err
		}
		if _, err := unix.Write(gate[1], []byte("\n")); err != nil {
			return fmt.Errorf("let the command start: %w", err)
		}
		return nil
	}
	return pid, release, nil
}

// restrictedThread is an OS thread of the supervisor that has restricted itself for one
// command (capabilities dropped, no_new_privs, Landlock, the seccomp filter, in the mount
// view an IPC namespace of its own) and waits to fork it. A long-lived supervisor restricts
// one as soon as it has answered a command, for a next command with the same policy
// (serve), so that the restriction — most of a Restricted command's start — is done while
// nothing waits for it. It is as sound as restricting when the command comes: the thread
// forks exactly one command, from a Landlock domain of its own that no process shares
// before that fork, and ends before the command may run (startRestricted's gate); its
// rules name the files they allow by inode, so it is used only when the view's mounts have
// not changed since (viewEpoch) and the policy is the same, and ended unused otherwise.
type restrictedThread struct {
	cfg   helperConfig
	epoch uint64
	tid   int
	// orders carries the one fork; closing it ends the thread unused.
	orders chan forkOrder
	done   chan forkResult
	// ended says the thread forked or was ended; forked says it forked.
	ended, forked bool
}

type forkOrder struct {
	path string
	argv []string
	attr *syscall.ProcAttr
}

type forkResult struct {
	pid int
	err error
}

// restrictThread restricts a new thread for a command under cfg and returns it waiting for
// the fork.
func restrictThread(cfg helperConfig) (*restrictedThread, error) {
	policy, err := prepareThreadPolicy(cfg)
	if err != nil {
		return nil, err
	}
	defer policy.close()
	t := &restrictedThread{cfg: cfg, epoch: viewEpoch.Load(), orders: make(chan forkOrder, 1), done: make(chan forkResult, 1)}
	type restricted struct {
		tid int
		err error
	}
	ready := make(chan restricted, 1)
	onThreadOfItsOwn(func() {
		// Never unlocked (onThreadOfItsOwn locked it): when this function returns, the
		// runtime ends the thread, and its restrictions with it, instead of running other
		// goroutines on it.
		tid := unix.Gettid()
		listener, err := policy.applyToThread()
		if err != nil {
			ready <- restricted{tid, err}
			return
		}
		if listener >= 0 {
			// Served from now on by another thread, and closed once no process is under
			// the filter any more (this thread and the command tree, which the sweep
			// ends). The fork below copies the descriptor, but it is close-on-exec.
			tempDir := ""
			if !cfg.MountView {
				tempDir = cfg.TempDir
			}
			serveNotifications(listener, tempDir)
		}
		ready <- restricted{tid: tid}
		o, ok := <-t.orders
		if !ok {
			return
		}
		// Go forks on the calling thread, so the child inherits this thread's
		// credentials, no_new_privs and seccomp filter.
		pid, err := syscall.ForkExec(o.path, o.argv, o.attr)
		if err != nil {
			err = startFailed(err, o.attr.Dir, canEnter)
		}
		t.done <- forkResult{pid, err}
	})
	r := <-ready
	if r.err != nil {
		return nil, r.err
	}
	t.tid = r.tid
	return t, nil
}

// fits reports whether t was restricted for exactly cfg, with the view's mounts as they are.
func (t *restrictedThread) fits(cfg helperConfig) bool {
	return t.epoch == viewEpoch.Load() && reflect.DeepEqual(t.cfg, cfg)
}

// fork starts the command from the thread, which then ends.
func (t *restrictedThread) fork(path string, argv []string, attr *syscall.ProcAttr) (int, error) {
	t.ended, t.forked = true, true
	t.orders <- forkOrder{path, argv, attr}
	f := <-t.done
	return f.pid, f.err
}

// end ends an unused thread; nil and a thread that forked already are left as they are.
func (t *restrictedThread) end() {
	if t == nil || t.ended {
		return
	}
	t.ended = true
	close(t.orders)
}

// viewEpoch counts the changes of the mount view's mounts that a thread restricted ahead
// depends on (the temp dir's binding, the shared caches): its Landlock rules hold the
// directories that were mounted when it was restricted.
var viewEpoch atomic.Uint64

// mainThreadHeld counts how often onThreadOfItsOwn's goroutine started on the main thread;
// tests read it to know that path was taken.
var mainThreadHeld atomic.Int32

// onThreadOfItsOwn runs fn in a new goroutine locked to an OS thread that is not the main
// thread, and does not unlock it: the runtime ends such a thread when fn returns, but never
// the main thread (it parks it for good instead), so the main thread must not be the one fn
// restricts. Should the new goroutine start on the main thread, it keeps that thread busy
// while a second goroutine, which then cannot be scheduled there, runs fn; afterwards it
// hands the untouched main thread back.
func onThreadOfItsOwn(fn func()) {
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() != unix.Getpid() {
			fn()
			return
		}
		mainThreadHeld.Add(1)
		ran := make(chan struct{})
		go func() {
			defer close(ran)
			runtime.LockOSThread()
			fn()
		}()
		<-ran
		runtime.UnlockOSThread()
	}()
}

// waitThreadGone returns once the thread tid of this process no longer exists. Where the
// kernel gives a pidfd for one thread (PIDFD_THREAD, Linux 6.9), it waits for the thread's
// exit on it: the thread usually ends within microseconds of its fork, but on a busy
// machine it may wait for a core, and a poll then wakes late by up to its longest pause
// (and a first pause of 10 µs sleeps the timer slack's 50 µs more). Elsewhere, or should
// the pidfd report the end a moment before the thread leaves the thread list, it polls
// with a short, growing pause.
func waitThreadGone(tid int) error {
	deadline := time.Now().Add(threadExitTimeout)
	if fd, err := unix.PidfdOpen(tid, pidfdThread); err == nil {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, max(0, int(time.Until(deadline).Milliseconds())+1))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil && n == 0 {
				err = fmt.Errorf("the restricting thread %d did not end within %v", tid, threadExitTimeout)
			}
			unix.Close(fd)
			if err != nil {
				return err
			}
			break
		}
	} else if errors.Is(err, unix.ESRCH) {
		return nil
	}
	pid := unix.Getpid()
	pause := 10 * time.Microsecond
	for {
		err := unix.Tgkill(pid, tid, 0)
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check that the restricting thread has ended: %w", err)
		}
		threadWaitPolls.Add(1)
		if time.Now().After(deadline) {
			return fmt.Errorf("the restricting thread %d did not end within %v", tid, threadExitTimeout)
		}
		ts := unix.NsecToTimespec(pause.Nanoseconds())
		_ = unix.Nanosleep(&ts, nil)
		pause = min(2*pause, time.Millisecond)
	}
}

// threadWaitPolls counts the pauses waitThreadGone polled through; the tests read it to
// know the thread's end was waited for on its pidfd.
var threadWaitPolls atomic.Int64

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

// languageShimEnv marks a LANGUAGE variable that HelperEnv added for the helper's own start.
const languageShimEnv = "PHOENIX_SANDBOX_ADDED_LANGUAGE"

// HelperEnv prepares the environment of a helper process. Under a "C.UTF-8" locale the app
// binary's GUI toolkit logs a locale error to standard error while the process initialises,
// before MaybeRunHelper can run, and in the helper that standard error is the command's: the
// model would read the noise in every result. A LANGUAGE variable avoids it; HelperEnv adds
// one only when needed, marked so that the helper removes it again before bash starts, and
// the command sees the environment it was given.
func HelperEnv(env []string) []string {
	locale := ""
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := lookup(env, name); v != "" {
			locale = v
			break
		}
	}
	if lookup(env, "LANGUAGE") != "" || !strings.HasPrefix(locale, "C.") {
		return env
	}
	return append(slices.Clip(env), "LANGUAGE=en", languageShimEnv+"=1")
}

func lookup(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// bashEnv is the helper's environment without what HelperEnv added.
func bashEnv() []string {
	env := os.Environ()
	if os.Getenv(languageShimEnv) != "1" {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "LANGUAGE" || name == languageShimEnv {
			continue
		}
		out = append(out, kv)
	}
	return out
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
