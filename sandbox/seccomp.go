//go:build linux

package sandbox

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM inside the Restricted sandbox. Landlock's network rules
// cover only TCP connect and bind on this kernel generation, so the filter closes what they
// miss, and a few kernel interfaces that would reach past a path-based sandbox.
var deniedSyscalls = []string{
	// Sockets are decided in sockets.go. io_uring can open sockets and files without the
	// socket(2) system call.
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	// ptrace(2) and process_vm_readv(2)/writev(2) stay allowed: Landlock (every ABI) lets
	// a command trace only processes of its own domain — its own descendants, never the
	// supervisor, whose threads are outside it, nor another command — and Yama, where
	// present, only its own children; so strace -f and gdb of its own programs work.
	// pidfd_getfd(2) is not needed for that.
	"pidfd_getfd",
	// Kernel code, tracing and global state that root could otherwise still change.
	"bpf", "perf_event_open", "userfaultfd",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig",
	"fsmount", "fspick", "mount_setattr", "unshare", "setns",
	"keyctl", "add_key", "request_key",
	"reboot", "swapon", "swapoff", "acct", "settimeofday", "clock_settime", "clock_adjtime",
	"adjtimex", "sethostname", "setdomainname", "iopl", "ioperm", "syslog", "quotactl",
	"open_by_handle_at", "fanotify_init",
}

// deniedNumbersWithoutMountView are metadata writes Landlock does not cover and the
// supervisor does not carry out (see metadata.go), newer than the go-seccomp-bpf syscall
// table: extended attributes and file attributes by a path relative to a directory. With
// the mount view the kernel refuses them outside the temp dir (EROFS) and they work inside
// it, so they are denied only without it.
var deniedNumbersWithoutMountView = []uint32{
	unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT, unix.SYS_FILE_SETATTR,
}

// deniedBeforeABI are system calls denied only when the Landlock ABI in force is older than
// the one that covers them: truncate(2) changes a file through its path without opening it,
// and Landlock checks it only from ABI 3. ftruncate(2) needs a descriptor opened for
// writing, which Landlock already refuses outside the temp dir at every ABI.
var deniedBeforeABI = map[int][]string{
	3: {"truncate", "truncate64"},
}

// deniedNumbers are denied system calls newer than the go-seccomp-bpf syscall table (Linux
// 6.11). Since Linux 5.1 every architecture numbers new system calls alike, and x/sys/unix
// gives the number for the architecture being built.
var deniedNumbers = []uint32{unix.SYS_OPEN_TREE_ATTR}

// fsIOC32SetFlags and fsIOCFSSetXattr are FS_IOC32_SETFLAGS and FS_IOC_FSSETXATTR
// (linux/fs.h), which x/sys/unix lacks: _IOW('f', 2, int) and _IOW('X', 32, struct fsxattr).
const (
	fsIOC32SetFlags = 0x40046602
	fsIOCFSSetXattr = 0x401c5820
)

// cloneNewNamespaces are clone(2)'s flags that make new namespaces; unshare(2) and setns(2)
// are denied outright. A user namespace would give the command a root of its own to attack
// the kernel with, and mount and pid namespaces views of its own.
const cloneNewNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// retENOSYS makes a system call look absent.
const retENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)

// namespaceRouting refuses clone(2) with a namespace flag, and answers clone3(2), whose flags
// sit in memory the filter cannot read, with ENOSYS: the C library and Go then fall back to
// clone(2), as they do on kernels before 5.3.
func namespaceRouting() []bpf.Instruction {
	return []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE3, SkipFalse: 1},
		bpf.RetConstant{Val: retENOSYS},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_CLONE, SkipFalse: 4},
		bpf.LoadAbsolute{Off: argLow(0), Size: 4},
		bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: cloneNewNamespaces, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	}
}

// retEPERM makes a denied system call fail with "Operation not permitted".
const retEPERM = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)

// seccompFilter builds the filter program. It uses go-seccomp-bpf for the syscall table and
// the assembly, with one correction: the library's own architecture check jumps to its
// default action, which is "allow" for a deny list, so a 32-bit int 0x80 system call
// (socketcall on i386) would pass. The guard in front returns EPERM for every system call
// made with a foreign calling convention, and for the numbers the library does not know.
// After it, the calls that reach another process by its pid go to the supervisor (see
// notify.go): with notify set as SECCOMP_RET_USER_NOTIF, otherwise refused.
func seccompFilter(key programKey) ([]bpf.Instruction, error) {
	abi, mountView := key.abi, key.mountView
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, fmt.Errorf("seccomp: unknown native architecture: %w", err)
	}
	// Older calls such as chmod(2) do not exist on newer architectures (arm64 has only
	// fchmodat); the library rejects unknown names, and such a call cannot be made anyway.
	var names []string
	denied := slices.Clone(deniedSyscalls)
	numbers := slices.Clone(deniedNumbers)
	if !mountView {
		numbers = append(numbers, deniedNumbersWithoutMountView...)
	}
	if !mountView {
		// The mount view gives each command an IPC namespace of its own (namespaces.go).
		denied = append(denied, ipcSyscalls...)
	}
	for _, minABI := range slices.Sorted(maps.Keys(deniedBeforeABI)) {
		if abi < minABI {
			denied = append(denied, deniedBeforeABI[minABI]...)
		}
	}
	for _, n := range denied {
		if _, ok := native.SyscallNames[n]; ok {
			names = append(names, n)
		}
	}
	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		// One group only: the library ends every group with the default action, so a second
		// group would never be reached.
		Syscalls: []seccomp.SyscallGroup{{Action: seccomp.ActionErrno, Names: names}},
	}
	body, err := policy.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble the filter: %w", err)
	}
	guard := []bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.LoadAbsolute{Off: 0, Size: 4}, // seccomp_data.nr
	}
	k := len(numbers)
	for i, nr := range numbers {
		// Jump over the remaining comparisons and the "continue" jump to the EPERM return.
		guard = append(guard, bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipTrue: uint8(k - i)})
	}
	guard = append(guard, bpf.Jump{Skip: 1}, bpf.RetConstant{Val: retEPERM})
	action := uint32(retEPERM)
	if key.notify {
		action = retNotify
	}
	guard = append(guard, pidCallRouting(abi, key.supervisorPID, action)...)
	// The mount view's supervisor runs in a network namespace of its own (namespaces.go).
	netns := mountView
	guard = append(guard, socketRouting(netns)...)
	guard = append(guard, ioctlRouting(mountView, netns)...)
	guard = append(guard, namespaceRouting()...)
	if !mountView {
		guard = append(guard, metadataRouting(key.notify)...)
	}
	// The first four instructions check the architecture and load the call number.
	head, rest := guard[:4:4], append(guard[4:], body...)
	if key.listOnly {
		return append(head, rest...), nil
	}
	return append(append(head, fastPath(rest, uint32(native.ID))...), rest...), nil
}

// seccompProgram is the filter in the form seccomp(2) takes.
func seccompProgram(key programKey) ([]unix.SockFilter, error) {
	programs.Lock()
	defer programs.Unlock()
	if p, ok := programs.m[key]; ok {
		return p, nil
	}
	p, err := assembleProgram(key)
	if err != nil {
		return nil, err
	}
	if programs.m == nil {
		programs.m = map[programKey][]unix.SockFilter{}
	}
	programs.m[key] = p
	return p, nil
}

// programs caches the assembled filters: a long-lived supervisor loads the same one for each
// command. The kernel copies a filter when loading it, so sharing the slice is safe.
var programs struct {
	sync.Mutex
	m map[programKey][]unix.SockFilter
}

// programKey is what a filter depends on.
type programKey struct {
	abi       int
	mountView bool
	// supervisorPID is the process that installs the filter on one of its threads.
	supervisorPID uint32
	// notify says the supervisor answers the routed calls (SECCOMP_RET_USER_NOTIF);
	// without it they are refused.
	notify bool
	// listOnly leaves out the fast path (seccompfast.go): the tests and the benchmark
	// compare the filter with and without it.
	listOnly bool
}

func assembleProgram(key programKey) ([]unix.SockFilter, error) {
	insts, err := seccompFilter(key)
	if err != nil {
		return nil, err
	}
	raw, err := bpf.Assemble(insts)
	if err != nil {
		return nil, fmt.Errorf("seccomp: encode the filter: %w", err)
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filter, nil
}

// loadSeccomp installs the filter on the calling thread only: no SECCOMP_FILTER_FLAG_TSYNC,
// so the helper's other threads, which supervise the command, stay unfiltered. The caller
// has set no_new_privs on the thread already, which the kernel requires of an unprivileged
// filter. With listen set it asks the kernel for the filter's notification listener, a
// close-on-exec descriptor of this process, and returns it; otherwise it returns -1.
func loadSeccomp(filter []unix.SockFilter, listen bool) (int, error) {
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	var flags uintptr
	if listen {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: load the filter: %w", errno)
	}
	if !listen {
		return -1, nil
	}
	return int(r), nil
}

// userNotifAvailable reports whether the supervisor can decide the calls the filter hands
// it: the kernel has SECCOMP_RET_USER_NOTIF (Linux 5.0), and Yama lets the supervisor read
// its command's memory and descriptors (process_vm_readv, pidfd_getfd), which it needs to
// act on what the command named.
func userNotifAvailable() error {
	action := uint32(retNotify)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	if errno != 0 {
		return fmt.Errorf("the kernel has no seccomp user notification: %w", errno)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil {
		if scope := strings.TrimSpace(string(b)); scope != "0" && scope != "1" {
			return fmt.Errorf("the ptrace_scope of Yama is %s, so the supervisor may not read its command's memory", scope)
		}
	}
	return nil
}
