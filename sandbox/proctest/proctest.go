//go:build linux

// Package proctest finds, for tests, the processes a sandboxed command started, by the pids
// the command itself saw. In the mount view a command runs in a pid namespace of its own,
// so the pid it prints ($$, $!) is not the pid the test sees; the test asks here, while the
// processes still run, which of its own descendants carry those pids inside their
// namespace. It imports nothing of ours.
package proctest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HostPIDs maps pids as a command saw them to the pids of the same processes here: the
// descendants of ancestor (the test process, or the process that started the supervisor)
// whose innermost pid is the one given. It fails for a pid no such process carries.
func HostPIDs(seen []int, ancestor int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	inner := map[int][]int{} // innermost pid → host pids
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ns, ppid, ok := nsPID(pid)
		if !ok || !descends(pid, ppid, ancestor) {
			continue
		}
		inner[ns] = append(inner[ns], pid)
	}
	out := make([]int, 0, len(seen))
	for _, s := range seen {
		hosts := inner[s]
		switch len(hosts) {
		case 1:
			out = append(out, hosts[0])
		case 0:
			return out, fmt.Errorf("no descendant of %d carries pid %d in its namespace", ancestor, s)
		default:
			return out, fmt.Errorf("several descendants of %d carry pid %d: %v", ancestor, s, hosts)
		}
	}
	return out, nil
}

// nsPID reads a process's innermost pid (the last of NSpid) and its parent.
func nsPID(pid int) (inner, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, 0, false
	}
	inner, ppid = -1, -1
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "NSpid:"):
			f := strings.Fields(strings.TrimPrefix(line, "NSpid:"))
			if len(f) > 0 {
				inner, _ = strconv.Atoi(f[len(f)-1])
			}
		case strings.HasPrefix(line, "PPid:"):
			ppid, _ = strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "PPid:")))
		}
	}
	return inner, ppid, inner > 0 && ppid >= 0
}

// descends reports whether pid (whose parent is ppid) lies below ancestor.
func descends(pid, ppid, ancestor int) bool {
	for steps := 0; steps < 4096 && ppid > 1; steps++ {
		if ppid == ancestor {
			return true
		}
		_, next, ok := nsPID(ppid)
		if !ok {
			return false
		}
		ppid = next
	}
	return ppid == ancestor && pid != ancestor
}
