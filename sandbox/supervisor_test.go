//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// appArg makes the test binary act as the app: it runs the script in argv[3] through Run
// under a Restricted policy with the temp dir argv[2], so that a test can kill this "app"
// outright while the command runs.
const appArg = "__phoenix_test_app"

// noViewForTestsEnv and printViewEnv, in the environment of the test binary acting as the
// app, turn the mount view off, and print whether it is usable and why not.
const (
	noViewForTestsEnv = "PHOENIX_TEST_NO_VIEW"
	printViewEnv      = "PHOENIX_TEST_PRINT_VIEW"
)

func runAsApp(tempDir, script string) int {
	if os.Getenv(noViewForTestsEnv) == "1" {
		noMountViewForTests = true
	}
	if os.Getenv(printViewEnv) == "1" {
		usable, reason := mountViewUsable()
		fmt.Printf("mount view usable=%v reason=%s\n", usable, reason)
	}
	code, err := Run(context.Background(), Policy{TempDir: tempDir}, script, RunOptions{Env: os.Environ(), Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

// idleSupervisor is the pid of a supervisor of kind k waiting in the pool.
func idleSupervisor(t *testing.T, k kind) int {
	t.Helper()
	defaultPool.mu.Lock()
	defer defaultPool.mu.Unlock()
	list := defaultPool.idle[k]
	if len(list) == 0 {
		t.Fatalf("no supervisor of kind %d is waiting", k)
	}
	return list[len(list)-1].cmd.Process.Pid
}

func countEntries(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// How /proc shows a seccomp filter's listener and a Landlock ruleset.
const (
	seccompListener     = "anon_inode:seccomp notify"
	landlockRulesetLink = "anon_inode:landlock-ruleset"
)

// settled waits until a supervisor (its /proc/<pid>/fd directory) has finished restricting
// a thread for its next command, which it does just after it has answered the last
// (restrictedThread), in the mount view: the thread's listener exists and the ruleset and
// the files its rules opened are closed. /proc gives no event for it, so it is polled.
func settled(t *testing.T, dir string, view bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if countLinks(t, dir, landlockRulesetLink) == 0 && (!view || countListeners(t, dir) > 0) {
			return
		}
		runtime.Gosched()
	}
	t.Fatalf("the supervisor did not finish restricting a thread for its next command")
}

// The supervisor opens descriptors for a moment after it answers a command (the sweep of
// what the command left, the policy of the thread it restricts ahead), so a count read at
// an instant may be one or two above its resting count: fewestFDs reads the resting count as
// the fewest seen over a while, and fdsDownTo waits for the count to come down to it — a
// descriptor leaked keeps it above for good.

// fewestFDs returns the fewest descriptors (countFDs) dir shows over 200 ms.
func fewestFDs(t *testing.T, dir string) int {
	t.Helper()
	fewest := countFDs(t, dir)
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
		time.Sleep(2 * time.Millisecond) // a sample, not a wait for something
		fewest = min(fewest, countFDs(t, dir))
	}
	return fewest
}

// fdsDownTo returns the count of descriptors in dir once it is at most want, or the fewest
// seen over 10 s.
func fdsDownTo(t *testing.T, dir string, want int) int {
	t.Helper()
	fewest := countFDs(t, dir)
	for end := time.Now().Add(10 * time.Second); fewest > want && time.Now().Before(end); {
		time.Sleep(2 * time.Millisecond)
		fewest = min(fewest, countFDs(t, dir))
	}
	return fewest
}

// countFDs counts the descriptors in a /proc/<pid>/fd directory other than seccomp
// listeners, which countListeners counts: a thread restricted ahead holds one.
func countFDs(t *testing.T, dir string) int {
	t.Helper()
	return countEntries(t, dir) - countListeners(t, dir)
}

func countListeners(t *testing.T, dir string) int {
	t.Helper()
	return countLinks(t, dir, seccompListener)
}

func countLinks(t *testing.T, dir, target string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if l, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && l == target {
			n++
		}
	}
	return n
}

// TestThousandCommandsLeaveNothing_REQ_BED_005: a thousand commands in one conversation,
// some leaving background jobs and setsid escapees, leave the long-lived supervisor with no
// child, no extra thread (each restricting thread ends) and no extra descriptor, and the app
// with no extra descriptor.
func TestThousandCommandsLeaveNothing_REQ_BED_005(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	forEachView(t, func(t *testing.T, view bool) {
		k := kindPlain
		if view {
			k = kindView
		}
		p := Policy{TempDir: t.TempDir()}
		run := func(script string) {
			t.Helper()
			code, err := Run(context.Background(), p, script, RunOptions{})
			if err != nil || code != 0 {
				t.Fatalf("%q: exit %d, %v", script, code, err)
			}
		}
		run("true")
		sup := idleSupervisor(t, k)
		task := fmt.Sprintf("/proc/%d/task", sup)
		fds := fmt.Sprintf("/proc/%d/fd", sup)
		settled(t, fds, view)
		threads, supFDs, appFDs := countEntries(t, task), fewestFDs(t, fds), countEntries(t, "/proc/self/fd")
		for i := range 1000 {
			script := "true"
			if i%100 == 0 {
				script = `sleep 100 & (setsid sleep 100 &); echo started`
			}
			run(script)
			if got := idleSupervisor(t, k); got != sup {
				t.Fatalf("command %d ran on supervisor %d, not %d: the first one ended", i, got, sup)
			}
		}
		if kids := childrenOf(strconv.Itoa(sup)); len(kids) > 0 {
			t.Errorf("the supervisor still has children %v", kids)
		}
		// The Go runtime may start a thread or two under load; a thread per command would
		// show as hundreds.
		if n := countEntries(t, task); n > threads+4 {
			t.Errorf("the supervisor has %d threads, %d before the thousand commands", n, threads)
		}
		settled(t, fds, view)
		if n := fdsDownTo(t, fds, supFDs); n > supFDs {
			t.Errorf("the supervisor has %d descriptors open, %d before", n, supFDs)
		}
		// A thread restricted ahead for the next command holds its filter's listener.
		if n := countListeners(t, fds); n > 1 {
			t.Errorf("the supervisor holds %d seccomp listeners; at most the one of a thread restricted ahead may wait", n)
		}
		if n := countEntries(t, "/proc/self/fd"); n > appFDs+2 {
			t.Errorf("the app has %d descriptors open, %d before", n, appFDs)
		}
	})
}

// TestCommandsDieWithTheApp_REQ_BED_005: when the app is killed outright, the long-lived
// supervisor sweeps its command's whole tree, setsid escapee included, and ends.
func TestCommandsDieWithTheApp_REQ_BED_005(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	tmp := t.TempDir()
	pidFile := filepath.Join(tmp, "pids")
	app := exec.Command(os.Args[0], appArg, tmp, `echo $$ >> "$TMPDIR/pids"
setsid sh -c 'echo $$ >> "$TMPDIR/pids"; exec sleep 100' &
sleep 100 & echo $! >> "$TMPDIR/pids"
wait`)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	var pids []int
	for len(pids) < 3 {
		b, _ := os.ReadFile(pidFile)
		pids = parsePIDs(string(b))
		if time.Now().After(deadline) {
			_ = app.Process.Kill()
			t.Fatalf("the command did not start: %q", b)
		}
		// Poll the file the command writes; there is no event to wait on.
		time.Sleep(2 * time.Millisecond)
	}
	pids = hostPIDs(t, pids)
	if err := app.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = app.Wait()
	waitGone(t, pids, deadline, "the app")
}

// waitGone waits until no process of pids is left, and fails the test with what outlived
// what (the app, a supervisor) if some are left at the deadline. There is no event for the
// end of another process, so it polls.
func waitGone(t *testing.T, pids []int, deadline time.Time, what string) {
	t.Helper()
	for {
		left := survivors(pids)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes %v outlived %s", left, what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestCommandCarriesPipesAndLivesLong: the way an MCP server is started — Command with
// "exec" and pipes for stdin and stdout — reaches the program, which may live for many
// exchanges, and cancelling ends it.
func TestCommandCarriesPipesAndLivesLong(t *testing.T) {
	for name, p := range policies(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd, err := Command(ctx, p, "exec cat")
			if err != nil {
				t.Fatal(err)
			}
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			lines := bufio.NewReader(stdout)
			for i := range 20 {
				msg := fmt.Sprintf("message %d\n", i)
				if _, err := io.WriteString(stdin, msg); err != nil {
					t.Fatal(err)
				}
				got, err := lines.ReadString('\n')
				if err != nil || got != msg {
					t.Fatalf("read %q, %v; want %q", got, err, msg)
				}
			}
			cancel()
			if err := cmd.Wait(); err == nil {
				t.Errorf("Wait returned nil after cancel")
			}
			if !strings.Contains(cmd.ProcessState.String(), "exit status") {
				t.Logf("supervisor ended: %v", cmd.ProcessState)
			}
		})
	}
}

// TestDeadIdleSupervisorIsReplaced: a waiting supervisor that something killed is replaced
// by the next command, which runs once and normally.
func TestDeadIdleSupervisorIsReplaced(t *testing.T) {
	p := Policy{Unrestricted: true}
	if code, err := Run(context.Background(), p, "true", RunOptions{}); err != nil || code != 0 {
		t.Fatalf("exit %d, %v", code, err)
	}
	dead := idleSupervisor(t, kindPlain)
	if err := syscall.Kill(dead, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	defaultPool.mu.Lock()
	list := defaultPool.idle[kindPlain]
	s := list[len(list)-1]
	defaultPool.mu.Unlock()
	for gone := time.Now().Add(10 * time.Second); s.alive(); {
		if time.Now().After(gone) {
			t.Fatal("the killed supervisor is still alive after 10 s")
		}
		// Wait until the kernel has ended it, every thread: the leader shows as a zombie
		// before its other threads have gone, and only then can it be waited for.
		time.Sleep(time.Millisecond)
	}
	var out strings.Builder
	code, err := Run(context.Background(), p, "echo ran", RunOptions{Stdout: &out})
	if err != nil || code != 0 || out.String() != "ran\n" {
		t.Fatalf("exit %d, %v, stdout %q", code, err, out.String())
	}
	if idleSupervisor(t, kindPlain) == dead {
		t.Errorf("the dead supervisor is still in the pool")
	}
}

// TestMountViewForAnOrdinaryUser: the mount view also works for a user who is not root (the
// supervisor keeps only the capabilities it needs, in its own namespace). The test binary,
// running as root, starts a copy of itself as nobody acting as the app.
func TestMountViewForAnOrdinaryUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to become another user; as an ordinary user every test is this test")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv is not installed")
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skipf("no mount view here: %s", reason)
	}
	// Directories nobody can use: a copy of the test binary, a work dir and a temp dir.
	root, err := os.MkdirTemp("", "phoenix-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	bin := filepath.Join(root, "sandbox.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, bin, string(data))
	work, tmp := filepath.Join(root, "work"), filepath.Join(root, "tmp")
	mustWrite(t, filepath.Join(work, "f.txt"), "original\n")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{root, work, filepath.Join(work, "f.txt"), tmp} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all",
		"--bounding-set=-all", bin, appArg, tmp, `id -u; grep CapEff /proc/self/status
touch -d 2000-01-01 "$W/f.txt" 2>&1
cd "$TMPDIR" && touch x && chmod 700 x && echo chmod-ok`)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "W="+work, "HOME="+root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"65534\n", "CapEff:\t0000000000000000", "Read-only file system", "chmod-ok"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestRunSendsAnUnchangedEnvironmentOnce: a supervisor is sent a command's environment only
// when it differs from the last it received, and each command still runs with exactly its
// own, under every policy.
func TestRunSendsAnUnchangedEnvironmentOnce(t *testing.T) {
	envA := append(os.Environ(), "PHOENIX_TEST_X=a")
	envB := append(os.Environ(), "PHOENIX_TEST_X=b")
	script := `printf %s "$PHOENIX_TEST_X"`
	s, err := startSupervisor(kindPlain)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	cfg, err := prepare(Policy{Unrestricted: true}, script)
	if err != nil {
		t.Fatal(err)
	}
	for i, env := range [][]string{envA, envA, envB, envB, envA} {
		req := runRequest{helperConfig: cfg, Script: script, Env: env}
		wantSame := i == 1 || i == 3
		if w := s.wire(req); w.SameEnv != wantSame || (w.Env == nil) != wantSame {
			t.Errorf("command %d: sent with same_env=%v and %d variables, want same_env=%v", i, w.SameEnv, len(w.Env), wantSame)
		}
		var out strings.Builder
		if code, _, err := s.run(context.Background(), req, "", RunOptions{Stdout: &out}); err != nil || code != 0 {
			t.Fatalf("command %d: exit %d, %v", i, code, err)
		}
		if want := strings.TrimPrefix(env[len(env)-1], "PHOENIX_TEST_X="); out.String() != want {
			t.Errorf("command %d saw PHOENIX_TEST_X=%q, want %q", i, out.String(), want)
		}
	}
	if !Probe().Available {
		return
	}
	p := Policy{TempDir: t.TempDir()}
	for i, env := range [][]string{envA, envA, envB, envA} {
		var out strings.Builder
		if code, err := Run(context.Background(), p, script, RunOptions{Env: env, Stdout: &out}); err != nil || code != 0 {
			t.Fatalf("restricted command %d: exit %d, %v", i, code, err)
		}
		if want := strings.TrimPrefix(env[len(env)-1], "PHOENIX_TEST_X="); out.String() != want {
			t.Errorf("restricted command %d saw PHOENIX_TEST_X=%q, want %q", i, out.String(), want)
		}
	}
}

// TestSupervisorRefusesAnEnvironmentItNeverReceived: a request that names the last
// environment, sent to a supervisor that has received none, is refused instead of run with
// an empty one.
func TestSupervisorRefusesAnEnvironmentItNeverReceived(t *testing.T) {
	s, err := startSupervisor(kindPlain)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	req := runRequest{helperConfig: helperConfig{}, Script: "true", SameEnv: true}
	if err := writeFrame(s.conn, message{Run: &req}, int(outW.Fd()), int(outW.Fd())); err != nil {
		t.Fatal(err)
	}
	var o outcome
	if _, err := readFrame(s.conn, &o); err != nil {
		t.Fatal(err)
	}
	if o.SetupError == "" {
		t.Fatalf("the supervisor ran the command (status %d) with an environment it never received", o.Status)
	}
}

// TestSharedMemoryIsEmptyForTheNextCommand: what a command leaves in the mount view's private
// /dev/shm is gone before the supervisor's next command starts.
func TestSharedMemoryIsEmptyForTheNextCommand(t *testing.T) {
	if !Probe().Available {
		t.Skip("Landlock unavailable")
	}
	if usable, reason := mountViewUsable(); !usable {
		t.Skip("no mount view: " + reason)
	}
	s, err := startSupervisor(kindView)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	run := func(script string) string {
		t.Helper()
		cfg, err := prepare(Policy{TempDir: t.TempDir()}, script)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		code, _, err := s.run(context.Background(), runRequest{helperConfig: cfg, Script: script, Env: os.Environ()}, "", RunOptions{Stdout: &out})
		if err != nil || code != 0 {
			t.Fatalf("%s: exit %d, %v", script, code, err)
		}
		return out.String()
	}
	if got := run(`echo left > /dev/shm/phoenix-left && mkdir /dev/shm/phoenix-dir && ls /dev/shm`); got != "phoenix-dir\nphoenix-left\n" {
		t.Fatalf("the command could not write /dev/shm: it listed %q", got)
	}
	if got := run(`ls -A /dev/shm`); got != "" {
		t.Errorf("the next command found %q in /dev/shm", got)
	}
}

// TestCommandOutputIsBlocking: a command's standard output and error are blocking
// descriptors, as a program expects (a non-blocking one makes writes fail with EAGAIN when
// the pipe is full), and what it writes arrives whole.
func TestCommandOutputIsBlocking(t *testing.T) {
	const nonblock = 0o4000 // O_NONBLOCK, as /proc shows the flags: in octal
	var out, errOut strings.Builder
	// 300 KB, above a pipe's capacity, so the writes block while the app reads.
	script := `sed -n 's/^flags:[[:space:]]*//p' /proc/$$/fdinfo/1 /proc/$$/fdinfo/2 >&2; head -c 300000 /dev/zero | tr '\0' x`
	code, err := Run(context.Background(), Policy{Unrestricted: true}, script, RunOptions{Stdout: &out, Stderr: &errOut})
	if err != nil || code != 0 {
		t.Fatalf("exit %d, %v, stderr %q", code, err, errOut.String())
	}
	flags := strings.Fields(errOut.String())
	if len(flags) != 2 {
		t.Fatalf("read the flags %q, want two", errOut.String())
	}
	for i, f := range flags {
		n, err := strconv.ParseInt(f, 8, 64)
		if err != nil {
			t.Fatal(err)
		}
		if n&nonblock != 0 {
			t.Errorf("descriptor %d of the command is non-blocking (flags %s)", i+1, f)
		}
	}
	if out.Len() != 300000 || strings.Trim(out.String(), "x") != "" {
		t.Errorf("the command's output arrived as %d bytes, want 300000", out.Len())
	}
}
