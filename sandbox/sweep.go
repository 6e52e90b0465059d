//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// sweptLive says whether the last sweep SIGKILLed a process of its command that was still
// there: only then can a git of the command have ended without removing its lock files
// (removeStaleLocks). The supervisor runs one command at a time.
var sweptLive bool

// sweep SIGKILLs bash's process group and then, until the helper has no children left, every
// process below it — which, because it is a subreaper, includes every orphaned descendant —
// and reaps them. Each round kills whole trees at once, so that their processes end in
// parallel rather than one generation per round; a process that a dying parent left behind
// is reparented to the helper and found by the next round. With no child left it returns at
// once, without reading /proc.
func sweep(bashPID int) {
	defer waitNotifiersDone()
	// bash's pid stays reserved as a group id while any member lives, so this cannot hit an
	// unrelated group.
	sweptLive = unix.Kill(-bashPID, unix.SIGKILL) == nil
	for reapEnded() {
		for _, child := range children() {
			sweptLive = true
			killTree(child)
		}
		// Wait for one of them to end; the next round reaps the others that have ended by
		// then and looks for the orphans the ended ones left.
		var ws unix.WaitStatus
		_, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.ECHILD) {
			return
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			// Wait4(-1) fails only with ECHILD or EINTR; anything else means the kernel
			// refuses to tell us, and looping would spin.
			fmt.Fprintf(os.Stderr, "phoenix sandbox: reaping the command's processes failed: %v\n", err)
			return
		}
	}
}

// killTree SIGKILLs child, a child of the helper, and every descendant it has. A process is
// killed before its children are listed, so it cannot add any afterwards.
func killTree(child int) {
	_ = unix.Kill(child, unix.SIGKILL)
	type proc struct{ pid, parent int }
	var stack []proc
	for _, c := range childrenOf(strconv.Itoa(child)) {
		stack = append(stack, proc{c, child})
	}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !killDescendant(p.pid, p.parent) {
			continue
		}
		for _, c := range childrenOf(strconv.Itoa(p.pid)) {
			stack = append(stack, proc{c, p.pid})
		}
	}
}

// killDescendant SIGKILLs pid, found as a child of parent, unless it is no longer that
// process. A child's pid stays reserved until the helper reaps it, but a grandchild whose
// parent ignores SIGCHLD is reaped by the kernel as soon as it ends, and its pid could in
// principle be reused before the kill. So the process is pinned with a pidfd and checked to
// still be the child of parent (which, killed, cannot fork) or, reparented, of the helper.
// Without pidfds (before Linux 5.3) descendants are left to later rounds, which reach them
// as the helper's own children once their parents have ended.
func killDescendant(pid, parent int) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	ppid, err := parentOf(pid)
	if err != nil || (ppid != parent && ppid != os.Getpid()) {
		return false
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0) == nil
}

// parentOf reads the parent pid from /proc/PID/stat.
func parentOf(pid int) (int, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[1])
}

// statFields are the fields of /proc/PID/stat after the command name: "state ppid pgrp ...".
func statFields(pid int) ([]string, error) {
	b, err := readProcFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	// The command name in parentheses may contain spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 3 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat: %q", pid, s)
	}
	return f, nil
}

// reapEnded reaps, without waiting, every child that has ended, and reports whether any
// child is left.
func reapEnded() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case errors.Is(err, unix.ECHILD):
			return false
		case err != nil:
			fmt.Fprintf(os.Stderr, "phoenix sandbox: reaping the command's processes failed: %v\n", err)
			return false
		case pid == 0:
			return true
		}
	}
}

// children lists the helper's direct children.
func children() []int {
	kids := childrenOf("self")
	if kids == nil && !haveChildrenFiles() {
		return childrenByScan(os.Getpid())
	}
	return kids
}

// childrenOf lists the children of a process ("self" or a pid) from
// /proc/PID/task/*/children, which is exact and cheap. The files are read with plain system
// calls: os.Open would also try, and fail, to register each one with the runtime's poller.
func childrenOf(pid string) []int {
	dir, err := unix.Open("/proc/"+pid+"/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // the process has ended
	}
	var names []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.ReadDirent(dir, buf)
		if err != nil || n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
	unix.Close(dir)
	var out []int
	for _, tid := range names {
		b, err := readProcFile("/proc/" + pid + "/task/" + tid + "/children")
		if err != nil {
			continue // the thread has ended
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// haveChildrenFiles reports whether the kernel has /proc/PID/task/TID/children; kernels
// built without CONFIG_PROC_CHILDREN lack it, and then every process's stat is read instead.
func haveChildrenFiles() bool {
	var st unix.Stat_t
	return unix.Stat("/proc/thread-self/children", &st) == nil
}

// readProcFile reads a small /proc file whole.
func readProcFile(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var out []byte
	buf := make([]byte, 512)
	for {
		n, err := unix.Read(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		out = append(out, buf[:n]...)
	}
}

func childrenByScan(parent int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, err := parentOf(pid); err == nil && ppid == parent {
			out = append(out, pid)
		}
	}
	return out
}

func exitStatus(ws unix.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 128 + int(syscall.SIGKILL)
}
