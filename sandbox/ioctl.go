//go:build linux

package sandbox

import (
	"runtime"
	"slices"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The ioctl(2) requests a restricted command may make: an allow-list, because the kernel has
// hundreds, any driver or file system may add more, and Landlock checks ioctls only on
// devices (ABI 5) — on files, directories, sockets and pipes, a request works on a
// descriptor opened read-only (fscrypt's key requests, inode generations, file-system
// labels). Every other request fails with ENOTTY ("inappropriate ioctl for device"), the
// answer programs already expect from a file that does not support it, so they fall back
// instead of failing.

// ioctlRequest is one allowed request.
type ioctlRequest struct {
	name string
	nr   uint32
	// viewOnly marks a request that changes a file: allowed only in the mount view, where
	// the read-only mounts refuse it outside the writable places (EROFS).
	viewOnly bool
	// netnsOnly marks a socket request that is only reachable with sockets, which only a
	// command in a network namespace of its own has.
	netnsOnly bool
	// generic marks a number written here from asm-generic's headers rather than taken
	// from x/sys/unix, which is right for every architecture: see genericIoctlArch.
	generic bool
}

// Numbers from asm-generic/ioctls.h and linux/fs.h that x/sys/unix lacks. They hold on
// x86, arm64, riscv64 and loong64; genericIoctlArch says where.
const (
	fionread        = 0x541B
	fionbio         = 0x5421
	fionclex        = 0x5450
	fioclex         = 0x5451
	fioasync        = 0x5452
	fioqsize        = 0x5460
	figetbsz        = 0x2
	fsIOCGetVersion = 0x80087601 // _IOR('v', 1, long)
	fsIOC32GetVer   = 0x80047601 // _IOR('v', 1, int)
	fsIOCFiemap     = 0xC020660B // _IOWR('f', 11, struct fiemap)
	fsIOCGetFSLabel = 0x81009431 // _IOR(0x94, 49, char[256])
	fsIOCFSGetXattr = 0x801c581f // _IOR('X', 31, struct fsxattr)
	fsIOC32GetFlags = 0x80046601 // _IOR('f', 1, int)
	fsIOCGetFSUUID  = 0x80111500 // _IOR(0x15, 0, struct fsuuid2)
)

// genericIoctlArch reports whether this architecture numbers ioctls as asm-generic does.
func genericIoctlArch() bool {
	return slices.Contains([]string{"amd64", "386", "arm64", "riscv64", "loong64"}, runtime.GOARCH)
}

// allowedIoctls is the one list of requests a restricted command may make.
var allowedIoctls = []ioctlRequest{
	// Is it a terminal, how wide, whose: isatty(3), ls, git, every language's runtime.
	// Nothing that changes a terminal: the command has none of its own, and on old ABIs a
	// terminal of the person's opened read-only would take a TCSETS.
	{name: "TCGETS", nr: unix.TCGETS},
	{name: "TCGETS2", nr: unix.TCGETS2},
	{name: "TIOCGWINSZ", nr: unix.TIOCGWINSZ},
	{name: "TIOCGPGRP", nr: unix.TIOCGPGRP},
	{name: "TIOCGSID", nr: unix.TIOCGSID},
	{name: "TIOCOUTQ", nr: unix.TIOCOUTQ},
	// Descriptor flags and byte counts: libuv (Node), Rust's standard library, Python.
	{name: "FIONREAD", nr: fionread, generic: true},
	{name: "FIONBIO", nr: fionbio, generic: true},
	{name: "FIOCLEX", nr: fioclex, generic: true},
	{name: "FIONCLEX", nr: fionclex, generic: true},
	{name: "FIOASYNC", nr: fioasync, generic: true},
	{name: "FIOQSIZE", nr: fioqsize, generic: true},
	// Questions to a file system that real tools ask (cp, tar, lsattr, rsync, du).
	{name: "FIGETBSZ", nr: figetbsz, generic: true},
	{name: "FS_IOC_GETFLAGS", nr: unix.FS_IOC_GETFLAGS},
	{name: "FS_IOC32_GETFLAGS", nr: fsIOC32GetFlags, generic: true},
	{name: "FS_IOC_GETVERSION", nr: fsIOCGetVersion, generic: true},
	{name: "FS_IOC32_GETVERSION", nr: fsIOC32GetVer, generic: true},
	{name: "FS_IOC_FIEMAP", nr: fsIOCFiemap, generic: true},
	{name: "FS_IOC_FSGETXATTR", nr: fsIOCFSGetXattr, generic: true},
	{name: "FS_IOC_GETFSLABEL", nr: fsIOCGetFSLabel, generic: true},
	{name: "FS_IOC_GETFSUUID", nr: fsIOCGetFSUUID, generic: true},
	{name: "FS_IOC_GET_ENCRYPTION_POLICY", nr: unix.FS_IOC_GET_ENCRYPTION_POLICY},
	{name: "FS_IOC_GET_ENCRYPTION_POLICY_EX", nr: unix.FS_IOC_GET_ENCRYPTION_POLICY_EX},
	{name: "BLKGETSIZE64", nr: unix.BLKGETSIZE64},
	{name: "BLKSSZGET", nr: unix.BLKSSZGET},
	// Copies that share blocks (cp --reflink, the default of coreutils 9): the target must
	// be open for writing, which Landlock allows only where the command may write.
	{name: "FICLONE", nr: unix.FICLONE},
	{name: "FICLONERANGE", nr: unix.FICLONERANGE},
	{name: "FIDEDUPERANGE", nr: unix.FIDEDUPERANGE},
	// chattr in the temp dir: the mount view refuses it elsewhere (EROFS); without the view
	// it needs only the file's ownership, so it stays refused.
	{name: "FS_IOC_SETFLAGS", nr: unix.FS_IOC_SETFLAGS, viewOnly: true},
	{name: "FS_IOC32_SETFLAGS", nr: fsIOC32SetFlags, viewOnly: true, generic: true},
	{name: "FS_IOC_FSSETXATTR", nr: fsIOCFSSetXattr, viewOnly: true, generic: true},
	// Questions about the interfaces of the command's own network namespace.
	{name: "SIOCGIFCONF", nr: unix.SIOCGIFCONF, netnsOnly: true},
	{name: "SIOCGIFFLAGS", nr: unix.SIOCGIFFLAGS, netnsOnly: true},
	{name: "SIOCGIFINDEX", nr: unix.SIOCGIFINDEX, netnsOnly: true},
	{name: "SIOCGIFNAME", nr: unix.SIOCGIFNAME, netnsOnly: true},
	{name: "SIOCGIFADDR", nr: unix.SIOCGIFADDR, netnsOnly: true},
	{name: "SIOCGIFNETMASK", nr: unix.SIOCGIFNETMASK, netnsOnly: true},
	{name: "SIOCGIFMTU", nr: unix.SIOCGIFMTU, netnsOnly: true},
	{name: "SIOCGIFHWADDR", nr: unix.SIOCGIFHWADDR, netnsOnly: true},
	{name: "SIOCATMARK", nr: unix.SIOCATMARK, netnsOnly: true},
}

// ioctlAllowList is the requests allowed under one policy.
func ioctlAllowList(mountView, netns bool) []uint32 {
	var out []uint32
	for _, r := range allowedIoctls {
		if (r.viewOnly && !mountView) || (r.netnsOnly && !netns) {
			continue
		}
		if r.generic && !genericIoctlArch() {
			continue
		}
		out = append(out, r.nr)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// retENOTTY answers a request that is not on the list.
const retENOTTY = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOTTY)

// ioctlRouting lets through the requests on the allow-list and answers the rest ENOTTY.
// Only the low 32 bits of the request count: the kernel takes it as an unsigned int.
func ioctlRouting(mountView, netns bool) []bpf.Instruction {
	allowed := ioctlAllowList(mountView, netns)
	block := []bpf.Instruction{bpf.LoadAbsolute{Off: argLow(1), Size: 4}}
	for i, req := range allowed {
		// Jump over the remaining comparisons and the refusal to the "allow".
		block = append(block, bpf.JumpIf{Cond: bpf.JumpEqual, Val: req, SkipTrue: uint8(len(allowed) - i)})
	}
	block = append(block, bpf.RetConstant{Val: retENOTTY}, bpf.RetConstant{Val: retAllow})
	return append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_IOCTL, SkipFalse: uint8(len(block))}}, block...)
}
