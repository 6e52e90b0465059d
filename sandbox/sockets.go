//go:build linux

package sandbox

import (
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Which sockets a restricted command may create.
//
//   - socket(2): none without a network namespace of its own (UDP, Multipath TCP, raw,
//     packet, netlink, and unix sockets, whose pathname connect(2) reaches the session bus,
//     X11 or a docker socket, which no Landlock ABI before 9 restricts). In the mount view's
//     network namespace (namespaces.go), IPv4 and IPv6 stream and datagram sockets, and
//     routing netlink (for listing the namespace's own interfaces), are allowed: they reach
//     only that namespace's loopback. Unix sockets stay denied there too, because a path
//     reaches outside every network namespace.
//   - socketpair(2): unnamed stream and seqpacket pairs (pipes with two ends: Python's
//     multiprocessing, Node's child processes). Datagram pairs are denied, because sendto(2)
//     and sendmsg(2) on an unnamed datagram socket may still name a socket file outside
//     (with SCM_RIGHTS, descriptors too), while a stream or seqpacket socket refuses or
//     ignores an address.

// socketTypeMask keeps a socket type from its SOCK_NONBLOCK and SOCK_CLOEXEC flags.
const socketTypeMask = 0xf

// socketRouting returns the filter's part for socket(2) and socketpair(2).
func socketRouting(netns bool) []bpf.Instruction {
	var sock []bpf.Instruction
	if !netns {
		sock = []bpf.Instruction{
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: 1},
			bpf.RetConstant{Val: retEPERM},
		}
	} else {
		body := []bpf.Instruction{
			bpf.LoadAbsolute{Off: argLow(0), Size: 4}, // domain
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET, SkipTrue: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_INET6, SkipTrue: 3},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AF_NETLINK, SkipFalse: 8},
			// Netlink: routing only (the namespace's own interfaces and addresses).
			bpf.LoadAbsolute{Off: argLow(2), Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.NETLINK_ROUTE, SkipTrue: 5, SkipFalse: 6},
			// IPv4 and IPv6: stream and datagram only.
			bpf.LoadAbsolute{Off: argLow(1), Size: 4},
			bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: socketTypeMask},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_STREAM, SkipTrue: 2},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipTrue: 1},
			bpf.Jump{Skip: 1},
			bpf.RetConstant{Val: retAllow},
			bpf.RetConstant{Val: retEPERM},
		}
		sock = append([]bpf.Instruction{bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKET, SkipFalse: uint8(len(body))}}, body...)
	}
	pair := []bpf.Instruction{
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SYS_SOCKETPAIR, SkipFalse: 5},
		bpf.LoadAbsolute{Off: argLow(1), Size: 4},
		bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: socketTypeMask},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SOCK_DGRAM, SkipFalse: 1},
		bpf.RetConstant{Val: retEPERM},
		bpf.RetConstant{Val: retAllow},
	}
	// The routing reloads the call number after it, for whatever follows.
	out := append(sock, pair...)
	return append(out, bpf.LoadAbsolute{Off: 0, Size: 4})
}

// ipcSyscalls are System V IPC and POSIX message queues: without an IPC namespace of the
// command's own they reach every process of the machine (another process's shared memory,
// queues and semaphores that outlive the command), so they are denied then.
var ipcSyscalls = []string{
	"shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
	"semget", "semop", "semtimedop", "semctl",
	"mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
}
