//go:build linux

package mcp

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// exitNote says how a server's process ended, if it has, without reaping it and without
// reading its exec.Cmd's ProcessState: the SDK's transport waits for the process on a
// goroutine of its own, which writes ProcessState whenever it gets there. waitid with
// WNOWAIT looks at the ended child and leaves it to that Wait. Empty when the process still
// runs or has been reaped already.
func exitNote(p *os.Process) string {
	if p == nil {
		return ""
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil || info.Signo == 0 {
		return ""
	}
	// si_status follows si_signo, si_errno, si_code, a pad, si_pid and si_uid in the
	// SIGCHLD member of the kernel's siginfo, whose layout x/sys/unix leaves opaque.
	status := *(*int32)(unsafe.Add(unsafe.Pointer(&info), 24))
	switch info.Code {
	case cldExited:
		return fmt.Sprintf("exit status %d", status)
	case cldKilled, cldDumped:
		return "signal: " + unix.SignalName(unix.Signal(status))
	}
	return ""
}

// si_code values of SIGCHLD (asm-generic/siginfo.h), which x/sys/unix lacks.
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)
