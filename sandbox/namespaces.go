//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// The namespaces of the mount view beyond the mount namespace itself (mountview.go):
//
//   - network: the supervisor runs in a network namespace of its own that has only a
//     loopback interface, brought up here. A command's own servers and clients on loopback
//     work (a test that starts a server); the person's loopback services, every other
//     interface and abstract unix sockets outside (they belong to a network namespace) are
//     out of reach. Creating one per command would cost about 2 ms, so it is one per
//     supervisor: the sweep after each command closes every socket a command had.
//   - IPC: each command gets a System V IPC and POSIX message queue namespace of its own
//     (unshare(2) on the restricting thread, which the command inherits), so shared
//     memory, semaphores and queues reach nothing outside and vanish with the command's
//     last process.
//   - /dev/shm: a private tmpfs, writable, emptied after each command, so Python's
//     multiprocessing (POSIX semaphores) and shm_open(3) work.
//
// Without the mount view there are no namespaces: the seccomp filter denies every socket
// but unnamed stream pairs, and every IPC call (sockets.go, seccomp.go).

// viewNamespaces are the namespaces a supervisor of the mount view is started in. In the
// pid namespace the supervisor is process 1, so if anything outside kills it outright (the
// OOM killer, the person), the kernel kills every process of its commands with it; and a
// command sees only its own processes in /proc (not the person's other programs and their
// command lines).
const viewNamespaces = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWIPC | unix.CLONE_NEWPID

// mountProc mounts a /proc of the supervisor's pid namespace: the supervisor reads its
// commands' processes there by the pids they have in it.
func mountProc() error {
	// Read-only, like every other mount of the view.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount view: a /proc of the pid namespace: %w", err)
	}
	return nil
}

// setUpLoopback brings the loopback interface of the supervisor's new network namespace up
// (it starts down, and then even 127.0.0.1 is unreachable).
func setUpLoopback() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("network namespace: open a socket to configure loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("network namespace: read loopback's flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("network namespace: bring loopback up: %w", err)
	}
	return nil
}

// shmDir is where POSIX shared memory lives; glibc's shm_open(3) and sem_open(3) use it.
const shmDir = "/dev/shm"

// setUpShm mounts a private tmpfs on /dev/shm. It reports false when the system has no
// /dev/shm to mount over.
func setUpShm() (bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(shmDir, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false, nil
	}
	if err := unix.Mount("phoenix-shm", shmDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0700"); err != nil {
		return false, fmt.Errorf("mount view: a private /dev/shm: %w", err)
	}
	return true, nil
}

// emptyShm removes what the last command left in the private /dev/shm, so that the next
// command (perhaps another conversation's) finds nothing.
func emptyShm() {
	names, err := readDirNames(shmDir)
	if err != nil {
		return
	}
	for _, n := range names {
		if n == "." || n == ".." {
			continue
		}
		_ = os.RemoveAll(filepath.Join(shmDir, n))
	}
}

// unshareIPC gives the calling thread, and so the command it forks, an IPC namespace of its
// own. It runs before the thread drops its capabilities (it needs CAP_SYS_ADMIN in the
// supervisor's user namespace).
func unshareIPC() error {
	if err := unix.Unshare(unix.CLONE_NEWIPC); err != nil {
		return fmt.Errorf("an IPC namespace for the command: %w", err)
	}
	return nil
}

// capEffective reads the calling thread's effective capabilities.
func capEffective() (uint64, error) {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3, Pid: 0}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return 0, err
	}
	return uint64(data[0].Effective) | uint64(data[1].Effective)<<32, nil
}

// errNoCapabilitiesInNamespace says the user namespace was created but gives its root no
// capabilities: what Ubuntu 24.04 and later do through AppArmor to programs without a
// profile that allows it (kernel.apparmor_restrict_unprivileged_userns=1).
var errNoCapabilitiesInNamespace = errors.New("the user namespace has no capabilities")

// checkNamespaceCapabilities fails with errNoCapabilitiesInNamespace when the supervisor's
// new user namespace lacks what setting up the view needs, before any mount is tried, so
// that the reason is named instead of an EPERM from mount(2).
func checkNamespaceCapabilities() error {
	eff, err := capEffective()
	if err != nil {
		return fmt.Errorf("read the capabilities in the user namespace: %w", err)
	}
	need := uint64(1)<<unix.CAP_SYS_ADMIN | uint64(1)<<unix.CAP_NET_ADMIN
	if eff&need != need || os.Getenv(noCapsInNamespaceEnv) == "1" {
		return errNoCapabilitiesInNamespace
	}
	return nil
}

// noCapsInNamespaceEnv, set to 1 in a supervisor's environment, makes it find no
// capabilities in its new namespace, as AppArmor's restriction does; the real case, a user
// namespace whose root lost its capabilities at exec, is tested too, as an unprivileged user
// (see viewSysProcAttr's noAmbientCapsForTests).
const noCapsInNamespaceEnv = "PHOENIX_SANDBOX_TEST_NO_NS_CAPS"
