//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Without the mount view (user namespaces switched off) Landlock alone cannot tell a change
// of a file's mode or timestamps in the private temp dir from one outside: it does not check
// them at all. So the filter hands these calls to the supervisor, which carries them out
// itself when the file is in the temp dir and refuses them everywhere else. It works on its
// own copy of what the caller named — the path read once from the caller's memory and
// opened by the supervisor, or the caller's descriptor copied with pidfd_getfd — so nothing
// the caller changes after the check can redirect the call. Then chmod, `git init`, `git
// clone` and `touch -d` work in the temp dir and `touch -d` fails outside, as in the mount
// view.

// metadataCall is a system call the supervisor carries out for a command without the mount
// view.
type metadataCall struct {
	name string
	// withoutListener is what the filter does when the kernel gives no listener: the old
	// rules (chmod denied everywhere, timestamps allowed everywhere, because touch(1) needs
	// them in the temp dir).
	withoutListener uint32
}

// metadataCalls is the one list of them. Calls that do not exist on this architecture
// (chmod(2) on arm64, which has only fchmodat) are left out by name.
var metadataCalls = []metadataCall{
	{"chmod", retEPERM}, {"fchmod", retEPERM}, {"fchmodat", retEPERM}, {"fchmodat2", retEPERM},
	{"utimensat", retAllow}, {"utime", retAllow}, {"utimes", retAllow}, {"futimesat", retAllow},
	{"chown", retEPERM}, {"fchown", retEPERM}, {"lchown", retEPERM}, {"fchownat", retEPERM},
	{"setxattr", retEPERM}, {"lsetxattr", retEPERM}, {"fsetxattr", retEPERM},
	{"removexattr", retEPERM}, {"lremovexattr", retEPERM}, {"fremovexattr", retEPERM},
}

// xattrValueMax is XATTR_SIZE_MAX (linux/limits.h), the largest value the kernel accepts.
const xattrValueMax = 64 << 10

// metadataNumber is this architecture's number of a metadata call, if it has one.
func metadataNumber(native *arch.Info, name string) (uint32, bool) {
	if name == "fchmodat2" {
		// Linux 6.6, newer than the library's table.
		return unix.SYS_FCHMODAT2, true
	}
	nr, ok := native.SyscallNames[name]
	return uint32(nr), ok
}

// metadataNumbers maps this architecture's numbers of metadataCalls to their names.
var metadataNumbers = func() map[uint32]string {
	out := map[uint32]string{}
	native, err := arch.GetInfo("")
	if err != nil {
		return out
	}
	for _, c := range metadataCalls {
		if nr, ok := metadataNumber(native, c.name); ok {
			out[nr] = c.name
		}
	}
	return out
}()

// metadataRouting is the part of the filter, placed after the system call number is loaded,
// that hands metadataCalls to the supervisor (notify set) or applies their old rules.
func metadataRouting(notify bool) []bpf.Instruction {
	native, err := arch.GetInfo("")
	if err != nil {
		// seccompFilter has failed on this already.
		return nil
	}
	var out []bpf.Instruction
	for _, c := range metadataCalls {
		nr, ok := metadataNumber(native, c.name)
		if !ok {
			continue
		}
		action := c.withoutListener
		if notify {
			action = retNotify
		}
		out = append(out,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: nr, SkipFalse: 1},
			bpf.RetConstant{Val: action})
	}
	return out
}

// answerMetadata carries out, or refuses, one of metadataCalls.
func (n *notifier) answerMetadata(req *seccompNotif, name string) seccompNotifResp {
	if n.tempDir == "" {
		return refuse(unix.EPERM)
	}
	a := req.Args
	c := &callerView{n: n, req: req}
	defer c.close()
	var (
		target int
		err    error
	)
	// byFd: the caller named the file by a descriptor of its own, which may be a pipe or a
	// socket it holds; a path may name only a file.
	byFd := false
	copyFd := func(fd int) (int, error) {
		byFd = true
		return c.copyFd(fd)
	}
	switch name {
	case "chmod":
		target, err = c.openPath(unix.AT_FDCWD, a[0], true, false)
	case "fchmodat":
		target, err = c.openPath(int(int32(a[0])), a[1], true, false)
	case "fchmodat2":
		flags := int(a[3])
		if flags&unix.AT_SYMLINK_NOFOLLOW != 0 {
			// Linux has no modes on symbolic links.
			return refuse(unix.EOPNOTSUPP)
		}
		target, err = c.openPath(int(int32(a[0])), a[1], true, flags&unix.AT_EMPTY_PATH != 0)
	case "fchmod":
		target, err = copyFd(int(int32(a[0])))
	case "utimensat":
		flags := int(a[3])
		if a[1] == 0 {
			// utimensat(fd, NULL, ...) is futimens(3).
			target, err = copyFd(int(int32(a[0])))
		} else {
			target, err = c.openPath(int(int32(a[0])), a[1], flags&unix.AT_SYMLINK_NOFOLLOW == 0, flags&unix.AT_EMPTY_PATH != 0)
		}
	case "utime", "utimes":
		target, err = c.openPath(unix.AT_FDCWD, a[0], true, false)
	case "futimesat":
		if a[1] == 0 {
			target, err = copyFd(int(int32(a[0])))
		} else {
			target, err = c.openPath(int(int32(a[0])), a[1], true, false)
		}
	case "chown", "setxattr", "removexattr":
		target, err = c.openPath(unix.AT_FDCWD, a[0], true, false)
	case "lchown", "lsetxattr", "lremovexattr":
		target, err = c.openPath(unix.AT_FDCWD, a[0], false, false)
	case "fchown", "fsetxattr", "fremovexattr":
		target, err = copyFd(int(int32(a[0])))
	case "fchownat":
		flags := int(a[4])
		target, err = c.openPath(int(int32(a[0])), a[1], flags&unix.AT_SYMLINK_NOFOLLOW == 0, flags&unix.AT_EMPTY_PATH != 0)
	default:
		return refuse(unix.EPERM)
	}
	if err != nil {
		return refuseErr(err)
	}
	defer unix.Close(target)
	where, err := n.placeOf(target, byFd)
	if err != nil {
		return refuseErr(err)
	}
	changesTimes := strings.HasPrefix(name, "utime") || name == "futimesat"
	switch {
	case where == placeOutside:
		return refuse(unix.EPERM)
	case where == placeTempDir && !changesTimes:
		// The temp dir itself keeps its private mode and owner: a command that opened it
		// to other users would show them the conversation's scratch files.
		return refuse(unix.EPERM)
	}
	// Read what the call would set before acting, and act only for a caller that is still
	// waiting (its memory and descriptors were read for that caller, not a successor).
	var (
		mode      uint32
		times     *[2]unix.Timespec
		uid, gid  int
		attr      string
		value     []byte
		attrFlags int
	)
	switch name {
	case "chown", "lchown", "fchown":
		uid, gid = int(int32(a[1])), int(int32(a[2]))
		err = c.mayChown(uid, gid)
	case "fchownat":
		uid, gid = int(int32(a[2])), int(int32(a[3]))
		err = c.mayChown(uid, gid)
	case "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr":
		if attr, err = c.readString(a[1]); err == nil && !ordinaryXattr(attr) {
			err = unix.EPERM
		}
		if err == nil && strings.HasSuffix(name, "setxattr") {
			attrFlags = int(a[4])
			value, err = c.readBytes(a[2], a[3])
		}
	case "chmod", "fchmod":
		mode = uint32(a[1])
	case "fchmodat", "fchmodat2":
		mode = uint32(a[2])
	case "utimensat":
		times, err = c.readTimes(a[2], 16, func(b []byte) unix.Timespec {
			return unix.Timespec{Sec: int64(binary.NativeEndian.Uint64(b)), Nsec: int64(binary.NativeEndian.Uint64(b[8:]))}
		})
	case "utime":
		times, err = c.readTimes(a[1], 8, func(b []byte) unix.Timespec {
			return unix.Timespec{Sec: int64(binary.NativeEndian.Uint64(b))}
		})
	case "utimes", "futimesat":
		ptr := a[1]
		if name == "futimesat" {
			ptr = a[2]
		}
		times, err = c.readTimes(ptr, 16, func(b []byte) unix.Timespec {
			return unix.Timespec{Sec: int64(binary.NativeEndian.Uint64(b)), Nsec: 1000 * int64(binary.NativeEndian.Uint64(b[8:]))}
		})
	}
	if err != nil {
		return refuseErr(err)
	}
	if !c.stillWaiting() {
		return refuse(unix.ESRCH)
	}
	// Through the descriptor's /proc link, which reaches the very file that was checked
	// (a symbolic link itself, when it was opened without following).
	self := "/proc/self/fd/" + strconv.Itoa(target)
	err = withoutCapabilities(func() error {
		switch {
		case changesTimes:
			return utimensat(self, times)
		case strings.HasSuffix(name, "chown") || name == "fchownat":
			return unix.Fchownat(target, "", uid, gid, unix.AT_EMPTY_PATH)
		case strings.HasSuffix(name, "setxattr"):
			return unix.Setxattr(self, attr, value, attrFlags)
		case strings.HasSuffix(name, "removexattr"):
			return unix.Removexattr(self, attr)
		}
		// Set-user and set-group bits are dropped: no_new_privs makes them useless inside
		// the sandbox, and outside it a set-user-ID file in a temp dir helps nobody.
		return unix.Chmod(self, mode&0o1777)
	})
	if err != nil {
		return refuseErr(err)
	}
	return seccompNotifResp{}
}

// place is where a file is, for the command.
type place int

const (
	placeOutside place = iota
	// placeTempDir is the temp dir itself.
	placeTempDir
	// placeInside is below the temp dir.
	placeInside
	// placeStream is a pipe or a socket the command holds.
	placeStream
)

// placeOf says where the file behind fd lies. The kernel's name for the descriptor's file is
// compared with the temp dir: Landlock keeps the command from linking or moving a file from
// outside into it, so a file's name there is its only one.
func (n *notifier) placeOf(fd int, byFd bool) (place, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return placeOutside, err
	}
	if !filepath.IsAbs(p) {
		// A pipe or a socket of the caller's own is its to change; an anonymous inode (a
		// pidfd, an eventfd) may stand for something outside.
		if byFd && (strings.HasPrefix(p, "pipe:") || strings.HasPrefix(p, "socket:")) {
			return placeStream, nil
		}
		return placeOutside, nil
	}
	if trimmed, ok := strings.CutSuffix(p, " (deleted)"); ok {
		// Only a file that is really removed is judged by where it was: a live file may
		// have " (deleted)" in its name.
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err == nil && st.Nlink == 0 {
			p = trimmed
		}
	}
	switch {
	case p == n.tempDir:
		return placeTempDir, nil
	case strings.HasPrefix(p, n.tempDir+"/"):
		return placeInside, nil
	}
	return placeOutside, nil
}

// ordinaryXattr reports whether an extended attribute is one any owner may set: a user
// attribute or an access control list. security.* (file capabilities, SELinux labels) and
// trusted.* need privileges the command does not have.
func ordinaryXattr(name string) bool {
	return strings.HasPrefix(name, "user.") || name == "system.posix_acl_access" || name == "system.posix_acl_default"
}

// withoutCapabilities runs fn on an OS thread of the supervisor that holds no capabilities,
// so that the kernel judges each change the supervisor makes for a command by the rights the
// command itself has: when the app runs as root, the command has dropped its capabilities,
// and the supervisor, acting for it, must not lend it theirs (CAP_FOWNER, CAP_CHOWN,
// CAP_SETFCAP). The thread is made on first use and lives as long as the supervisor.
func withoutCapabilities(fn func() error) error {
	capless.once.Do(func() {
		capless.jobs = make(chan caplessJob)
		ready := make(chan error, 1)
		onThreadOfItsOwn(func() {
			// Capabilities are per thread; the thread is never unlocked, so no other
			// goroutine runs on it.
			if hasCapabilities() {
				hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
				var none [2]unix.CapUserData
				if err := unix.Capset(&hdr, &none[0]); err != nil {
					ready <- fmt.Errorf("drop the capabilities of the supervisor's thread for metadata changes: %w", err)
					return
				}
			}
			ready <- nil
			for j := range capless.jobs {
				j.done <- j.fn()
			}
		})
		capless.err = <-ready
	})
	if capless.err != nil {
		return unix.EPERM
	}
	done := make(chan error, 1)
	capless.jobs <- caplessJob{fn: fn, done: done}
	return <-done
}

type caplessJob struct {
	fn   func() error
	done chan error
}

var capless struct {
	once sync.Once
	jobs chan caplessJob
	err  error
}

// utimensat sets the times of path (nil: both to now) without following a final symbolic
// link, since path is a descriptor's /proc link.
func utimensat(path string, times *[2]unix.Timespec) error {
	p, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	var ts uintptr
	if times != nil {
		ts = uintptr(unsafe.Pointer(&times[0]))
	}
	cwd := unix.AT_FDCWD // the path is absolute; a variable, since -100 is no uintptr constant
	_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(cwd), uintptr(unsafe.Pointer(p)), ts, 0, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// refuseErr fails the call with err's errno, EPERM when it has none.
func refuseErr(err error) seccompNotifResp {
	var errno unix.Errno
	if errors.As(err, &errno) {
		return refuse(errno)
	}
	return refuse(unix.EPERM)
}

// callerView reads what a caller named: its memory, its working directory, its
// descriptors.
type callerView struct {
	n      *notifier
	req    *seccompNotif
	pidfd  int
	opened bool
}

func (c *callerView) close() {
	if c.opened {
		_ = unix.Close(c.pidfd)
	}
}

// stillWaiting reports whether the caller is still blocked in the call, so that the pid it
// was read through was its own.
func (c *callerView) stillWaiting() bool {
	id := c.req.ID
	return ioctlPtr(c.n.listener, unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)) == nil
}

// copyFd copies the caller's descriptor fd into the supervisor.
func (c *callerView) copyFd(fd int) (int, error) {
	if !c.opened {
		pidfd, err := callerPidfd(int(c.req.Pid))
		if err != nil {
			return -1, unix.ESRCH
		}
		c.pidfd, c.opened = pidfd, true
		if !c.stillWaiting() {
			return -1, unix.ESRCH
		}
	}
	out, err := unix.PidfdGetfd(c.pidfd, fd, 0)
	if err != nil {
		return -1, unix.EBADF
	}
	return out, nil
}

// openPath opens, as an O_PATH descriptor of the supervisor, the file the caller names by
// dirfd and the path at address ptr in its memory.
func (c *callerView) openPath(dirfd int, ptr uint64, follow, emptyPath bool) (int, error) {
	path, err := c.readString(ptr)
	if err != nil {
		return -1, err
	}
	if path == "" && !emptyPath {
		return -1, unix.ENOENT
	}
	base := unix.AT_FDCWD
	if !filepath.IsAbs(path) {
		if dirfd == unix.AT_FDCWD {
			base, err = unix.Open("/proc/"+strconv.Itoa(int(c.req.Pid))+"/cwd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				return -1, unix.ESRCH
			}
		} else if base, err = c.copyFd(dirfd); err != nil {
			return -1, err
		}
		defer unix.Close(base)
	}
	if path == "" {
		return unix.FcntlInt(uintptr(base), unix.F_DUPFD_CLOEXEC, 0)
	}
	flags := uint64(unix.O_PATH | unix.O_CLOEXEC)
	if !follow {
		flags |= unix.O_NOFOLLOW
	}
	// The path is the caller's but is resolved by the supervisor: /proc's magic links
	// (/proc/self/fd/N, /proc/PID/cwd) would name the supervisor's files or any process's,
	// so they are not followed.
	return unix.Openat2(base, path, &unix.OpenHow{Flags: flags, Resolve: unix.RESOLVE_NO_MAGICLINKS})
}

// readString reads a NUL-terminated path from the caller's memory, a page at most at a
// time, since the string may end just before an unmapped page.
func (c *callerView) readString(ptr uint64) (string, error) {
	if ptr == 0 {
		return "", unix.EFAULT
	}
	const pathMax = 4096
	var out []byte
	for len(out) < pathMax {
		pageLeft := 4096 - int(ptr%4096)
		buf := make([]byte, min(pageLeft, pathMax-len(out)))
		if err := c.read(ptr, buf); err != nil {
			return "", err
		}
		if i := bytes.IndexByte(buf, 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf...)
		ptr += uint64(len(buf))
	}
	return "", unix.ENAMETOOLONG
}

// mayChown reports, as an error, whether the caller could make this change of owner without
// privileges: to its own user (or none) and its own groups. The supervisor may run as root,
// which could give a file away; the command, without capabilities, could not.
func (c *callerView) mayChown(uid, gid int) error {
	status, err := readProcFile("/proc/" + strconv.Itoa(int(c.req.Pid)) + "/status")
	if err != nil {
		return unix.ESRCH
	}
	ids := func(field string) []string {
		v, _ := statusField(status, field)
		return strings.Fields(v)
	}
	uids, gids, groups := ids("Uid:"), ids("Gid:"), ids("Groups:")
	if len(uids) < 2 || len(gids) < 2 {
		return unix.ESRCH
	}
	// The second field is the effective id.
	if uid != -1 && strconv.Itoa(uid) != uids[1] {
		return unix.EPERM
	}
	if gid != -1 && strconv.Itoa(gid) != gids[1] && !slices.Contains(groups, strconv.Itoa(gid)) {
		return unix.EPERM
	}
	return nil
}

// readBytes reads size bytes at ptr, as many as an extended attribute's value may have.
func (c *callerView) readBytes(ptr, size uint64) ([]byte, error) {
	if size == 0 {
		return nil, nil
	}
	if size > xattrValueMax {
		return nil, unix.E2BIG
	}
	buf := make([]byte, size)
	if err := c.read(ptr, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// readTimes reads two timestamps of size bytes each at ptr; nil (both now) when ptr is 0.
func (c *callerView) readTimes(ptr uint64, size int, decode func([]byte) unix.Timespec) (*[2]unix.Timespec, error) {
	if ptr == 0 {
		return nil, nil
	}
	buf := make([]byte, 2*size)
	if err := c.read(ptr, buf); err != nil {
		return nil, err
	}
	return &[2]unix.Timespec{decode(buf[:size]), decode(buf[size:])}, nil
}

func (c *callerView) read(ptr uint64, buf []byte) error {
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: uintptr(ptr), Len: len(buf)}}
	n, err := unix.ProcessVMReadv(int(c.req.Pid), local, remote, 0)
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.ESRCH) {
		// The caller cannot be read (it runs a program it may only execute, which makes it
		// non-dumpable) or has ended: refuse rather than report a bad address.
		return unix.EPERM
	}
	if err != nil {
		return unix.EFAULT
	}
	if n != len(buf) {
		return fmt.Errorf("read %d of %d bytes of the caller's memory: %w", n, len(buf), unix.EFAULT)
	}
	return nil
}
