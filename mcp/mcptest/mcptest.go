// Package mcptest helps the tests and benchmarks that run real MCP servers: it finds the
// reference servers that scripts/setup.sh installs from npm (failing in CI, skipping with a
// clear message elsewhere when one is missing), and watches the processes a server leaves,
// so that a test can check that Stop or Close left none.
//
// It also holds a small MCP server on the official SDK (server.go) that a test binary becomes
// when asked (MaybeRunServer), for the edge cases real servers do not show on demand, and a
// small OAuth authorization server of our own in front of it over streamable HTTP (oauth.go),
// for the sign-in of URL servers.
//
// It imports nothing of ours, so any package's tests may use it.
package mcptest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The reference servers' commands, as npm installs them.
const (
	Filesystem = "mcp-server-filesystem"
	Everything = "mcp-server-everything"
)

// Server returns the path of an installed reference server. When it is missing the test fails
// in CI (CI=true), whose set-up installs it, and is skipped elsewhere.
func Server(t testing.TB, bin string) string {
	t.Helper()
	path, err := exec.LookPath(bin)
	if err != nil {
		Missing(t, fmt.Sprintf("%s is not installed (bash scripts/setup.sh installs it from npm)", bin))
	}
	return path
}

// Missing fails the test in CI and skips it elsewhere, with the reason.
func Missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

// Descendants lists the live processes below pid (zombies excluded), from /proc.
func Descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses; the fields after its last
		// closing parenthesis do not.
		s := string(data)
		var state string
		var ppid int
		if _, err := fmt.Sscan(s[strings.LastIndexByte(s, ')')+2:], &state, &ppid); err == nil && state != "Z" {
			parent[p] = ppid
		}
	}
	var out []int
	for p := range parent {
		for q, hops := parent[p], 0; q > 1 && hops < 64; q, hops = parent[q], hops+1 {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// WaitExited waits until every process of pids has exited, or the timeout passes; it returns
// those still running then. It waits on each process's pidfd, which becomes readable when the
// process exits, so no polling interval decides the outcome.
func WaitExited(pids []int, timeout time.Duration) []int {
	deadline := time.Now().Add(timeout)
	var left []int
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue
		}
		if err != nil {
			left = append(left, pid)
			continue
		}
		ms := max(int(time.Until(deadline)/time.Millisecond), 0)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, ms)
		for errors.Is(err, unix.EINTR) {
			n, err = unix.Poll(fds, max(int(time.Until(deadline)/time.Millisecond), 0))
		}
		unix.Close(fd)
		if err != nil || n == 0 {
			left = append(left, pid)
		}
	}
	return left
}
