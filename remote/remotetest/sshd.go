// Package remotetest starts, for tests, a real OpenSSH server on 127.0.0.1 that lets a test
// user in with a fresh key, and watches the processes on both sides. It imports nothing of
// ours; only tests import it.
package remotetest

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestUser is the account the tests' sshd lets in: the "remote" user, another user than the
// one running the app side.
const TestUser = "phoenixremote"

// Server is a real OpenSSH server on 127.0.0.1 that the test started and stops.
type Server struct {
	// Config is an ssh client configuration naming the server as Host "phoenix-test".
	Config string
	Dest   string
	UID    int
	Home   string
	// Link is how the app side reaches it: "loopback", or with a delay (StartNetem) "netem"
	// or "relay".
	Link string
}

// needSSHD skips, with the reason, where a real sshd cannot run: not root (the test creates
// its user) or no Debian openssh-server. In CI it fails instead: CI installs both.
func needSSHD(t testing.TB) string {
	t.Helper()
	miss := func(why string) {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s; CI must run the remote tests (scripts/setup.sh installs openssh-server)", why)
		}
		t.Skipf("%s: the remote tests need a real sshd as another user (run as root with openssh-server installed, see scripts/setup.sh)", why)
	}
	if os.Geteuid() != 0 {
		miss("not running as root")
	}
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			miss("sshd is not installed")
		}
		sshd = "/usr/sbin/sshd"
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		miss("ssh is not installed")
	}
	return sshd
}

func run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Start starts sshd -D on a free port of 127.0.0.1 with a fresh host key, lets TestUser
// in with a fresh client key, and stops it when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return start(t, where{})
}

// where says how the server runs: by default on a free port of 127.0.0.1 in this machine's
// namespaces; hidden names library files masked for it (headless.go); netns runs it in that
// network namespace on addr:port (netem.go); relay puts a relay delaying each direction by
// that much between the client and it (relay.go).
type where struct {
	hidden []string
	netns  string
	addr   string
	port   int
	relay  time.Duration
}

// serverSeq numbers the servers this process starts.
var serverSeq atomic.Int32

func start(t testing.TB, w where) *Server {
	t.Helper()
	sshd := needSSHD(t)
	holdAccount(t)
	u, err := user.Lookup(TestUser)
	if err != nil {
		run(t, "useradd", "--create-home", "--shell", "/bin/bash", TestUser)
		if u, err = user.Lookup(TestUser); err != nil {
			t.Fatal(err)
		}
	}
	// A locked account ("!") is refused even with a key when PAM is off; "*" is no password.
	run(t, "usermod", "-p", "*", TestUser)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)

	dir := t.TempDir()
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "phoenix-test-host", "-f", filepath.Join(dir, "host"))
	run(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "phoenix-test-client", "-f", filepath.Join(dir, "client"))
	pub, err := os.ReadFile(filepath.Join(dir, "client.pub"))
	if err != nil {
		t.Fatal(err)
	}
	// sshd reads authorized_keys as the user, so it lives in the user's home: a file of this
	// server's own (AuthorizedKeysFile below), since the test packages that start servers run
	// side by side and each would otherwise replace the key of the others.
	keys := fmt.Sprintf("phoenix-test-%d-%d.authorized_keys", os.Getpid(), serverSeq.Add(1))
	t.Cleanup(func() { _ = os.Remove(filepath.Join(u.HomeDir, ".ssh", keys)) })
	sshDir := filepath.Join(u.HomeDir, ".ssh")
	if err := os.MkdirAll(sshDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sshDir, keys), pub, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{u.HomeDir, sshDir, filepath.Join(sshDir, keys)} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // sshd's privilege-separation dir
		t.Fatal(err)
	}
	addr, port := w.addr, w.port
	if addr == "" {
		addr = "127.0.0.1"
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}

	cfg := filepath.Join(dir, "sshd_config")
	WriteFile(t, cfg, fmt.Sprintf(`Port %d
ListenAddress %s
HostKey %s
PidFile none
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/%s
AllowUsers %s
StrictModes no
LogLevel INFO
`, port, addr, filepath.Join(dir, "host"), keys, TestUser))
	hostPub, err := os.ReadFile(filepath.Join(dir, "host.pub"))
	if err != nil {
		t.Fatal(err)
	}
	// The client connects to the relay's port when there is one: known_hosts names that one.
	link, clientPort := "loopback", port
	switch {
	case w.netns != "":
		link = "netem"
	case w.relay > 0:
		r, err := startRelay(fmt.Sprintf("%s:%d", addr, port), w.relay)
		if err != nil {
			t.Fatalf("the delay relay did not start: %v", err)
		}
		// Registered now, it runs after the server's clean-up below (which ends the ssh
		// processes, so the relay has nothing left to hold).
		t.Cleanup(r.close)
		link, clientPort = "relay", r.port()
	}
	WriteFile(t, filepath.Join(dir, "known_hosts"), fmt.Sprintf("[%s]:%d %s", addr, clientPort, hostPub))
	client := filepath.Join(dir, "ssh_config")
	WriteFile(t, client, fmt.Sprintf(`Host phoenix-test
  HostName %s
  Port %d
  User %s
  IdentityFile %s
  IdentitiesOnly yes
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
`, addr, clientPort, TestUser, filepath.Join(dir, "client"), filepath.Join(dir, "known_hosts")))

	cmd := exec.Command(sshd, "-D", "-e", "-f", cfg)
	switch {
	case w.hidden != nil:
		cmd = hiddenCommand(w.hidden, sshd, "-D", "-e", "-f", cfg)
	case w.netns != "":
		// ip execs sshd in the namespace: the process is the one the cleanup signals.
		cmd = exec.Command("ip", "netns", "exec", w.netns, sshd, "-D", "-e", "-f", cfg)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	logDone := make(chan struct{})
	var log strings.Builder
	go func() {
		defer close(logDone)
		sc := bufio.NewScanner(stderr)
		signalled := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !signalled && strings.Contains(sc.Text(), "Server listening on "+addr+" port") {
				signalled = true
				close(ready)
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	srv := &Server{Config: client, Dest: "phoenix-test", UID: uid, Home: u.HomeDir, Link: link}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		// What a failed test left — a master connection, which keeps its sshd session and
		// so sshd's log open, or a command of the test user — is ended by its pid.
		for _, pid := range append(srv.LocalSSH(), srv.UserProcesses()...) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		<-logDone
		_ = cmd.Wait()
		waitAccountIdle(srv, 10*time.Second)
	})
	select {
	case <-ready:
	case <-logDone:
		t.Fatalf("sshd did not start:\n%s", log.String())
	case <-time.After(10 * time.Second):
		t.Fatalf("sshd did not say it listens within 10 s")
	}
	return srv
}

func WriteFile(t testing.TB, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ProjectDir makes a fresh folder in the remote user's home, owned by that user.
func (s *Server) ProjectDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp(s.Home, "proj-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(d, s.UID, s.UID); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// LocalSSH lists the ssh processes on the app side that talk to this server (their command
// line names its configuration).
func (s *Server) LocalSSH() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if strings.Contains(string(b), s.Config) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// UserProcesses lists the pids of every process the remote user runs.
func (s *Server) UserProcesses() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat("/proc/"+e.Name(), &st) == nil && int(st.Uid) == s.UID {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitNoProcesses waits until the remote user runs nothing — the agent, its commands and
// the user's sshd session process all ended — and no ssh of this server runs on the app side.
func (s *Server) WaitNoProcesses(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		pids := append(s.UserProcesses(), s.LocalSSH()...)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var lines []string
			for _, p := range pids {
				b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
				lines = append(lines, fmt.Sprintf("%d %s", p, strings.ReplaceAll(string(b), "\x00", " ")))
			}
			t.Fatalf("processes of %s still run on the remote side:\n%s", TestUser, strings.Join(lines, "\n"))
		}
		<-tick.C
	}
}

// ForgetAgent removes the agent binaries from the test user's cache, as a first connection
// finds it.
func (s *Server) ForgetAgent(t testing.TB) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(s.Home, ".cache", "phoenix-desktop")); err != nil {
		t.Fatal(err)
	}
}
