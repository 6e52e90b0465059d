package remote

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// killMaster kills the host's master connection — the one TCP connection, so this is the
// network dropping — and returns when it is gone.
func killMaster(t testing.TB, s *remotetest.Server) {
	t.Helper()
	out, err := exec.Command("ssh", "-F", s.Config, "-o", "ControlPath="+controlPath(t), "-O", "check", s.Dest).CombinedOutput()
	m := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("no master connection to kill: %v %s", err, out)
	}
	pid, _ := strconv.Atoi(string(m[1]))
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
}

// controlPath is the master's socket path as Dial sets it.
func controlPath(t testing.TB) string {
	t.Helper()
	dir, err := controlDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "%C")
}

// endMaster ends the master connection at the end of a test that used Client alone.
func endMaster(t testing.TB, s *remotetest.Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	EndMaster(ctx, Options{Destination: s.Dest, ConfigFile: s.Config})
}
