//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// policies are the two ways a command runs; supervision must behave the same in both.
func policies(t *testing.T) map[string]Policy {
	ps := map[string]Policy{"unrestricted": {TempDir: t.TempDir(), Unrestricted: true}}
	if Probe().Available {
		ps["restricted"] = Policy{TempDir: t.TempDir()}
	}
	return ps
}

func TestExitStatusAndStreams(t *testing.T) {
	for name, p := range policies(t) {
		t.Run(name, func(t *testing.T) {
			cases := []struct {
				name, script, stdout, stderr string
				code                         int
			}{
				{"success", `echo out; echo err >&2`, "out\n", "err\n", 0},
				{"exit code", `echo partial; exit 3`, "partial\n", "", 3},
				{"killed by a signal", `kill -9 $$`, "", "", 128 + 9},
				{"command not found", `no-such-command-phoenix`, "", "no-such-command-phoenix: command not found", 127},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					r := runScript(t, p, t.TempDir(), os.Environ(), c.script)
					if r.code != c.code {
						t.Errorf("exit %d, want %d (stderr %q)", r.code, c.code, r.stderr)
					}
					if r.stdout != c.stdout {
						t.Errorf("stdout %q, want %q", r.stdout, c.stdout)
					}
					if !strings.Contains(r.stderr, c.stderr) {
						t.Errorf("stderr %q does not contain %q", r.stderr, c.stderr)
					}
				})
			}
		})
	}
}

// startTree starts a command that leaves a process tree behind: bash, a background job in
// its group, a job in a subshell, and a setsid escapee in a session of its own, through Run
// (a long-lived supervisor) or Command (a supervisor of its own). It returns the function
// that waits for the command, and the pids, once all of them have written their pid.
func startTree(t *testing.T, ctx context.Context, p Policy, extra string, viaCommand bool) (func() error, []int) {
	t.Helper()
	pidFile := filepath.Join(p.TempDir, "pids")
	script := `echo $$ >> "$PIDS"
sleep 100 & echo $! >> "$PIDS"
( sleep 100 & echo $! >> "$PIDS" )
setsid sh -c 'echo $$ >> "$PIDS"; exec sleep 100' &
` + extra
	env := append(os.Environ(), "PIDS="+pidFile)
	var wait func() error
	kill := func() {}
	if viaCommand {
		cmd, err := Command(ctx, p, script)
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env, cmd.Dir = env, t.TempDir()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wait, kill = cmd.Wait, func() { _ = cmd.Process.Kill() }
	} else {
		done := make(chan error, 1)
		go func() {
			code, err := Run(ctx, p, script, RunOptions{Dir: t.TempDir(), Env: env})
			if err == nil && code != 0 {
				err = fmt.Errorf("exit status %d", code)
			}
			done <- err
		}()
		wait = func() error { return <-done }
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile(pidFile)
		if pids := parsePIDs(string(b)); len(pids) == 4 {
			pids = hostPIDs(t, pids)
			// A command may wait for this before it ends (its processes must still run
			// while their pids are found).
			mustWrite(t, pidFile+".seen", "")
			return wait, pids
		}
		if time.Now().After(deadline) {
			kill()
			t.Fatalf("the process tree did not start: %q", b)
		}
		// Poll the file the command writes; there is no event to wait on across processes.
		time.Sleep(2 * time.Millisecond)
	}
}

// forEachWay runs check for each policy, through Run and through Command.
func forEachWay(t *testing.T, check func(t *testing.T, p Policy, viaCommand bool)) {
	for name, p := range policies(t) {
		for _, viaCommand := range []bool{false, true} {
			way := "Run"
			if viaCommand {
				way = "Command"
			}
			t.Run(name+" via "+way, func(t *testing.T) {
				p := p
				p.TempDir = t.TempDir()
				check(t, p, viaCommand)
			})
		}
	}
}

func parsePIDs(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// survivors returns the pids that still exist, and any process still in bash's group.
func survivors(pids []int) []int {
	var out []int
	for _, pid := range pids {
		if err := unix.Kill(pid, 0); !errors.Is(err, unix.ESRCH) {
			out = append(out, pid)
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pgid, err := unix.Getpgid(pid); err == nil && pgid == pids[0] {
			out = append(out, pid)
		}
	}
	return out
}

// TestCancelEndsEveryProcess_REQ_BED_005: cancelling returns at once and leaves no process
// of the tree alive, including the one that left the group with setsid.
func TestCancelEndsEveryProcess_REQ_BED_005(t *testing.T) {
	forEachWay(t, func(t *testing.T, p Policy, viaCommand bool) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		wait, pids := startTree(t, ctx, p, "sleep 100; wait", viaCommand)
		start := time.Now()
		cancel()
		err := wait()
		elapsed := time.Since(start)
		if err == nil {
			t.Errorf("Wait returned nil after cancel")
		}
		if left := survivors(pids); len(left) > 0 {
			t.Errorf("processes %v survived the cancel (tree %v)", left, pids)
		}
		// How fast is BenchmarkCancelToGroupGone's and the bench row's to say (the
		// requirement is 100 ms), not a timed test's on a shared machine.
		t.Logf("cancel to all %d processes gone: %v", len(pids), elapsed)
	})
}

// TestBackgroundJobsEndWithTheCommand: when bash exits, what it left running is killed, so
// nothing carries over to the next call and no grandchild holds the output pipe open.
func TestBackgroundJobsEndWithTheCommand(t *testing.T) {
	forEachWay(t, func(t *testing.T, p Policy, viaCommand bool) {
		wait, pids := startTree(t, context.Background(), p,
			`while [ ! -e "$PIDS.seen" ]; do :; done; echo done`, viaCommand)
		start := time.Now()
		if err := wait(); err != nil {
			t.Fatalf("Wait: %v", err)
		}
		if elapsed := time.Since(start); elapsed >= WaitDelay {
			t.Errorf("Wait took %v: the pipe holders were not swept, WaitDelay ended it", elapsed)
		}
		if left := survivors(pids); len(left) > 0 {
			t.Errorf("processes %v outlived the command", left)
		}
	})
}

// TestGrandchildHoldingStdoutDoesNotBlock: a background grandchild that keeps stdout open
// must not keep Wait from returning.
func TestGrandchildHoldingStdoutDoesNotBlock(t *testing.T) {
	for name, p := range policies(t) {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			r := runScript(t, p, t.TempDir(), os.Environ(), `(sleep 100 &); (setsid sleep 100 &); echo done`)
			elapsed := time.Since(start)
			if r.code != 0 || r.stdout != "done\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			if elapsed >= WaitDelay {
				t.Errorf("took %v: the grandchild held the pipe until WaitDelay", elapsed)
			}
		})
	}
}

func TestSetupFailureIsReported(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	dir := t.TempDir()
	cmd, err := Command(context.Background(), Policy{TempDir: dir}, "echo should-not-run")
	if err != nil {
		t.Fatal(err)
	}
	// The temp dir vanishes between Command and the helper's Landlock rule for it.
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != ExitSetupFailed {
		t.Fatalf("err %v, want exit %d", err, ExitSetupFailed)
	}
	if out.Len() != 0 || !strings.HasPrefix(errb.String(), "phoenix sandbox: ") {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

func TestCommandRefusesInAnUnwiredHelper(t *testing.T) {
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	os.Args = []string{saved[0], HelperArg, "{}", "true"}
	_, err := Command(context.Background(), Policy{Unrestricted: true}, "true")
	if !errors.Is(err, ErrHelperNotWired) {
		t.Fatalf("err %v, want ErrHelperNotWired", err)
	}
}

func TestCommandValidation(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	mustWrite(t, file, "x")
	cases := []struct {
		name   string
		p      Policy
		script string
		want   string
	}{
		{"script too long", Policy{Unrestricted: true}, strings.Repeat("x", MaxScriptBytes+1), "more than the"},
		{"NUL byte", Policy{Unrestricted: true}, "echo a\x00b", "NUL byte"},
		{"no temp dir", Policy{}, "true", "needs a private temp dir"},
		{"relative temp dir", Policy{TempDir: "tmp"}, "true", "must be an absolute path"},
		{"missing temp dir", Policy{TempDir: "/nonexistent/phoenix"}, "true", "no such file"},
		{"temp dir is a file", Policy{TempDir: file}, "true", "not a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !c.p.Unrestricted && !Probe().Available {
				t.Skip("Landlock unavailable")
			}
			_, err := Command(context.Background(), c.p, c.script)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want it to mention %q", err, c.want)
			}
		})
	}
}

func TestProbeMatchesKernel_REQ_BED_014(t *testing.T) {
	st := Probe()
	abi, err := ll.LandlockGetABIVersion()
	if err != nil {
		if st.Available || st.Reason == "" {
			t.Fatalf("kernel has no Landlock (%v) but Probe says %+v", err, st)
		}
		return
	}
	if st.ABI != abi {
		t.Errorf("Probe ABI %d, kernel %d", st.ABI, abi)
	}
	if st.Available != (abi >= MinABI) || st.Available == (st.Reason != "") {
		t.Errorf("inconsistent status %+v for ABI %d", st, abi)
	}
	t.Logf("Landlock ABI %d, available %v %s", st.ABI, st.Available, st.Reason)
}

// TestLandlockForcedOff_REQ_BED_014: with Landlock unavailable the app runs Unrestricted
// only, says why, and a Restricted command is refused rather than run unrestricted.
func TestLandlockForcedOff_REQ_BED_014(t *testing.T) {
	t.Setenv(ForceNoLandlockEnv, "1")
	st := Probe()
	if st.Available || !strings.Contains(st.Reason, ForceNoLandlockEnv) {
		t.Fatalf("Probe %+v, want unavailable with the reason", st)
	}
	_, err := Command(context.Background(), Policy{TempDir: t.TempDir()}, "true")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), ForceNoLandlockEnv) {
		t.Fatalf("restricted Command: %v, want ErrUnavailable with the reason", err)
	}
	r := runScript(t, Policy{Unrestricted: true}, t.TempDir(), os.Environ(), "echo still-works")
	if r.code != 0 || r.stdout != "still-works\n" {
		t.Fatalf("unrestricted run: %+v", r)
	}
}

// TestLandlockAloneDeniesTCP shows each layer's part: Landlock by itself denies TCP connect
// (ABI 4 and later); the results for Multipath TCP and UDP, which Landlock does not cover and
// the seccomp filter closes, are logged for the record.
func TestLandlockAloneDeniesTCP(t *testing.T) {
	st := Probe()
	if !st.Available || st.ABI < 4 {
		t.Skipf("needs Landlock ABI 4: %+v", st)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	f := newFixture(t)
	run := func(code string) (string, error) {
		cmd := exec.Command(os.Args[0], landlockOnlyArg, f.tmp, "python3 -c "+shellQuote(code))
		cmd.Env = f.env
		out, err := cmd.CombinedOutput()
		return lastLine(string(out)), err
	}
	out, err := run(`import os, socket; socket.create_connection(("127.0.0.1", int(os.environ["TCP_PORT"])), 5)`)
	if err == nil {
		t.Errorf("TCP connect succeeded under Landlock alone")
	}
	if n := pendingConnections(t, f.tcp); n != 0 {
		t.Errorf("the listener received %d connection(s)", n)
	}
	t.Logf("Landlock alone, TCP connect: %s", out)
	out, err = run(`import os, socket; s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.connect(("127.0.0.1", int(os.environ["TCP_PORT"]))); print("connected")`)
	t.Logf("Landlock alone, Multipath TCP connect: err=%v %s (%d connection(s) arrived)", err, out, pendingConnections(t, f.tcp))
	out, err = run(`import os, socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("127.0.0.1", int(os.environ["UDP_PORT"]))); print("sent")`)
	t.Logf("Landlock alone, UDP send: err=%v %s (%d datagram(s) arrived)", err, out, pendingDatagrams(t, f.udp))
}

func TestMakeTempDir(t *testing.T) {
	dir, err := MakeTempDir("conv/../1 x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", fi.Mode().Perm())
	}
	if filepath.Dir(dir) != tempRoot() || !strings.HasPrefix(filepath.Base(dir), "conv____1_x-") {
		t.Errorf("unexpected dir %s", dir)
	}
}

// TestLanguageShimIsInvisibleToTheCommand: HelperEnv adds LANGUAGE for the helper's own start
// under a C.UTF-8 locale, and the command never sees it (nor the marker).
func TestLanguageShimIsInvisibleToTheCommand(t *testing.T) {
	base := []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	env := HelperEnv(base)
	if len(env) != len(base)+2 {
		t.Fatalf("HelperEnv(%v) = %v, want LANGUAGE added with its marker", base, env)
	}
	if got := HelperEnv([]string{"LANG=en_US.UTF-8"}); len(got) != 1 {
		t.Fatalf("a real locale was changed: %v", got)
	}
	if got := HelperEnv([]string{"LANG=C.UTF-8", "LANGUAGE=de"}); len(got) != 2 {
		t.Fatalf("a LANGUAGE of the person's was changed: %v", got)
	}
	for name, p := range policies(t) {
		t.Run(name, func(t *testing.T) {
			cmd, err := Command(context.Background(), p, `echo "[$LANGUAGE][$`+languageShimEnv+`][$LANG]"`)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Env = env
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if got := strings.TrimSpace(string(out)); got != "[][][C.UTF-8]" {
				t.Fatalf("the command saw %q", got)
			}
		})
	}
}
