//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter evaluates the filter in x/net/bpf's interpreter for one system call. The
// interpreter loads words big-endian, so seccomp_data is laid out big-endian here.
func runFilter(t *testing.T, nr, auditArch uint32) uint32 {
	t.Helper()
	return runFilterKey(t, programKey{abi: MinABI, supervisorPID: 1000, notify: true}, nr, auditArch)
}

// runFilterKey evaluates the filter of key for one system call with the given arguments'
// low 32 bits.
func runFilterKey(t *testing.T, key programKey, nr, auditArch uint32, args ...uint32) uint32 {
	t.Helper()
	insts, err := seccompFilter(key)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatalf("the filter is not a valid BPF program: %v", err)
	}
	data := make([]byte, 64) // struct seccomp_data: nr, arch, ip, args[6]
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[argLow(i):], a)
	}
	ret, err := vm.Run(data)
	if err != nil {
		t.Fatalf("run the filter: %v", err)
	}
	return uint32(ret)
}

// TestSeccompFilter_REQ_BED_014 checks the decisions of the filter without loading it.
func TestSeccompFilter_REQ_BED_014(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	id := uint32(native.ID)
	const allow = unix.SECCOMP_RET_ALLOW
	cases := []struct {
		name string
		nr   uint32
		arch uint32
		want uint32
	}{
		{"socket denied", unix.SYS_SOCKET, id, retEPERM},
		{"io_uring_setup denied", unix.SYS_IO_URING_SETUP, id, retEPERM},
		{"pidfd_getfd denied", unix.SYS_PIDFD_GETFD, id, retEPERM},
		{"bpf denied", unix.SYS_BPF, id, retEPERM},
		{"fchmodat handed to the supervisor", unix.SYS_FCHMODAT, id, retNotify},
		{"fchmodat2 handed to the supervisor", unix.SYS_FCHMODAT2, id, retNotify},
		{"fchownat handed to the supervisor", unix.SYS_FCHOWNAT, id, retNotify},
		{"setxattrat denied (newer than the library's table)", unix.SYS_SETXATTRAT, id, retEPERM},
		{"file_setattr denied (newer than the library's table)", unix.SYS_FILE_SETATTR, id, retEPERM},
		{"read allowed", unix.SYS_READ, id, allow},
		{"openat allowed", unix.SYS_OPENAT, id, allow},
		{"socketpair allowed", unix.SYS_SOCKETPAIR, id, allow},
		{"execve allowed", unix.SYS_EXECVE, id, allow},
		{"utimensat handed to the supervisor", unix.SYS_UTIMENSAT, id, retNotify},
		// A 32-bit system call (int 0x80) on x86-64 carries AUDIT_ARCH_I386; the library on
		// its own would let it through. 102 is socketcall there.
		{"foreign architecture denied", 102, unix.AUDIT_ARCH_I386, retEPERM},
		{"foreign architecture denied even for read", 3, unix.AUDIT_ARCH_ARM, retEPERM},
	}
	if native.ID == arch.X86_64.ID {
		cases = append(cases, struct {
			name string
			nr   uint32
			arch uint32
			want uint32
		}{"x32 calling convention denied", unix.SYS_READ | 0x40000000, id, unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runFilter(t, c.nr, c.arch); got != c.want {
				t.Errorf("filter returned %#x, want %#x", got, c.want)
			}
		})
	}
}

func TestDeniedSyscallsKnownToLibrary(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	// Names missing on this architecture are skipped by design, but socket and ptrace exist
	// everywhere: if they were missing, the table lookup itself would be broken.
	for _, n := range []string{"socket", "ptrace", "io_uring_setup", "fchmodat", "setxattr"} {
		if _, ok := native.SyscallNames[n]; !ok {
			t.Errorf("%s is not in the syscall table of %s", n, native.Name)
		}
	}
}

// TestSeccompRoutesCallsToOtherProcesses: the calls that reach another process by its pid
// go to the supervisor (or, without a listener, are refused); a caller's own process (pid 0)
// and unrelated commands pass at once; signals go to the supervisor only where Landlock does
// not scope them.
func TestSeccompRoutesCallsToOtherProcesses(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Fatal(err)
	}
	id := uint32(native.ID)
	const (
		allow      = unix.SECCOMP_RET_ALLOW
		supervisor = 4242
		minusOne   = ^uint32(0)
	)
	cases := []struct {
		name string
		abi  int
		nr   uint32
		args []uint32
		want uint32
	}{
		{"kill of a pid before the signal scope", 5, unix.SYS_KILL, []uint32{77, 9}, retNotify},
		{"kill of a group before the signal scope", 1, unix.SYS_KILL, []uint32{minusOne - 76, 9}, retNotify},
		{"kill of the supervisor refused outright", 5, unix.SYS_KILL, []uint32{supervisor, 9}, retEPERM},
		{"tgkill of the supervisor's threads refused outright", 2, unix.SYS_TGKILL, []uint32{supervisor, supervisor + 3, 9}, retEPERM},
		{"tkill asks the supervisor", 2, unix.SYS_TKILL, []uint32{supervisor + 3, 9}, retNotify},
		{"pidfd_send_signal asks the supervisor", 1, unix.SYS_PIDFD_SEND_SIGNAL, []uint32{5, 9}, retNotify},
		{"kill left to Landlock from ABI 6", 6, unix.SYS_KILL, []uint32{77, 9}, allow},
		{"pidfd_send_signal left to Landlock from ABI 6", 7, unix.SYS_PIDFD_SEND_SIGNAL, []uint32{5, 9}, allow},
		{"F_SETOWN asks the supervisor", 1, unix.SYS_FCNTL, []uint32{3, unix.F_SETOWN, 77}, retNotify},
		{"F_SETOWN_EX refused", 1, unix.SYS_FCNTL, []uint32{3, unix.F_SETOWN_EX, 0}, retEPERM},
		{"other fcntl allowed", 1, unix.SYS_FCNTL, []uint32{3, unix.F_GETFL}, allow},
		{"FIOSETOWN refused", 1, unix.SYS_IOCTL, []uint32{3, 0x8901}, retENOTTY},
		{"SIOCSPGRP refused", 1, unix.SYS_IOCTL, []uint32{3, unix.SIOCSPGRP}, retENOTTY},
		{"FIOSETOWN refused with the signal scope too", 6, unix.SYS_IOCTL, []uint32{3, 0x8901}, retENOTTY},
		{"chattr flags refused without the mount view", 7, unix.SYS_IOCTL, []uint32{3, unix.FS_IOC_SETFLAGS}, retENOTTY},
		{"file attributes refused without the mount view", 7, unix.SYS_IOCTL, []uint32{3, fsIOCFSSetXattr}, retENOTTY},
		{"an fscrypt key cannot be added", 7, unix.SYS_IOCTL, []uint32{3, unix.FS_IOC_ADD_ENCRYPTION_KEY}, retENOTTY},
		{"an fscrypt key cannot be removed", 7, unix.SYS_IOCTL, []uint32{3, unix.FS_IOC_REMOVE_ENCRYPTION_KEY}, retENOTTY},
		{"an inode generation cannot be set", 7, unix.SYS_IOCTL, []uint32{3, 0x40087602}, retENOTTY},
		{"a file-system label cannot be set", 7, unix.SYS_IOCTL, []uint32{3, 0x41009432}, retENOTTY},
		{"TIOCSTI refused", 1, unix.SYS_IOCTL, []uint32{0, unix.TIOCSTI}, retENOTTY},
		{"terminal queries allowed", 1, unix.SYS_IOCTL, []uint32{1, unix.TCGETS}, allow},
		{"FIOCLEX allowed", 1, unix.SYS_IOCTL, []uint32{1, 0x5451}, allow},
		{"the high half of a request does not count", 1, unix.SYS_IOCTL, []uint32{1, unix.TCGETS}, allow},
		{"ptrace is left to Landlock", 1, unix.SYS_PTRACE, []uint32{unix.PTRACE_TRACEME}, allow},
		{"unnamed stream pairs allowed", 1, unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_STREAM | unix.SOCK_CLOEXEC}, allow},
		{"unnamed datagram pairs refused", 1, unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_DGRAM | unix.SOCK_CLOEXEC}, retEPERM},
		{"System V shared memory refused without an IPC namespace", 7, unix.SYS_SHMGET, []uint32{0, 4096}, retEPERM},
		{"POSIX message queues refused without an IPC namespace", 7, unix.SYS_MQ_OPEN, nil, retEPERM},
		{"clone3 looks absent", 7, unix.SYS_CLONE3, nil, retENOSYS},
		{"clone of a process allowed", 7, unix.SYS_CLONE, []uint32{uint32(unix.SIGCHLD)}, allow},
		{"clone of a thread allowed", 7, unix.SYS_CLONE, []uint32{unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD}, allow},
		{"clone into a new user namespace refused", 7, unix.SYS_CLONE, []uint32{unix.CLONE_NEWUSER | uint32(unix.SIGCHLD)}, retEPERM},
		{"clone into a new pid namespace refused", 1, unix.SYS_CLONE, []uint32{unix.CLONE_NEWPID}, retEPERM},
		{"prlimit64 of itself allowed", 7, unix.SYS_PRLIMIT64, []uint32{0, unix.RLIMIT_NOFILE}, allow},
		{"prlimit64 of another process asks at every ABI", 7, unix.SYS_PRLIMIT64, []uint32{77, unix.RLIMIT_CPU}, retNotify},
		{"sched_setaffinity of another process asks", 7, unix.SYS_SCHED_SETAFFINITY, []uint32{77}, retNotify},
		{"setpriority of itself allowed", 7, unix.SYS_SETPRIORITY, []uint32{unix.PRIO_PROCESS, 0, 10}, allow},
		{"setpriority of another process asks", 7, unix.SYS_SETPRIORITY, []uint32{unix.PRIO_PROCESS, 77, 10}, retNotify},
		{"setpriority of every process of the user refused", 7, unix.SYS_SETPRIORITY, []uint32{unix.PRIO_USER, 0, 19}, retEPERM},
		{"ioprio_set of another process asks", 7, unix.SYS_IOPRIO_SET, []uint32{ioprioWhoProcess, 77, 0}, retNotify},
		{"ioprio_set of a group refused", 7, unix.SYS_IOPRIO_SET, []uint32{2, 0, 0}, retEPERM},
		{"unrelated calls pass", 1, unix.SYS_GETPID, nil, allow},
		{"sockets stay denied", 1, unix.SYS_SOCKET, []uint32{2, 2, 0}, retEPERM},
	}
	// In the mount view (and its network namespace) some of this is allowed.
	for _, c := range []struct {
		name string
		nr   uint32
		args []uint32
		want uint32
	}{
		{"TCP in the namespace", unix.SYS_SOCKET, []uint32{unix.AF_INET, unix.SOCK_STREAM | unix.SOCK_CLOEXEC, 0}, allow},
		{"UDP over IPv6 in the namespace", unix.SYS_SOCKET, []uint32{unix.AF_INET6, unix.SOCK_DGRAM, 0}, allow},
		{"raw sockets refused", unix.SYS_SOCKET, []uint32{unix.AF_INET, unix.SOCK_RAW, 1}, retEPERM},
		{"unix sockets refused", unix.SYS_SOCKET, []uint32{unix.AF_UNIX, unix.SOCK_STREAM, 0}, retEPERM},
		{"unix datagram sockets refused", unix.SYS_SOCKET, []uint32{unix.AF_UNIX, unix.SOCK_DGRAM, 0}, retEPERM},
		{"routing netlink allowed", unix.SYS_SOCKET, []uint32{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE}, allow},
		{"audit netlink refused", unix.SYS_SOCKET, []uint32{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT}, retEPERM},
		{"packet sockets refused", unix.SYS_SOCKET, []uint32{unix.AF_PACKET, unix.SOCK_RAW, 0}, retEPERM},
		{"datagram pairs refused", unix.SYS_SOCKETPAIR, []uint32{unix.AF_UNIX, unix.SOCK_DGRAM}, retEPERM},
		{"shared memory in the command's IPC namespace", unix.SYS_SHMGET, []uint32{0, 4096}, allow},
		{"chattr in the view", unix.SYS_IOCTL, []uint32{3, unix.FS_IOC_SETFLAGS}, allow},
		{"an fscrypt key cannot be added in the view", unix.SYS_IOCTL, []uint32{3, unix.FS_IOC_ADD_ENCRYPTION_KEY}, retENOTTY},
		{"interface queries in the namespace", unix.SYS_IOCTL, []uint32{3, unix.SIOCGIFFLAGS}, allow},
		{"interface changes refused", unix.SYS_IOCTL, []uint32{3, unix.SIOCSIFFLAGS}, retENOTTY},
	} {
		key := programKey{abi: 7, mountView: true, supervisorPID: supervisor, notify: true}
		if got := runFilterKey(t, key, c.nr, id, c.args...); got != c.want {
			t.Errorf("mount view, %s: filter returned %#x, want %#x", c.name, got, c.want)
		}
	}
	// Without the mount view, modes and timestamps go to the supervisor too; without a
	// listener the old rules apply: modes denied, timestamps allowed.
	for _, c := range []struct {
		nr             uint32
		view, listener uint32
		without        uint32
	}{
		{unix.SYS_FCHMODAT, allow, retNotify, retEPERM},
		{unix.SYS_FCHMOD, allow, retNotify, retEPERM},
		{unix.SYS_UTIMENSAT, allow, retNotify, allow},
		{unix.SYS_FCHOWNAT, allow, retNotify, retEPERM},
		{unix.SYS_SETXATTRAT, allow, retEPERM, retEPERM},
	} {
		for _, k := range []struct {
			mountView, notify bool
			want              uint32
		}{{true, true, c.view}, {false, true, c.listener}, {false, false, c.without}} {
			key := programKey{abi: 7, mountView: k.mountView, supervisorPID: supervisor, notify: k.notify}
			if got := runFilterKey(t, key, c.nr, id); got != k.want {
				t.Errorf("system call %d, mount view %v, listener %v: filter returned %#x, want %#x", c.nr, k.mountView, k.notify, got, k.want)
			}
		}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := programKey{abi: c.abi, supervisorPID: supervisor, notify: true}
			if got := runFilterKey(t, key, c.nr, id, c.args...); got != c.want {
				t.Errorf("filter returned %#x, want %#x", got, c.want)
			}
			want := c.want
			if want == retNotify {
				want = retEPERM
			}
			key.notify = false
			if got := runFilterKey(t, key, c.nr, id, c.args...); got != want {
				t.Errorf("without a listener the filter returned %#x, want %#x", got, want)
			}
		})
	}
}
