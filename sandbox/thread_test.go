//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// statusFields reads the named fields of a /proc/.../status text.
func statusFields(status string, names ...string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(status, "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, n := range names {
			if name == n {
				out[n] = strings.TrimSpace(value)
			}
		}
	}
	return out
}

// TestOnlyTheCommandIsRestricted_REQ_BED_014: the supervisor restricts one thread of its own
// to start bash from it, and that thread is gone before the script runs. So bash has the
// whole policy, and every thread the supervisor still has is exactly as unrestricted as the
// app: no seccomp filter, no no_new_privs, its capabilities.
func TestOnlyTheCommandIsRestricted_REQ_BED_014(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	forEachView(t, func(t *testing.T, view bool) { checkOnlyTheCommandIsRestricted(t, view) })
}

func checkOnlyTheCommandIsRestricted(t *testing.T, view bool) {
	self, err := os.ReadFile("/proc/thread-self/status")
	if err != nil {
		t.Fatal(err)
	}
	fields := []string{"Seccomp", "NoNewPrivs", "CapEff", "CapPrm", "CapBnd"}
	app := statusFields(string(self), fields...)
	script := `echo "== bash"; cat /proc/$$/status
for t in /proc/$PPID/task/*; do echo "== supervisor thread ${t##*/}"; cat "$t/status"; done`
	r := runScript(t, Policy{TempDir: t.TempDir()}, t.TempDir(), os.Environ(), script)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	sections := strings.Split(r.stdout, "== ")[1:]
	if len(sections) < 2 {
		t.Fatalf("expected bash and at least one supervisor thread, got:\n%s", r.stdout)
	}
	bash := statusFields(sections[0], fields...)
	want := map[string]string{"Seccomp": "2", "NoNewPrivs": "1", "CapEff": "0000000000000000", "CapPrm": "0000000000000000"}
	if app["CapEff"] != "0000000000000000" || view {
		// Only a process with capabilities can empty its bounding set; in the mount view
		// the supervisor has them, in its own user namespace.
		want["CapBnd"] = "0000000000000000"
	}
	for k, v := range want {
		if bash[k] != v {
			t.Errorf("bash %s is %q, want %q", k, bash[k], v)
		}
	}
	for _, sec := range sections[1:] {
		name, _, _ := strings.Cut(sec, "\n")
		got := statusFields(sec, fields...)
		for _, k := range fields {
			if view && strings.HasPrefix(k, "Cap") {
				// In the mount view the supervisor holds every capability of its own user
				// namespace, which reaches nothing outside it; bash has none (checked above).
				continue
			}
			if got[k] != app[k] {
				t.Errorf("%s: %s is %q, the app's is %q", name, k, got[k], app[k])
			}
		}
	}
	t.Logf("bash %v; %d supervisor threads like the app %v", bash, len(sections)-1, app)
}

// TestRestrictedCommandLooksUnrestricted: the way the restricted command is started (a gate
// that waits, then exec) leaves no trace in what bash sees: the same $0, arguments, shell
// level and environment as an unrestricted run, apart from the temp-dir variables, including
// a variable whose name is not a shell identifier and an exported bash function (dash as the
// gate would drop both).
func TestRestrictedCommandLooksUnrestricted(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "PHOENIX-ODD.NAME=kept", "SHLVL=3", "BASH_FUNC_phx_fn%%=() {  echo from-an-exported-function\n}")
	// The temp-dir variables and the shared caches' variables (caches.go) differ by design.
	script := `echo "$0 $# $SHLVL $-"; phx_fn; env | grep -v '^\(TMPDIR\|TMP\|TEMP\|TEMPDIR\|GOCACHE\|GOMODCACHE\|npm_config_cache\|PIP_CACHE_DIR\)=' | sort`
	restricted := runScript(t, Policy{TempDir: t.TempDir()}, dir, env, script)
	unrestricted := runScript(t, Policy{Unrestricted: true}, dir, env, script)
	if restricted.stdout != unrestricted.stdout || restricted.code != 0 || unrestricted.code != 0 {
		t.Errorf("restricted (exit %d):\n%s\nunrestricted (exit %d):\n%s", restricted.code, restricted.stdout, unrestricted.code, unrestricted.stdout)
	}
	if !strings.Contains(restricted.stdout, "PHOENIX-ODD.NAME=kept") || !strings.Contains(restricted.stdout, "from-an-exported-function") {
		t.Errorf("the odd variable or the exported function did not arrive:\n%s", restricted.stdout)
	}
}

// TestCommandDiesWithItsSupervisor: should the supervisor itself be killed (the app's
// WaitDelay ran out), bash does not run on unsupervised.
func TestCommandDiesWithItsSupervisor(t *testing.T) {
	for name, p := range policies(t) {
		t.Run(name, func(t *testing.T) {
			if !p.Unrestricted && pdeathsigSetpriv() == "" {
				t.Skip("no setpriv with --pdeathsig: a restricted bash does not get a parent-death signal")
			}
			pidFile := filepath.Join(p.TempDir, "pid")
			cmd, err := Command(context.Background(), p, `echo $$ > "$PIDF"; exec sleep 100`)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = append(os.Environ(), "PIDF="+pidFile)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var pid int
			deadline := time.Now().Add(20 * time.Second)
			for pid == 0 {
				b, _ := os.ReadFile(pidFile)
				if pids := parsePIDs(string(b)); len(pids) == 1 {
					pid = hostPIDs(t, pids)[0]
				}
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("the command did not start")
				}
				// Poll the file the command writes; there is no event to wait on.
				time.Sleep(2 * time.Millisecond)
			}
			t.Cleanup(func() { _ = unix.Kill(pid, unix.SIGKILL) })
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			var exit *exec.ExitError
			if err := cmd.Wait(); !errors.As(err, &exit) {
				t.Fatalf("Wait: %v", err)
			}
			for {
				if state := procState(pid); state == "" || state == "Z" {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("bash (%d) outlived its supervisor", pid)
				}
				// Wait for the kernel to deliver the parent-death signal.
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
}

// TestThreadOfItsOwnIsNeverTheMainThread: the thread startRestricted restricts ends when its
// function returns, and is never the main thread, which the runtime would keep (parked, but
// restricted) instead of ending. The check runs in a fresh copy of the test binary, whose
// main goroutine calls onThreadOfItsOwn unlocked on the main thread, so that the new
// goroutine starts there and the main thread has to be held meanwhile.
func TestThreadOfItsOwnIsNeverTheMainThread(t *testing.T) {
	held := false
	for i := 0; i < 5; i++ {
		out, err := exec.Command(os.Args[0], threadOfItsOwnArg).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var mainTID, fnTID, marked, heldCount int
		var gone, kept string
		line := strings.TrimSpace(string(out))
		if _, err := fmt.Sscanf(line, "main=%d fn=%d gone=%s marked=%d main-comm-kept=%s held=%d",
			&mainTID, &fnTID, &gone, &marked, &kept, &heldCount); err != nil {
			t.Fatalf("unexpected output %q: %v", line, err)
		}
		if fnTID == mainTID || gone != "<nil>" || marked != 0 || kept != "true" {
			t.Fatalf("the function's thread was not a thread of its own that ended: %s", line)
		}
		held = held || heldCount > 0
	}
	if !held {
		t.Errorf("the goroutine never started on the main thread, so holding it was not exercised")
	}
}

// TestWaitThreadGoneWaitsForTheEndOnItsPidfd: the gate that lets a Restricted command run
// opens only once the thread that forked it is gone, and where the kernel gives a pidfd for
// one thread (Linux 6.9) that end is waited for on it, not polled: a poll's pauses grow to
// a millisecond, and on a busy machine each one woke late (issue 39).
func TestWaitThreadGoneWaitsForTheEndOnItsPidfd(t *testing.T) {
	probe, err := unix.PidfdOpen(unix.Gettid(), pidfdThread)
	if err != nil {
		t.Skipf("no pidfd for a thread here (Linux 6.9): %v", err)
	}
	unix.Close(probe)
	release := make(chan struct{})
	tids := make(chan int, 1)
	// As the restricting thread is made: one that ends with its function.
	onThreadOfItsOwn(func() {
		tids <- unix.Gettid()
		<-release
	})
	tid := <-tids
	var released atomic.Bool
	waiter := make(chan int, 1)
	type result struct {
		err      error
		released bool
		alive    error
	}
	done := make(chan result, 1)
	before := threadWaitPolls.Load()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		waiter <- unix.Gettid()
		err := waitThreadGone(tid)
		done <- result{err, released.Load(), unix.Tgkill(unix.Getpid(), tid, 0)}
	}()
	// The thread is let go only once the waiter sleeps, so that the wait is for a thread
	// that was alive when it began.
	stat := fmt.Sprintf("/proc/self/task/%d/stat", <-waiter)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && strings.HasPrefix(string(b[i+1:]), " S") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the waiter never slept: %s", b)
		}
		runtime.Gosched()
	}
	released.Store(true)
	close(release)
	r := <-done
	switch {
	case r.err != nil:
		t.Fatal(r.err)
	case !r.released:
		t.Fatal("waitThreadGone returned while the thread was still running")
	case !errors.Is(r.alive, unix.ESRCH):
		t.Fatalf("waitThreadGone returned but thread %d still exists (%v)", tid, r.alive)
	}
	if n := threadWaitPolls.Load() - before; n != 0 {
		t.Errorf("the wait polled %d times; it should have waited on the thread's pidfd", n)
	}
}
