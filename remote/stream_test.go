package remote

import (
	"bufio"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// startStream starts spec on the host through the session and returns its streams.
func startStream(t *testing.T, sess *Session, spec StreamSpec) (cmd interface{ Wait() error }, in io.WriteCloser, out *bufio.Reader, pid func() int) {
	t.Helper()
	c, hello, err := sess.StreamCommand(context.Background(), context.Background(), spec)
	if err != nil {
		t.Fatalf("StreamCommand: %v", err)
	}
	stdin, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write(hello); err != nil {
		t.Fatal(err)
	}
	return c, stdin, bufio.NewReader(stdout), func() int { return c.Process.Pid }
}

// TestStreamRelaysAndEndsWithTheConnection: a process started through a stream runs on the
// host as the remote user, under the sandbox in the conversation's mode, its streams relayed
// both ways; when the app closes its input it ends there; when the connection drops, the
// local side reads the end of the stream at once and the process there dies, with every other
// process of the session (pid checks on both sides), and no goroutine is left.
func TestStreamRelaysAndEndsWithTheConnection(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	proj := s.ProjectDir(t)

	// Relayed both ways; the input's end ends it (cat exits on its own).
	cmd, in, out, _ := startStream(t, sess, StreamSpec{Command: "sh", Args: []string{"-c", "id -un; pwd; cat"}, Dir: proj, Mode: string(domain.ModeRestricted),
		Env: map[string]string{"FROM_APP": "set"}})
	if _, err := io.WriteString(in, "echo me\n"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{remotetest.TestUser, proj, "echo me"} {
		line, err := out.ReadString('\n')
		if err != nil || strings.TrimSpace(line) != want {
			t.Fatalf("read %q (%v), want %q", line, err, want)
		}
	}
	in.Close()
	if rest, _ := io.ReadAll(out); len(rest) != 0 {
		t.Errorf("more output after the input ended: %q", rest)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the stream did not end cleanly: %v", err)
	}

	// The sandbox applies there: Restricted writes nothing in the project.
	cmd, in, out, _ = startStream(t, sess, StreamSpec{Command: "sh", Args: []string{"-c", "echo x > written.txt; echo $?"}, Dir: proj, Mode: string(domain.ModeRestricted)})
	in.Close()
	line, _ := out.ReadString('\n')
	_ = cmd.Wait()
	if _, err := os.Stat(filepath.Join(proj, "written.txt")); err == nil || strings.TrimSpace(line) == "0" {
		t.Errorf("a Restricted stream wrote in the project there (exit %q)", line)
	}

	// A process that ignores its input's end is killed after the grace, and the stream ends.
	cmd, in, out, _ = startStream(t, sess, StreamSpec{Command: "sh", Args: []string{"-c", "echo started; exec sleep 301"}, Dir: proj, Mode: string(domain.ModeUnrestricted)})
	if line, err := out.ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("read %q %v", line, err)
	}
	deaf := remotePIDOf(t, s, "sleep 301")
	in.Close()
	closed := make(chan struct{})
	go func() {
		_, _ = io.ReadAll(out)
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(streamGrace + 5*time.Second):
		t.Fatal("the stream of a process that ignores its input did not end after the grace")
	}
	_ = cmd.Wait()
	waitGone(t, deaf)

	// The network drops while a process runs.
	cmd, in, out, _ = startStream(t, sess, StreamSpec{Command: "sh", Args: []string{"-c", "trap '' HUP; echo started; exec sleep 300"}, Dir: proj, Mode: string(domain.ModeUnrestricted)})
	if line, err := out.ReadString('\n'); err != nil || line != "started\n" {
		t.Fatalf("read %q %v", line, err)
	}
	sleeper := remotePIDOf(t, s, "sleep 300")
	// The network drops: the master connection — and with it every session — is gone.
	killMaster(t, s)
	ended := make(chan []byte, 1)
	go func() {
		rest, _ := io.ReadAll(out)
		ended <- rest
	}()
	select {
	case rest := <-ended:
		if len(rest) != 0 {
			t.Errorf("after the drop: %q", rest)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the local side of the stream did not end within 5 s of the drop")
	}
	in.Close()
	if err := cmd.Wait(); err == nil {
		t.Errorf("a dropped stream ended as if it had finished")
	}
	waitGone(t, sleeper)
	sess.Close()
	s.WaitNoProcesses(t)
}

// remotePIDOf finds the remote user's process whose command line holds text.
func remotePIDOf(t *testing.T, s *remotetest.Server, text string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, pid := range s.UserProcesses() {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), text) {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process %q of the remote user", text)
		}
		<-tick.C // polling /proc: there is no event to wait on
	}
}

// waitGone waits until pid has exited (streamGrace and a kill, at most a few seconds).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for syscall.Kill(pid, 0) == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(b), ") Z ") {
			return // a zombie: dead, its parent reaps it
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d still runs on the remote side", pid)
		}
		<-tick.C // polling /proc: there is no event to wait on
	}
}
