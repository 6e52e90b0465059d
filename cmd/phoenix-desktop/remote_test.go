package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// TestDoctorRemoteRefusesAnOptionAsHost: the host goes to ssh as its destination, so a value
// ssh would read as an option (-oProxyCommand=…) is refused before ssh runs.
func TestDoctorRemoteRefusesAnOptionAsHost(t *testing.T) {
	code, out, errs := cli(t, "doctor", "--remote", "-oProxyCommand=touch /tmp/phoenix-doctor-pwned")
	if code == 0 || !strings.Contains(errs, "starts with \"-\"") {
		t.Errorf("doctor --remote -o…: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestChatRemoteRunsToolsOnTheHost_REQ_BED_010: a headless conversation on another machine
// (a real sshd on 127.0.0.1, another user) runs bash and patch there, in its folder there,
// and Restricted mode refuses writes on that side; nothing is left running on either side.
func TestChatRemoteRunsToolsOnTheHost_REQ_BED_010(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	data := t.TempDir()

	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--remote", s.Dest, "--cwd", proj, "--unrestricted",
		"bash: id -un; pwd ;; patch: made.txt <<< made there")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "in "+s.Dest+":"+proj, remotetest.TestUser, proj)
	fi, err := os.Stat(filepath.Join(proj, "made.txt"))
	if err != nil {
		t.Fatalf("patch did not write on the remote side: %v\n%s", err, out)
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != s.UID {
		t.Errorf("made.txt belongs to uid %d, not the remote user", st.Uid)
	}

	// Restricted (the default): the remote kernel's sandbox refuses the write there.
	code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--remote", s.Dest, "--cwd", proj, "bash: echo x > refused.txt")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(proj, "refused.txt")); err == nil {
		t.Errorf("a Restricted remote command wrote on the remote side:\n%s", out)
	}
	if !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "Permission denied") {
		t.Errorf("the refusal is not the sandbox's:\n%s", out)
	}
	s.WaitNoProcesses(t)
}

func TestChatRemoteNeedsAnAbsoluteFolder(t *testing.T) {
	code, _, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--remote", "somehost", "--cwd", "project", "hello")
	if code == 0 || !strings.Contains(errs, "--cwd must be the absolute path") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func mustContainAll(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// TestChatRemoteConnectionDropsMidCommand: the network to the host drops while a command
// runs there: the turn shows the lost connection within 5 s and comes to rest, and nothing
// of the command survives on the remote side (its agent sees its input end).
func TestChatRemoteConnectionDropsMidCommand(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj, "--unrestricted",
			"bash: sleep 300 & echo $! > pid; wait")
		done <- result{code, out, errs}
	}()
	pidFile := filepath.Join(proj, "pid")
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the remote command did not start within 60 s")
		}
	}
	// Every ssh process of this host ends at once: the network is gone.
	for _, pid := range s.LocalSSH() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case r := <-done:
		if !strings.Contains(r.out, "was lost while this ran") {
			t.Errorf("the turn does not say the connection was lost (exit %d):\n%s\n%s", r.code, r.out, r.errs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not come to rest within 5 s of the drop")
	}
	s.WaitNoProcesses(t)
}
