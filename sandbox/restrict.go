//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// writableDevices are the only files outside the private temp dir a restricted process may
// open for writing. They discard or produce bytes and reach nothing else. /dev/tty is not
// among them: the helper runs in a session of its own, with no controlling terminal.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// landlockPresets maps a kernel ABI to the go-landlock configuration that handles every
// access right of that ABI. The exact preset is used rather than BestEffort, because
// BestEffort silently enforces nothing when a rule cannot be downgraded.
var landlockPresets = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

func landlockConfig(abi int) (landlock.Config, error) {
	if abi < MinABI {
		return landlock.Config{}, fmt.Errorf("landlock ABI %d is older than the %d the policy needs", abi, MinABI)
	}
	if abi > len(landlockPresets) {
		// A newer kernel accepts an older ruleset; the rights it adds are simply not handled.
		abi = len(landlockPresets)
	}
	return landlockPresets[abi-1], nil
}

// restrictSelf applies the Restricted policy to the restrict-stage process, which then
// becomes bash and passes the policy on to everything bash starts: Landlock and seccomp on
// every thread, capabilities on the calling thread, the one that execs. Order matters:
// capabilities go first (dropping them needs CAP_SETPCAP, which they remove), then Landlock
// (which also sets no_new_privs on all threads), then seccomp (which needs no_new_privs).
func restrictSelf(tempDir string) error {
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := applyLandlock(tempDir); err != nil {
		return err
	}
	if err := loadSeccomp(); err != nil {
		return err
	}
	return verifyRestricted()
}

// applyLandlock restricts every thread: the whole file system read-only (read, list and
// execute), the harmless devices and the private temp dir writable, TCP bind and connect
// denied (ABI 4), signals and abstract unix sockets scoped to the sandbox (ABI 6).
func applyLandlock(tempDir string) error {
	// The kernel itself is asked, not Probe: the test override must not make the helper
	// skip restrictions the app already decided on.
	st := probeKernel()
	if !st.Available {
		return fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
	}
	cfg, err := landlockConfig(st.ABI)
	if err != nil {
		return err
	}
	err = cfg.Restrict(
		landlock.RODirs("/"),
		landlock.RWFiles(writableDevices[0]).WithIoctlDev(),
		landlock.RWFiles(writableDevices[1:]...).WithIoctlDev().IgnoreIfMissing(),
		landlock.RWDirs(tempDir).WithRefer(),
	)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// verifyRestricted checks, after the fact, that the restrictions took hold, so that a library
// or kernel surprise fails closed instead of running bash unrestricted.
func verifyRestricted() error {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return fmt.Errorf("self-check: no_new_privs is not set (%d, %v)", nnp, err)
	}
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil || mode != 2 {
		return fmt.Errorf("self-check: seccomp filter mode is not active (%d, %v)", mode, err)
	}
	// /proc/self/comm is always writable by its owner; under Landlock opening it for writing
	// must fail. Nothing is written either way.
	f, err := os.OpenFile("/proc/self/comm", os.O_WRONLY, 0)
	if err == nil {
		_ = f.Close()
		return errors.New("self-check: /proc/self/comm is still writable, Landlock is not in force")
	}
	if !errors.Is(err, unix.EACCES) {
		return fmt.Errorf("self-check: unexpected error opening /proc/self/comm for writing: %w", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err == nil {
		_ = unix.Close(fd)
		return errors.New("self-check: socket(2) was not denied, the seccomp filter is not in force")
	}
	if !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("self-check: unexpected error from socket(2): %w", err)
	}
	return nil
}

// dropCapabilities empties the bounding, ambient, effective, permitted and inheritable
// capability sets of the calling thread. It matters when the app runs as root: Landlock does
// not take capabilities away, and root keeps them across execve even with no_new_privs.
//
// Capabilities belong to threads. Only the calling thread is changed, which is enough
// because the caller is locked to its thread and execs bash from it right away: execve ends
// every other thread, and they run nothing but the Go runtime until then.
func dropCapabilities() error {
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capabilities: read: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		// An ordinary user: nothing to drop, and dropping the bounding set would need
		// CAP_SETPCAP. no_new_privs keeps set-uid and file capabilities from adding any.
		return nil
	}
	last, err := lastCapability()
	if err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("capabilities: drop %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("capabilities: clear the ambient set: %w", err)
	}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capabilities: clear: %w", err)
	}
	return nil
}

func lastCapability() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, fmt.Errorf("capabilities: read the highest capability number: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("capabilities: parse cap_last_cap %q: %w", b, err)
	}
	return n, nil
}
