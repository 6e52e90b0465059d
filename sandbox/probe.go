//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// ForceNoLandlockEnv names the variable that, set to "1", makes Probe report Landlock as
// unavailable. Tests and CI use it to exercise the Unrestricted-only path on a kernel that
// has Landlock.
const ForceNoLandlockEnv = "PHOENIX_FORCE_NO_LANDLOCK"

// MinABI is the oldest Landlock ABI the Restricted policy accepts: every Landlock kernel
// (Linux 5.13 and later). What the older ABIs do not cover, other layers make up for, or
// Describe says is missing (see landlockABIs).
const MinABI = 1

// Status says whether the Restricted policy can be enforced here, and if not, why. Reason is
// written for a person and shown in the UI (REQ-BED-014).
type Status struct {
	Available bool
	// ABI is the kernel's Landlock ABI version, 0 when it has none.
	ABI int
	// Reason says why Restricted mode is unavailable; it is empty when it is available.
	Reason string
}

// ErrUnavailable is returned by Command for a Restricted policy where Probe reports that the
// sandbox cannot be enforced. The error wraps it together with the reason.
var ErrUnavailable = errors.New("restricted mode is unavailable")

var (
	probeOnce   sync.Once
	probeResult Status
)

// Probe reports whether Restricted mode can be enforced. The kernel is asked once; the
// ForceNoLandlockEnv override is read on every call so that a test can set it at any time.
func Probe() Status {
	if os.Getenv(ForceNoLandlockEnv) == "1" {
		abi, _ := ll.LandlockGetABIVersion()
		if abi < 0 {
			abi = 0
		}
		return Status{ABI: abi, Reason: "Landlock is switched off by " + ForceNoLandlockEnv + "=1"}
	}
	probeOnce.Do(func() { probeResult = probeKernel() })
	return probeResult
}

func probeKernel() Status {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return Status{Reason: "this kernel has no Landlock support (Linux 5.13 or newer with CONFIG_SECURITY_LANDLOCK is needed)"}
	case errors.Is(err, syscall.EOPNOTSUPP):
		return Status{Reason: "Landlock is built into this kernel but disabled at boot: add \"landlock\" to the lsm= kernel parameter"}
	case err != nil:
		return Status{Reason: fmt.Sprintf("asking the kernel for its Landlock version failed: %v", err)}
	case abi < MinABI:
		return Status{ABI: abi, Reason: fmt.Sprintf("this kernel reports Landlock ABI %d; %d or newer is needed", abi, MinABI)}
	}
	// The network half of the policy (UDP, Multipath TCP, raw and unix sockets) is a seccomp
	// filter; without seccomp the sandbox would leak, so it is unavailable as a whole.
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return Status{ABI: abi, Reason: fmt.Sprintf("seccomp is not available (%v), so sockets cannot be closed", err)}
	}
	return Status{Available: true, ABI: abi}
}
