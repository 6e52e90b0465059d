//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// This file lets the supervisor decide system calls that reach another process by its pid.
// Landlock does not check them all: signals only from ABI 6, resource limits, scheduling and
// priorities at no ABI (prlimit(2) with a CPU limit can even kill a process). A seccomp
// filter cannot tell the command's own processes from the rest, so it hands these calls to
// the supervisor (SECCOMP_RET_USER_NOTIF), which lets each through only when its target is
// one of the command's processes: the supervisor's descendants, itself and its threads
// excepted. Because the supervisor is a child subreaper and runs one command at a time,
// "below the supervisor" is exactly "the command's own", setsid escapees included.

// pidCall is a system call that targets a process, and how the filter treats it.
type pidCall struct {
	name string
	nr   uint32
	// shape says which arguments the filter and the supervisor look at.
	shape callShape
	// beforeSignalScope marks calls that Landlock's signal scope (ABI 6) checks itself: the
	// filter routes them to the supervisor only on older ABIs.
	beforeSignalScope bool
}

type callShape int

const (
	// targetFirst: the first argument is a pid, a thread id or (kill) a process group.
	targetFirst callShape = iota
	// targetFirstNonzero: the first argument is a pid, where 0 means the caller itself and
	// is let through by the filter.
	targetFirstNonzero
	// whichWho: (which, who) of setpriority(2) and ioprio_set(2); only "one process" is
	// routed, groups and users are refused.
	whichWho
	// pidfdTarget: pidfd_send_signal(2), whose first argument is a pidfd or a /proc/<pid>
	// directory; the supervisor sends the signal itself through its own copy of the
	// descriptor, because the caller could swap the descriptor between check and call.
	pidfdTarget
	// fcntlOwner: fcntl(2) F_SETOWN names a process or group to receive SIGIO and SIGURG;
	// F_SETOWN_EX (a pointer, which the caller could change after the check) is refused.
	fcntlOwner
)

// ioprioWhoProcess is IOPRIO_WHO_PROCESS from linux/ioprio.h.
const ioprioWhoProcess = 1

// pidCalls is the one list of such calls.
var pidCalls = []pidCall{
	{"kill", unix.SYS_KILL, targetFirst, true},
	{"tkill", unix.SYS_TKILL, targetFirst, true},
	{"tgkill", unix.SYS_TGKILL, targetFirst, true},
	{"rt_sigqueueinfo", unix.SYS_RT_SIGQUEUEINFO, targetFirst, true},
	{"rt_tgsigqueueinfo", unix.SYS_RT_TGSIGQUEUEINFO, targetFirst, true},
	{"pidfd_send_signal", unix.SYS_PIDFD_SEND_SIGNAL, pidfdTarget, true},
	{"fcntl", unix.SYS_FCNTL, fcntlOwner, true},
	{"prlimit64", unix.SYS_PRLIMIT64, targetFirstNonzero, false},
	{"sched_setaffinity", unix.SYS_SCHED_SETAFFINITY, targetFirstNonzero, false},
	{"sched_setscheduler", unix.SYS_SCHED_SETSCHEDULER, targetFirstNonzero, false},
	{"sched_setparam", unix.SYS_SCHED_SETPARAM, targetFirstNonzero, false},
	{"sched_setattr", unix.SYS_SCHED_SETATTR, targetFirstNonzero, false},
	{"setpriority", unix.SYS_SETPRIORITY, whichWho, false},
	{"ioprio_set", unix.SYS_IOPRIO_SET, whichWho, false},
}

// processWhich is the "one process" value of a whichWho call's first argument.
func processWhich(nr uint32) uint32 {
	if nr == unix.SYS_IOPRIO_SET {
		return ioprioWhoProcess
	}
	return unix.PRIO_PROCESS
}

const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retNotify = unix.SECCOMP_RET_USER_NOTIF
)

// argLow is the offset in struct seccomp_data of the low 32 bits of argument i. A pid, a
// signal and an fcntl or ioctl command are all int-sized, and the kernel reads only those
// bits.
func argLow(i int) uint32 {
	off := uint32(16 + 8*i)
	if bigEndian() {
		off += 4
	}
	return off
}

func bigEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 0
}

// pidCallRouting is the part of the filter, placed after the system call number is loaded,
// that routes the calls of pidCalls to the supervisor. supervisorPID is refused outright in
// every call that takes a thread-group id first, without asking the supervisor: the thread
// that installs the filter is one of the supervisor's own, and the Go runtime on it may
// signal its sibling threads (tgkill for preemption) before it has forked the command;
// waiting for the supervisor's answer there could stop the world for good, while a refused
// preemption signal only makes the runtime wait for the goroutine to yield. notify is the
// action for a call the supervisor decides: SECCOMP_RET_USER_NOTIF, or EPERM where the
// kernel gave no listener.
func pidCallRouting(abi int, supervisorPID uint32, notify uint32) []bpf.Instruction {
	scoped := signalsScopedAt(abi)
	var out []bpf.Instruction
	for _, c := range pidCalls {
		if c.beforeSignalScope && scoped {
			continue
		}
		var block []bpf.Instruction
		switch c.shape {
		case targetFirst:
			block = []bpf.Instruction{
				bpf.LoadAbsolute{Off: argLow(0), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: supervisorPID, SkipFalse: 1},
				bpf.RetConstant{Val: retEPERM},
				bpf.RetConstant{Val: notify},
			}
			if c.nr == unix.SYS_TKILL {
				// A thread id: the supervisor's own threads are told apart only by it.
				block = []bpf.Instruction{bpf.RetConstant{Val: notify}}
			}
		case pidfdTarget:
			block = []bpf.Instruction{bpf.RetConstant{Val: notify}}
		case targetFirstNonzero:
			block = []bpf.Instruction{
				bpf.LoadAbsolute{Off: argLow(0), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1},
				bpf.RetConstant{Val: retAllow},
				bpf.RetConstant{Val: notify},
			}
		case whichWho:
			block = []bpf.Instruction{
				bpf.LoadAbsolute{Off: argLow(0), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: processWhich(c.nr), SkipFalse: 4},
				bpf.LoadAbsolute{Off: argLow(1), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: 0, SkipFalse: 1},
				bpf.RetConstant{Val: retAllow},
				bpf.RetConstant{Val: notify},
				bpf.RetConstant{Val: retEPERM},
			}
		case fcntlOwner:
			block = []bpf.Instruction{
				bpf.LoadAbsolute{Off: argLow(1), Size: 4},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.F_SETOWN, SkipFalse: 1},
				bpf.RetConstant{Val: notify},
				bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.F_SETOWN_EX, SkipFalse: 1},
				bpf.RetConstant{Val: retEPERM},
				bpf.RetConstant{Val: retAllow},
			}
		}
		// Every block ends in a return, so the accumulator still holds the system call
		// number for the next comparison when this one does not match.
		out = append(out, bpf.JumpIf{Cond: bpf.JumpEqual, Val: c.nr, SkipFalse: uint8(len(block))})
		out = append(out, block...)
	}
	return out
}

// seccompNotif is struct seccomp_notif (linux/seccomp.h), which x/sys/unix does not define.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// notifier answers the routed calls of one command's filter. It lives until every process
// under the filter has ended and been reaped (the kernel then reports the listener hung
// up), which the sweep guarantees at the end of every command.
type notifier struct {
	listener int
	self     int
	// tempDir is the command's temp dir with symbolic links resolved, where the
	// supervisor carries out metadataCalls; empty in the mount view, which routes none.
	tempDir string
	// done is closed once the listener is closed.
	done chan struct{}
}

// serveNotifications starts answering on listener, which it owns and closes. tempDir is
// the command's temp dir when metadataCalls are routed (no mount view), else empty.
func serveNotifications(listener int, tempDir string) {
	n := &notifier{listener: listener, self: os.Getpid(), done: make(chan struct{})}
	if tempDir != "" {
		if real, err := filepath.EvalSymlinks(tempDir); err == nil {
			n.tempDir = real
		}
	}
	serving.Lock()
	serving.list = append(serving.list, n)
	serving.Unlock()
	go n.serve()
}

// serving lists the listeners not yet known to have closed. A supervisor runs one command at
// a time, so once a command's processes are swept its listener is the last, and it ends as
// soon as the kernel reports that no process uses the filter.
var serving struct {
	sync.Mutex
	list []*notifier
}

// notifierEndTimeout bounds the wait for a swept command's listener to close; the kernel
// reports the end within microseconds of the last reap, so this only turns a surprise into
// a descriptor closed a little later.
const notifierEndTimeout = 2 * time.Second

// waitNotifiersDone waits until every listener has closed, so that a command leaves no
// descriptor in the supervisor behind it. One that has not closed in time stays listed for
// the next wait.
func waitNotifiersDone() {
	serving.Lock()
	list := serving.list
	serving.list = nil
	serving.Unlock()
	deadline := time.After(notifierEndTimeout)
	for i, n := range list {
		select {
		case <-n.done:
		case <-deadline:
			serving.Lock()
			serving.list = append(serving.list, list[i:]...)
			serving.Unlock()
			return
		}
	}
}

func (n *notifier) serve() {
	defer close(n.done)
	defer unix.Close(n.listener)
	fds := []unix.PollFd{{Fd: int32(n.listener), Events: unix.POLLIN}}
	for {
		fds[0].Revents = 0
		if _, err := unix.Poll(fds, -1); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if fds[0].Revents&unix.POLLIN == 0 {
			// POLLHUP: no process uses the filter any more.
			return
		}
		var req seccompNotif
		if err := ioctlPtr(n.listener, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err != nil {
			// ENOENT: the caller was killed meanwhile; EINTR: try again.
			continue
		}
		resp := n.answer(&req)
		resp.ID = req.ID
		// ENOENT: the caller ended while it was decided; nothing to do.
		_ = ioctlPtr(n.listener, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
	}
}

func ioctlPtr(fd int, req uint, arg unsafe.Pointer) error {
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg))
	if errno != 0 {
		return errno
	}
	return nil
}

// allow lets the call run as the caller made it. The arguments are integers in registers,
// which the caller cannot change after the check; the pid they name could only be reused by
// another process if the target ended and the kernel went round all pids in between.
func allow() seccompNotifResp { return seccompNotifResp{Flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE} }

func refuse(errno unix.Errno) seccompNotifResp { return seccompNotifResp{Error: -int32(errno)} }

// answer decides one call.
func (n *notifier) answer(req *seccompNotif) seccompNotifResp {
	if name, ok := metadataNumbers[uint32(req.Nr)]; ok {
		return n.answerMetadata(req, name)
	}
	arg := func(i int) int { return int(int32(uint32(req.Args[i]))) }
	switch uint32(req.Nr) {
	case unix.SYS_KILL:
		switch pid := arg(0); {
		case pid > 0:
			return n.verdict(n.ownsProcess(pid))
		case pid == 0:
			// The caller's own group, which the kernel would look up only when the call
			// goes on: another thread of the caller could move it into another group in
			// between. So the supervisor signals the group it checked itself; nothing
			// outside can join that group later (a restricted command runs in a session
			// of its own, and a group has members of one session only).
			g, err := processGroupOf(int(req.Pid))
			if err != nil {
				return refuse(unix.ESRCH)
			}
			if owned, err := n.ownsGroup(g); err != nil || !owned {
				return n.verdict(owned, err)
			}
			if err := unix.Kill(-g, unix.Signal(arg(1))); err != nil {
				return refuseErr(err)
			}
			return seccompNotifResp{}
		case pid == -1:
			// Every process the caller may signal: the person's whole session.
			return refuse(unix.EPERM)
		default:
			return n.verdict(n.ownsGroup(-pid))
		}
	case unix.SYS_TKILL, unix.SYS_TGKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO,
		unix.SYS_PRLIMIT64, unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER,
		unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR:
		pid := arg(0)
		if pid <= 0 {
			// The kernel refuses these itself (or means the caller by 0, which the filter
			// lets through): nothing is reached.
			return allow()
		}
		return n.verdict(n.ownsProcess(pid))
	case unix.SYS_SETPRIORITY, unix.SYS_IOPRIO_SET:
		return n.verdict(n.ownsProcess(arg(1)))
	case unix.SYS_FCNTL:
		switch owner := arg(2); {
		case owner == 0:
			return allow()
		case owner > 0:
			return n.verdict(n.ownsProcess(owner))
		default:
			return n.verdict(n.ownsGroup(-owner))
		}
	case unix.SYS_PIDFD_SEND_SIGNAL:
		return n.sendThroughPidfd(req)
	}
	return refuse(unix.EPERM)
}

// verdict turns an ownership check into an answer: ESRCH for a target that does not exist,
// so that the call fails as it would have and no process that takes the number later is
// reached; EPERM for one outside the command.
func (n *notifier) verdict(owned bool, err error) seccompNotifResp {
	switch {
	case err != nil:
		return refuse(unix.ESRCH)
	case owned:
		return allow()
	default:
		return refuse(unix.EPERM)
	}
}

// sendThroughPidfd carries out pidfd_send_signal(2) for the caller: it takes its own copy of
// the caller's descriptor (pidfd_getfd), checks whose process that is, and sends the signal
// through the copy, so a descriptor swapped in by another thread of the caller after the
// check reaches nothing. Only the plain form is supported (no siginfo, no flags); Go's os
// package, the usual caller, uses no other.
func (n *notifier) sendThroughPidfd(req *seccompNotif) seccompNotifResp {
	if req.Args[2] != 0 || req.Args[3] != 0 {
		return refuse(unix.EPERM)
	}
	caller, err := callerPidfd(int(req.Pid))
	if err != nil {
		return refuse(unix.ESRCH)
	}
	defer unix.Close(caller)
	// The caller's pid named the caller when the pidfd was opened only if the notification
	// is still pending: it could have been killed and its pid reused in between.
	id := req.ID
	if ioctlPtr(n.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) != nil {
		return refuse(unix.ESRCH)
	}
	fd, err := unix.PidfdGetfd(caller, int(int32(uint32(req.Args[0]))), 0)
	if err != nil {
		return refuse(unix.EBADF)
	}
	defer unix.Close(fd)
	target, err := pidfdTargetOf(fd)
	if err != nil {
		return refuse(unix.EBADF)
	}
	if owned, err := n.ownsProcess(target); err != nil || !owned {
		return n.verdict(owned, err)
	}
	if err := unix.PidfdSendSignal(fd, unix.Signal(int32(uint32(req.Args[1]))), nil, 0); err != nil {
		return refuseErr(err)
	}
	return seccompNotifResp{}
}

// pidfdThread is PIDFD_THREAD (linux/pidfd.h, Linux 6.9), which x/sys/unix lacks: a pidfd
// for one thread rather than its thread group.
const pidfdThread = unix.O_EXCL

// callerPidfd is a pidfd of the calling thread tid, whose descriptor table pidfd_getfd then
// reads (a thread made without CLONE_FILES has its own); before Linux 6.9, of its thread
// group.
func callerPidfd(tid int) (int, error) {
	fd, err := unix.PidfdOpen(tid, pidfdThread)
	if err == nil {
		return fd, nil
	}
	tgid, terr := threadGroupOf(tid)
	if terr != nil {
		return -1, terr
	}
	return unix.PidfdOpen(tgid, 0)
}

// pidfdTargetOf is the pid a pidfd, or a /proc/<pid> directory opened as one, refers to.
func pidfdTargetOf(fd int) (int, error) {
	info, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	if v, ok := statusField(info, "Pid:"); ok {
		pid, err := strconv.Atoi(v)
		if err != nil || pid <= 0 {
			// -1: the process has ended.
			return 0, fmt.Errorf("pidfd %d refers to no live process (%q)", fd, v)
		}
		return pid, nil
	}
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	if rest, ok := strings.CutPrefix(link, "/proc/"); ok {
		var st, proc unix.Stat_t
		if pid, err := strconv.Atoi(rest); err == nil && pid > 0 &&
			unix.Fstat(fd, &st) == nil && unix.Stat("/proc", &proc) == nil && st.Dev == proc.Dev {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("descriptor %d (%s) is not a pidfd", fd, link)
}

// ownsProcess reports whether pid (a process or thread id) belongs to the command: it is
// below the supervisor and is not one of the supervisor's own threads. err is set when pid
// names no process.
func (n *notifier) ownsProcess(pid int) (bool, error) {
	tgid, err := threadGroupOf(pid)
	if err != nil {
		return false, err
	}
	if tgid == n.self {
		return false, nil
	}
	// Each step reads a parent that exists now; a loop in the chain is impossible, the
	// bound only guards against a /proc that is not what it seems.
	for p, steps := tgid, 0; steps < 4096; steps++ {
		parent, err := parentOf(p)
		if err != nil {
			return false, err
		}
		switch {
		case parent == n.self:
			return true, nil
		case parent <= 1:
			return false, nil
		}
		p = parent
	}
	return false, nil
}

// ownsGroup reports whether every member of process group g belongs to the command. A group
// whose members are all gone names nothing (err set).
func (n *notifier) ownsGroup(g int) (bool, error) {
	if g <= 0 {
		return false, nil
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return false, err
	}
	members := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		pg, err := processGroupOf(pid)
		if err != nil || pg != g {
			continue
		}
		members++
		owned, err := n.ownsProcess(pid)
		if err != nil {
			if _, gone := threadGroupOf(pid); gone != nil {
				// It ended while the group was read: it is no member any more.
				members--
				continue
			}
			return false, nil
		}
		if !owned {
			return false, nil
		}
	}
	if members == 0 {
		return false, fmt.Errorf("process group %d has no members", g)
	}
	return true, nil
}

// threadGroupOf is the process a thread id belongs to.
func threadGroupOf(tid int) (int, error) {
	b, err := readProcFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return 0, err
	}
	v, ok := statusField(b, "Tgid:")
	if !ok {
		return 0, fmt.Errorf("no Tgid in /proc/%d/status", tid)
	}
	return strconv.Atoi(v)
}

// processGroupOf is the process group of pid.
func processGroupOf(pid int) (int, error) {
	f, err := statFields(pid)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[2])
}

// statusField is the value of a "Name:\tvalue" line.
func statusField(b []byte, name string) (string, bool) {
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}
