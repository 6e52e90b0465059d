package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/clisock"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
)

// envRunAsCLI makes the test binary the command line itself (main's run), so the clients
// below are separate processes with their own signals, stdin and exit codes.
const envRunAsCLI = "PHOENIX_TEST_RUN_CLI"

func maybeRunAsCLI() {
	if os.Getenv(envRunAsCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// startAppServer opens the app's session on data (the offline demo model) and its command
// socket, as the window does, without a window.
func startAppServer(t *testing.T, data string, uid int) (*session, *cliServer) {
	t.Helper()
	a, err := openApp(commonFlags{dataDir: data, demo: true, noMCP: true}, llm.Config{}, quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serveCLIFor(a, func() bool { return true }, quietLogger(), uid)
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { srv.Close(); a.Close() }) })
	return a, srv
}

// client is the command line run as its own process.
type client struct {
	cmd       *exec.Cmd
	out, errb bytes.Buffer
	done      chan struct{}
}

func startClient(t *testing.T, args ...string) *client {
	t.Helper()
	c := &client{cmd: exec.Command(os.Args[0], args...), done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.errb
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	return c
}

// wait returns the exit code and output; a client that never ends fails the test (a hang
// is the bug these tests look for).
func (c *client) wait(t *testing.T) (int, string, string) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(60 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		t.Fatalf("the client %v hung\n%s\n%s", c.cmd.Args[1:], c.out.String(), c.errb.String())
	}
	return c.cmd.ProcessState.ExitCode(), c.out.String(), c.errb.String()
}

func runClientProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return startClient(t, args...).wait(t)
}

var convLine = regexp.MustCompile(`Conversation (\S+) in `)

func convIDOf(t *testing.T, out string) string {
	t.Helper()
	m := convLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no conversation line in\n%s", out)
	}
	return m[1]
}

// TestCLIBesideTheApp: with the app open on the data directory, list, show, export and chat
// run in the app and print what they print on their own, with the same exit codes, and the
// conversation the command line made is live in the app's runtime (what the window shows).
func TestCLIBesideTheApp(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	// On their own first: the output to compare with.
	code, chatAlone, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hi")
	if code != 0 {
		t.Fatalf("standalone chat: exit %d\n%s", code, errs)
	}
	first := convIDOf(t, chatAlone)
	alone := map[string][3]any{}
	for _, args := range [][]string{{"list"}, {"show", first}, {"export", first}, {"show", "no-such-id"}, {"search", "hi"}, {"queue", first}, {"checkpoints", first}, {"spent", "--today"}, {"spent", "--json"}} {
		code, out, errs := cli(t, append(args, "--data-dir", data)...)
		alone[args[0]+" "+strings.Join(args[1:], " ")] = [3]any{code, out, errs}
	}

	a, _ := startAppServer(t, data, os.Getuid())
	for _, args := range [][]string{{"list"}, {"show", first}, {"export", first}, {"show", "no-such-id"}, {"search", "hi"}, {"queue", first}, {"checkpoints", first}, {"spent", "--today"}, {"spent", "--json"}} {
		code, out, errs := runClientProcess(t, append(args, "--data-dir", data)...)
		want := alone[args[0]+" "+strings.Join(args[1:], " ")]
		if code != want[0] || out != want[1] || errs != want[2] {
			t.Errorf("%v beside the app: exit %d\n%s\n%s\nwant exit %d\n%s\n%s", args, code, out, errs, want[0], want[1], want[2])
		}
	}

	sub := a.runtime.Subscribe()
	defer sub.Close()
	code, chatServed, errs := runClientProcess(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hi")
	if code != 0 {
		t.Fatalf("chat beside the app: exit %d\n%s\n%s", code, chatServed, errs)
	}
	second := convIDOf(t, chatServed)
	if got := strings.ReplaceAll(chatServed, second, first); got != chatAlone {
		t.Errorf("chat beside the app printed\n%s\nwant (but for the id)\n%s", chatServed, chatAlone)
	}
	// The window's runtime saw the reply as it was committed.
	deadline := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case ev := <-sub.Events():
			if m, ok := ev.(actors.MessageCommitted); ok && m.ConvID == second && m.Message.Kind == domain.KindAssistant {
				seen = strings.Contains(m.Message.Text, "hi")
			}
		case <-deadline:
			t.Fatal("the app's runtime never published the reply of the command line's chat")
		}
	}
	code, list, _ := runClientProcess(t, "list", "--data-dir", data)
	if code != 0 || !strings.Contains(list, first) || !strings.Contains(list, second) {
		t.Fatalf("list beside the app: exit %d\n%s", code, list)
	}
}

// TestCLIBesideTheAppCtrlCStopsTheTurn_REQ_BED_005: SIGINT to the client stops the turn in
// the app like the Stop button, and the client exits 130 as chat does on its own.
func TestCLIBesideTheAppCtrlCStopsTheTurn_REQ_BED_005(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	a, _ := startAppServer(t, data, os.Getuid())
	marker := fmt.Sprintf("sleep 31.%d", time.Now().UnixNano()%100000)
	c := startClient(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "bash: "+marker)
	waitForCommand(t, "^"+marker) // the command itself, not the client naming it
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, out, errs := c.wait(t)
	if code != exitInterrupted || !strings.Contains(out, "cancelled") {
		t.Fatalf("exit %d, want %d with the cancelled result\n%s\n%s", code, exitInterrupted, out, errs)
	}
	snap, err := a.runtime.Snapshot(t.Context(), convIDOf(t, out))
	if err != nil {
		t.Fatal(err)
	}
	if _, idle := snap.Conv.State.(domain.Idle); !idle {
		t.Fatalf("the app's conversation is %s after the client's Ctrl+C, want idle", snap.Conv.State.Kind())
	}
}

// TestCLIBesideTheAppQuits: the app quitting while a client's chat runs ends the client at
// once with a clear error, not a hang.
func TestCLIBesideTheAppQuits(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	a, srv := startAppServer(t, data, os.Getuid())
	marker := fmt.Sprintf("sleep 32.%d", time.Now().UnixNano()%100000)
	c := startClient(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "bash: "+marker)
	waitForCommand(t, "^"+marker) // the command itself, not the client naming it
	srv.Close()
	code, out, errs := c.wait(t)
	if code != 1 || !strings.Contains(errs, "the app closed the connection before the command finished") {
		t.Fatalf("exit %d, want 1 and the app's quitting named\n%s\n%s", code, out, errs)
	}
	a.Close()
	// With the app gone the commands run on their own again.
	if code, out, errs := runClientProcess(t, "list", "--data-dir", data); code != 0 || !strings.Contains(out, convIDOf(t, c.out.String())) {
		t.Fatalf("list after the app quit: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestCLIStaleSocketIsRemoved: a socket a crashed app left makes no command wait: it runs on
// its own and removes the socket.
func TestCLIStaleSocketIsRemoved(t *testing.T) {
	data := t.TempDir()
	path, err := clisock.Path(data)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := clisock.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false) // as a crash leaves it
	ln.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the test's stale socket is not there: %v", err)
	}
	if code, out, errs := runClientProcess(t, "list", "--data-dir", data); code != 0 || !strings.HasPrefix(out, "ID") {
		t.Fatalf("list with a stale socket: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the stale socket is still there: %v", err)
	}
}

// TestCLIBesideTheAppTwoClients: two chats at once both run to rest in the app.
func TestCLIBesideTheAppTwoClients(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	startAppServer(t, data, os.Getuid())
	one := startClient(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: one")
	two := startClient(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: two")
	for _, c := range []*client{one, two} {
		if code, out, errs := c.wait(t); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
	}
	if !strings.Contains(one.out.String(), "one") || !strings.Contains(two.out.String(), "two") {
		t.Fatalf("the replies are mixed up:\n%s\n%s", one.out.String(), two.out.String())
	}
}

// TestCLIBesideTheAppRefusesAnotherUser: a process of another uid is refused (SO_PEERCRED),
// with the reason; here the app is told to expect another uid than the test's.
func TestCLIBesideTheAppRefusesAnotherUser(t *testing.T) {
	data := t.TempDir()
	startAppServer(t, data, os.Getuid()+1)
	code, out, errs := runClientProcess(t, "list", "--data-dir", data)
	if code != 1 || out != "" || !strings.Contains(errs, "refused") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// TestCLIBesideTheAppRefusesModelFlags: flags that choose another model connection than the
// app's are refused with what to do, before anything is created.
func TestCLIBesideTheAppRefusesModelFlags(t *testing.T) {
	data := t.TempDir()
	a, _ := startAppServer(t, data, os.Getuid())
	code, _, errs := runClientProcess(t, "chat", "--base-url", "http://127.0.0.1:1/v1", "--data-dir", data, "echo: hi")
	if code != 1 || !strings.Contains(errs, "--base-url cannot change it") {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if list, err := a.store.List(true); err != nil || len(list) != 0 {
		t.Fatalf("a refused chat left %d conversations (%v)", len(list), err)
	}
}

// TestDataDirArg reads --data-dir however it is written.
func TestDataDirArg(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data-dir", "/d"}, "/d"},
		{[]string{"-data-dir=/e", "x"}, "/e"},
		{[]string{"--json", "--data-dir=/f"}, "/f"},
		{[]string{"--", "--data-dir", "/g"}, ""},
		{[]string{"id"}, ""},
	} {
		if got := dataDirArg(tc.args); got != tc.want {
			t.Errorf("dataDirArg(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestCLIBesideTheAppReadsTheClientsStdin: chat - reads the prompt from the client's
// standard input, and the write-access question is asked on the client's terminal and
// answered there (REQ-BED-015), as chat does on its own.
func TestCLIBesideTheAppReadsTheClientsStdin_REQ_BED_015(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	startAppServer(t, data, os.Getuid())

	c := &client{cmd: exec.Command(os.Args[0], "chat", "--demo", "--data-dir", data, "--cwd", cwd, "-"), done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
	c.cmd.Stdin = strings.NewReader("echo: read from the client's stdin")
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.errb
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	if code, out, errs := c.wait(t); code != 0 || !strings.Contains(out, "read from the client's stdin") {
		t.Fatalf("chat - beside the app: exit %d\n%s\n%s", code, out, errs)
	}

	master, slave := openPty(t)
	c = &client{cmd: exec.Command(os.Args[0], "chat", "--demo", "--data-dir", data, "--cwd", cwd,
		"upgrade: write a file\npatch: made.txt <<< written"), done: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
	c.cmd.Stdin = slave
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.errb
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	// The terminal keeps the line until the question reads it.
	if _, err := master.Write([]byte("p\n")); err != nil {
		t.Fatal(err)
	}
	code, out, errs := c.wait(t)
	if code != 0 || !strings.Contains(errs, "The agent asks for write access") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(cwd + "/made.txt"); err != nil || strings.TrimSpace(string(b)) != "written" {
		t.Fatalf("the terminal's answer did not grant Project mode: %q %v\n%s\n%s", b, err, out, errs)
	}
}

// openPty opens a pseudo-terminal: a client's stdin that is a terminal.
func openPty(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// BenchmarkCLI: list and a one-turn chat (demo model) as their own processes, on their own
// (they open the store, recovery, a runtime) and beside the app (they ask the app), in the
// same run.
func BenchmarkCLI(b *testing.B) {
	data, cwd := b.TempDir(), b.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hi"}, &out, &errb); code != 0 {
		b.Fatalf("exit %d: %s", code, errb.String())
	}
	commands := map[string][]string{
		"list": {"list", "--data-dir", data},
		"chat": {"chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hi"},
	}
	bench := func(where string) {
		for _, name := range []string{"list", "chat"} {
			b.Run(name+"/"+where, func(b *testing.B) {
				for b.Loop() {
					cmd := exec.Command(os.Args[0], commands[name]...)
					cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("%v: %s", err, out)
					}
				}
			})
		}
	}
	bench("alone")
	a, err := openApp(commonFlags{dataDir: data, demo: true, noMCP: true}, llm.Config{}, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	srv, err := serveCLI(a, func() bool { return true }, quietLogger())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	bench("beside-the-app")
}

// TestCLIBesideTheAppRefusesAnotherUserForReal: run as root, a client started as nobody
// (setpriv) that gets through the file permissions (opened for the test) is refused by the
// uid check itself.
func TestCLIBesideTheAppRefusesAnotherUserForReal(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if os.Getuid() != 0 || err != nil {
		t.Skip("needs root and setpriv to start a client as another user")
	}
	t.Setenv("XDG_RUNTIME_DIR", "") // the socket inside the data directory, for both sides
	data := t.TempDir()
	_, srv := startAppServer(t, data, os.Getuid())
	// Open what the owner-only modes close, so that only SO_PEERCRED stands in the way.
	for _, p := range []string{filepath.Dir(data), data, filepath.Dir(srv.path)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(srv.path, 0o666); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "phoenix-desktop.test")
	if err := os.Chmod(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(os.Args[0], bin); err != nil {
		t.Skipf("cannot link the test binary where nobody can run it: %v", err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "list", "--data-dir", data)
	cmd.Env = append(os.Environ(), envRunAsCLI+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 || out.Len() != 0 || !strings.Contains(errb.String(), "runs as uid 65534") {
		t.Fatalf("a client of another uid: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
}

// TestRelayedSignalsEndAClientNobodyListensFor: a signal before the command asks for
// signals ends the client with 128+n, as it would end a process on its own, and a command
// that asks afterwards is hung up on at once (its client is gone).
func TestRelayedSignalsEndAClientNobodyListensFor(t *testing.T) {
	server, clientEnd := net.Pipe()
	conn, peer := clisock.NewConn(server), clisock.NewConn(clientEnd)
	got := make(chan int, 1)
	go func() {
		kind, p, err := peer.Read()
		if err != nil || kind != clisock.Exit {
			got <- -1
			return
		}
		n, _ := clisock.Int(p)
		got <- n
	}()
	var r relayedSignals
	r.deliver(syscall.SIGINT, conn)
	if code := <-got; code != 128+int(syscall.SIGINT) {
		t.Fatalf("the client was told exit %d, want %d", code, 128+int(syscall.SIGINT))
	}
	ch := make(chan os.Signal, 1)
	r.Notify(ch, os.Interrupt)
	select {
	case sig := <-ch:
		if sig != syscall.SIGHUP {
			t.Fatalf("got %v, want SIGHUP", sig)
		}
	default:
		t.Fatal("a command asking for signals after its client ended was not hung up on")
	}
}
