//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The mount view: a Restricted command's supervisor runs in a user and mount namespace of its
// own, in which every mount is read-only and the command's private temp dir is bound
// read-write on top while that command runs — what bubblewrap and Flatpak do, in Go, without
// a second program. The kernel itself then refuses every change outside the temp dir with
// EROFS, including those Landlock does not cover (timestamps, modes, ownership, extended
// attributes), and inside the temp dir chmod, `git init` and `git clone` work. Landlock and
// seccomp stay underneath. Devices stay usable: a read-only mount does not stop writing to
// /dev/null. Mounts the person makes later do not appear in the view (propagation is
// private), so they cannot be written either.

// viewSysProcAttr adds the namespaces of the mount view to a supervisor's start: the app's
// user and group ids map to themselves, so files keep their owners and the command runs as
// the person; other ids show as the overflow id. A user who is not root keeps CAP_SYS_ADMIN
// (to set up the view) and CAP_SETPCAP (to empty each command's bounding set) across the exec
// as ambient capabilities, in the new namespace only; each command drops every capability
// again (see dropCapabilities).
func viewSysProcAttr(attr *syscall.SysProcAttr) {
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= viewNamespaces
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	if uid != 0 && os.Getenv(noAmbientCapsEnv) != "1" {
		// CAP_NET_ADMIN brings the namespace's loopback up (namespaces.go).
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_NET_ADMIN}
	}
}

// noAmbientCapsEnv, set to 1 in the app's environment, starts an unprivileged user's
// supervisors without ambient capabilities, so that their user namespace's root loses every
// capability at exec: the state AppArmor leaves such a namespace in on Ubuntu 24.04 and
// later. Tests use it to prove the fallback on a real kernel.
const noAmbientCapsEnv = "PHOENIX_SANDBOX_TEST_NO_AMBIENT_CAPS"

// setUpView prepares a supervisor's mount view: it checks that the user namespace gives it
// the capabilities it needs, makes every mount read-only, brings the network namespace's
// loopback up and mounts a private /dev/shm. It reports whether /dev/shm is private.
func setUpView() (shm bool, err error) {
	if err := checkNamespaceCapabilities(); err != nil {
		return false, err
	}
	if err := setUpMountView(); err != nil {
		return false, err
	}
	if err := mountProc(); err != nil {
		return false, err
	}
	if err := setUpLoopback(); err != nil {
		return false, err
	}
	return setUpShm()
}

// setUpMountView makes every mount of this process's (new) mount namespace read-only and
// private, so that nothing done here reaches the person's namespace and no mount made there
// later appears here.
func setUpMountView() error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("mount view: make the mounts private: %w", err)
	}
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("mount view: make every mount read-only: %w", err)
	}
	// Check, rather than trust: a write outside must now fail with EROFS.
	if err := unix.Access("/", unix.W_OK); !errors.Is(err, unix.EROFS) && err != nil && !errors.Is(err, unix.EACCES) {
		return fmt.Errorf("mount view: unexpected check result: %w", err)
	}
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil || st.Flags&unix.ST_RDONLY == 0 {
		return fmt.Errorf("mount view: / is still writable (%v)", err)
	}
	return nil
}

// bindWritableFrom binds source (a path, or fdPath of a descriptor) read-write at dir.
func bindWritableFrom(source, dir string) (func(), error) {
	if err := unix.Mount(source, dir, "", unix.MS_BIND, ""); err != nil {
		return nil, fmt.Errorf("mount view: bind the temp dir %s: %w", dir, err)
	}
	undo := func() { _ = unix.Unmount(dir, unix.MNT_DETACH) }
	attr := unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, dir, 0, &attr); err != nil {
		undo()
		return nil, fmt.Errorf("mount view: make the temp dir %s writable: %w", dir, err)
	}
	return undo, nil
}

// boundTempDir is the temp dir a long-lived supervisor in the mount view has bound writable.
// Commands of one conversation share their temp dir, so the binding stays from one command to
// the next and is only replaced when a command of another conversation comes: unmounting
// waits for an RCU grace period, which under load costs milliseconds per command. A binding
// left from an earlier command gives nothing away: Landlock allows each command only its own
// temp dir.
type boundTempDir struct {
	dir  string
	dev  uint64
	ino  uint64
	undo func()
	// caches are the toolchain caches mounted copy-on-write with their upper layers in
	// this temp dir (caches.go); they go with it. wanted is what the command that mounted
	// them asked for.
	caches, wanted []CacheDir
}

var writableTempDir boundTempDir

// bind binds the temp dir dir, which the app opened as fd (the path may lie below a
// covered secret, which the supervisor can no longer reach by name), unless it is bound
// already.
func (b *boundTempDir) bind(dir string, fd int, caches []CacheDir) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("mount view: the temp dir: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("mount view: the temp dir %s is not a directory", dir)
	}
	// The same path may name a new directory (the old one removed and made again); the
	// binding would still show the old one.
	if b.dir == dir && b.dev == st.Dev && b.ino == st.Ino {
		if !slices.Equal(b.wanted, caches) {
			viewEpoch.Add(1)
			// A cache appeared since the last command of this conversation (the person's
			// first build outside made it) or went away: the next build shares what is
			// there now.
			unmountCaches(b.caches)
			b.caches, _ = mountCaches(dir, caches)
			b.wanted = caches
		}
		return nil
	}
	b.unbind()
	viewEpoch.Add(1)
	// The source must be a mount of this namespace, so the app's descriptor only tells
	// which directory is meant; the supervisor opens its own and checks it is the same.
	source := dir
	if cover, coverFd := covers.coveringDir(dir); cover != "" {
		own, err := openBelow(cover, coverFd, dir)
		if err != nil {
			return err
		}
		defer unix.Close(own)
		if err := makeMountPoint(cover, dir); err != nil {
			return err
		}
		source = fdPath(own)
	}
	var seen unix.Stat_t
	if err := unix.Stat(source, &seen); err != nil {
		return fmt.Errorf("mount view: the temp dir %s: %w", dir, err)
	}
	if seen.Dev != st.Dev || seen.Ino != st.Ino {
		return fmt.Errorf("mount view: the temp dir %s is not the directory the app opened", dir)
	}
	undo, err := bindWritableFrom(source, dir)
	if err != nil {
		return err
	}
	b.dir, b.dev, b.ino, b.undo = dir, st.Dev, st.Ino, undo
	// A cache that cannot be shared is left to the empty one in the temp dir; the command
	// still runs.
	b.caches, _ = mountCaches(dir, caches)
	b.wanted = caches
	return nil
}

// unbind takes the binding away, so that the next command binds afresh.
func (b *boundTempDir) unbind() {
	viewEpoch.Add(1)
	unmountCaches(b.caches)
	b.caches, b.wanted = nil, nil
	if b.undo != nil {
		b.undo()
	}
	b.dir, b.undo = "", nil
}

// noMountViewForTests turns the mount view off, so that the tests can run the battery with
// and without it.
var noMountViewForTests bool

// mountViewState records whether a supervisor with the mount view could be started here.
var mountViewState struct {
	once   sync.Once
	usable bool
	reason string
}

// mountViewUsable reports whether Restricted commands get the mount view, and if not, why.
// The answer comes from starting one supervisor in it (kept for the next command), once per
// process: whether user namespaces are allowed, and whether a namespace's root may mount,
// differs between distributions and their settings (sysctls, AppArmor), and only trying
// tells.
func mountViewUsable() (bool, string) {
	if noMountViewForTests {
		return false, "switched off by a test"
	}
	mountViewState.once.Do(func() {
		s, err := startSupervisor(kindView)
		if err != nil {
			mountViewState.reason = mountViewReason(err)
			return
		}
		mountViewState.usable = true
		defaultPool.put(s)
	})
	return mountViewState.usable, mountViewState.reason
}

// mountViewReason explains a failed start in the person's terms.
func mountViewReason(err error) string {
	switch {
	case strings.Contains(err.Error(), errNoCapabilitiesInNamespace.Error()):
		return "user namespaces here are created without capabilities (on Ubuntu 24.04 and later AppArmor does this to programs without a profile, kernel.apparmor_restrict_unprivileged_userns=1): install the app from its .deb, which ships that profile, or load it with `apparmor_parser -r /etc/apparmor.d/phoenix-desktop`"
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return fmt.Sprintf("user namespaces are not allowed for unprivileged users here (%v): on Debian set kernel.unprivileged_userns_clone=1, on Ubuntu 24.04 and later kernel.apparmor_restrict_unprivileged_userns=0", err)
	case errors.Is(err, unix.ENOSPC):
		return fmt.Sprintf("user namespaces are switched off (%v): user.max_user_namespaces is 0", err)
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return fmt.Sprintf("this kernel lacks user namespaces or mount_setattr (Linux 5.12) (%v)", err)
	}
	return err.Error()
}

// prepareView makes the view ready for one command: the secrets of cfg covered, its temp dir
// (opened by the app as tempDirFd) bound writable.
func prepareView(cfg helperConfig, tempDirFd int) error {
	changed, err := covers.update(cfg.Hidden)
	if err != nil {
		return err
	}
	if changed {
		viewEpoch.Add(1)
		// A new cover may lie above the binding and hide it.
		writableTempDir.unbind()
	}
	return writableTempDir.bind(cfg.TempDir, tempDirFd, cfg.Caches)
}
