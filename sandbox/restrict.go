//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writableDevices are the only files outside the private temp dir a restricted process may
// open for writing. They discard or produce bytes and reach nothing else. /dev/tty is not
// among them: the helper runs in a session of its own, with no controlling terminal.
var writableDevices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// landlockPresets maps an ABI to the go-landlock configuration that handles every access
// right of that ABI. The exact preset is used rather than BestEffort, because BestEffort
// silently enforces nothing when a rule cannot be downgraded.
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

// effectiveABI is the ABI the ruleset asks for: the kernel's, capped by maxABI when that is
// set (the tests run the battery at every ABI this way).
func effectiveABI(kernel, maxABI int) int {
	if maxABI > 0 && maxABI < kernel {
		return maxABI
	}
	return kernel
}

// Access rights of the policy's rules, before they are cut down to what the kernel's ABI
// handles. They are go-landlock's RODirs, RWFiles and RWDirs sets, spelt out because the
// rules are added to a ruleset here rather than through go-landlock's Restrict, which
// restricts every thread of the process.
const (
	accessRead      = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	accessWriteFile = ll.AccessFSWriteFile | ll.AccessFSTruncate
	accessWriteDir  = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSTruncate
	// accessDevice is what the writable devices get: read and write the file, and the
	// terminal-style ioctls programs issue on /dev/null (ABI 5).
	accessDevice = ll.AccessFSReadFile | accessWriteFile | ll.AccessFSIoctlDev
	// accessTempDir is everything below the private temp dir, including moving and linking
	// files within it (refer).
	accessTempDir = accessRead | accessWriteDir | ll.AccessFSRefer
)

// threadPolicy is the Restricted policy prepared for one command. Preparing it (opening
// paths, building the Landlock ruleset and the seccomp program) may happen on any thread;
// applyToThread then restricts only the OS thread that calls it, which starts the command
// and ends (see startRestricted). Everything the policy needs from the file system is read
// before, because afterwards the thread may no longer open it.
type threadPolicy struct {
	// ruleset is a Landlock ruleset file descriptor (close-on-exec, from the kernel).
	ruleset int
	// filter is the seccomp program whose calls to other processes the supervisor answers;
	// refusing is the same program refusing them, for a kernel that gives no listener.
	filter, refusing []unix.SockFilter
	// notify says the supervisor can answer (see userNotifAvailable); without it the
	// refusing program is loaded.
	notify bool
	// lastCap is the highest capability number, or -1 when the process has no
	// capabilities to drop.
	lastCap int
	// mountView says the thread is in the mount view, which changes the self-check.
	mountView bool
}

// prepareThreadPolicy builds the Restricted policy: the whole file system read-only (read,
// list and execute), the harmless devices and the private temp dir writable, TCP bind and
// connect denied (ABI 4), signals and abstract unix sockets scoped to the sandbox (ABI 6),
// and the seccomp filter.
func prepareThreadPolicy(cfg helperConfig) (*threadPolicy, error) {
	ruleset, abi, err := landlockRulesetFor(cfg)
	if err != nil {
		return nil, err
	}
	p := &threadPolicy{ruleset: ruleset, lastCap: -1, mountView: cfg.MountView}
	p.notify = userNotifAvailable() == nil
	key := programKey{abi: abi, mountView: cfg.MountView, supervisorPID: uint32(os.Getpid()), notify: true}
	if p.filter, err = seccompProgram(key); err == nil {
		key.notify = false
		p.refusing, err = seccompProgram(key)
	}
	if err != nil {
		p.close()
		return nil, err
	}
	if hasCapabilities() {
		if p.lastCap, err = lastCapability(); err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func (p *threadPolicy) close() { _ = unix.Close(p.ruleset) }

// applyToThread restricts the calling OS thread, and so every process it starts from now on.
// The caller has locked its goroutine to the thread and never unlocks it, so that the thread
// ends with the goroutine instead of going back to the runtime's pool.
//
// Every part of the policy is per thread: capabilities and the bounding set are part of a
// thread's credentials, no_new_privs is a thread flag, landlock_restrict_self without
// LANDLOCK_RESTRICT_SELF_TSYNC and seccomp(2) without SECCOMP_FILTER_FLAG_TSYNC apply to the
// calling thread only; a child forked from the thread inherits all of them. Order matters:
// capabilities go first (dropping them needs CAP_SETPCAP, which they remove), then
// no_new_privs (which Landlock and seccomp require of a thread without CAP_SYS_ADMIN), then
// Landlock, then seccomp.
//
// It returns the seccomp filter's notification listener, which the caller serves (see
// serveNotifications), or -1 when the kernel gives none (before Linux 5.0, or when a filter
// above the app has one already: only one per chain); the calls that would go to it are then
// refused.
func (p *threadPolicy) applyToThread() (listener int, err error) {
	if p.mountView {
		if err := unshareIPC(); err != nil {
			return -1, err
		}
	}
	if err := dropCapabilities(p.lastCap); err != nil {
		return -1, err
	}
	if err := restrictThreadLandlock(p.ruleset); err != nil {
		return -1, err
	}
	listener, err = -1, errors.New("the supervisor cannot decide calls here")
	if p.notify {
		listener, err = loadSeccomp(p.filter, true)
	}
	if err != nil {
		// A failed load installs nothing, so the refusing program goes on alone.
		if listener, err = loadSeccomp(p.refusing, false); err != nil {
			return -1, err
		}
	}
	if err := verifyRestricted(p.mountView); err != nil {
		if listener >= 0 {
			_ = unix.Close(listener)
		}
		return -1, err
	}
	return listener, nil
}

// landlockRuleset creates the policy's Landlock ruleset for the kernel's ABI, capped by
// maxABI when that is set, and returns the ABI it asked for.
func landlockRuleset(tempDir string, maxABI int) (int, int, error) {
	return landlockRulesetFor(helperConfig{Restricted: true, TempDir: tempDir, MaxABI: maxABI})
}

// landlockRulesetFor creates the Landlock ruleset of cfg: without the mount view, the read
// rule leaves the secrets table out (hide.go); in the view, the mount view hides them, the
// network namespace keeps TCP in, and /dev/shm is the command's own.
func landlockRulesetFor(cfg helperConfig) (int, int, error) {
	tempDir, maxABI := cfg.TempDir, cfg.MaxABI
	// The kernel itself is asked, not Probe: the test override must not make the helper
	// skip restrictions the app already decided on.
	st := probeKernel()
	if !st.Available {
		return -1, 0, fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
	}
	abi := effectiveABI(st.ABI, maxABI)
	llcfg, err := landlockConfig(abi)
	if err != nil {
		return -1, 0, err
	}
	handled := uint64(llcfg.HandledAccessFS)
	attr := ll.RulesetAttr{
		HandledAccessFS: handled,
		// No network rule is added, so every handled network right (TCP bind and connect
		// from ABI 4, UDP from ABI 10) is denied — except in the mount view's network
		// namespace, where TCP reaches only the namespace's own loopback, and a command's
		// test server must be able to bind and accept.
		HandledAccessNet: uint64(llcfg.HandledAccessNet),
		Scoped:           uint64(llcfg.Scoped),
	}
	if cfg.MountView {
		attr.HandledAccessNet = 0
	}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return -1, 0, fmt.Errorf("landlock: create the ruleset: %w", err)
	}
	hidden := cfg.Hidden
	if cfg.MountView {
		hidden = nil
	}
	reads, err := readRules(hidden)
	if err == nil {
		err = addRules(fd, reads, handled)
	}
	if err != nil {
		_ = unix.Close(fd)
		return -1, 0, err
	}
	rules := []struct {
		path     string
		access   uint64
		optional bool
	}{
		{writableDevices[0], accessDevice, false},
		{writableDevices[1], accessDevice, true},
		{writableDevices[2], accessDevice, true},
		{tempDir, accessTempDir, false},
	}
	if cfg.MountView && cfg.Shm {
		rules = append(rules, struct {
			path     string
			access   uint64
			optional bool
		}{shmDir, accessTempDir, false})
	}
	if cfg.MountView && cfg.Project != nil {
		rules = append(rules, struct {
			path     string
			access   uint64
			optional bool
		}{cfg.Project.Tree, accessTempDir, false})
		if cfg.Project.Common != "" {
			// A linked worktree's repository (gitworktree.go), its protected files bound
			// read-only.
			rules = append(rules, struct {
				path     string
				access   uint64
				optional bool
			}{cfg.Project.Common, accessTempDir, false})
		}
	}
	for _, c := range cfg.Mounted {
		rules = append(rules, struct {
			path     string
			access   uint64
			optional bool
		}{c.Path, accessTempDir, false})
	}
	for _, r := range rules {
		err := addPathRule(fd, r.path, r.access&handled)
		if r.optional && errors.Is(err, unix.ENOENT) {
			continue
		}
		if err != nil {
			_ = unix.Close(fd)
			return -1, 0, fmt.Errorf("landlock: allow %s: %w", r.path, err)
		}
	}
	return fd, abi, nil
}

// addPathRule allows access below path. Directory-only rights are left out for a file, which
// the kernel would refuse; a right the file cannot use adds nothing.
func addPathRule(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	}
	return ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0)
}

// restrictThreadLandlock sets no_new_privs on the calling thread and enforces the ruleset on
// it. Neither reaches the process's other threads.
func restrictThreadLandlock(ruleset int) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(ruleset, 0); err != nil {
		return fmt.Errorf("landlock: enforce the ruleset: %w", err)
	}
	return nil
}

// verifyRestricted checks, after the fact, that the restrictions took hold on the calling
// thread, so that a library or kernel surprise fails closed instead of running bash
// unrestricted.
func verifyRestricted(mountView bool) error {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return fmt.Errorf("self-check: no_new_privs is not set (%d, %v)", nnp, err)
	}
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil || mode != 2 {
		return fmt.Errorf("self-check: seccomp filter mode is not active (%d, %v)", mode, err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var caps [2]unix.CapUserData
	if err := unix.Capget(&hdr, &caps[0]); err != nil {
		return fmt.Errorf("self-check: read capabilities: %w", err)
	}
	if caps != [2]unix.CapUserData{} {
		return fmt.Errorf("self-check: capabilities are left: %+v", caps)
	}
	// The thread's own comm file is always writable by its owner; under Landlock opening it
	// for writing must fail, and in the mount view the read-only mount refuses it first.
	// Nothing is written either way.
	fd, err := unix.Open("/proc/thread-self/comm", unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err == nil {
		_ = unix.Close(fd)
		return errors.New("self-check: /proc/thread-self/comm is still writable, Landlock is not in force")
	}
	want := unix.EACCES
	if mountView {
		want = unix.EROFS
	}
	if !errors.Is(err, want) {
		return fmt.Errorf("self-check: unexpected error opening /proc/thread-self/comm for writing: %w", err)
	}
	if mountView {
		// Landlock then needs a check of its own, on a file the read-only mount does not
		// protect: every user may write to /dev/urandom (it only mixes the bytes in), and
		// the policy does not allow it.
		fd, err := unix.Open("/dev/urandom", unix.O_WRONLY|unix.O_CLOEXEC, 0)
		if err == nil {
			_ = unix.Close(fd)
			return errors.New("self-check: /dev/urandom is writable, Landlock is not in force")
		}
		if !errors.Is(err, unix.EACCES) {
			return fmt.Errorf("self-check: unexpected error opening /dev/urandom for writing: %w", err)
		}
	}
	// A unix socket is denied with and without a network namespace.
	fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err == nil {
		_ = unix.Close(fd)
		return errors.New("self-check: socket(2) was not denied, the seccomp filter is not in force")
	}
	if !errors.Is(err, unix.EPERM) {
		return fmt.Errorf("self-check: unexpected error from socket(2): %w", err)
	}
	return nil
}

// hasCapabilities reports whether the calling thread holds any capability. The helper's
// threads all have the same, inherited from the app.
func hasCapabilities() bool {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		// Assume the worst: dropping then either works or fails closed.
		return true
	}
	return data != [2]unix.CapUserData{}
}

// dropCapabilities empties the bounding, ambient, effective, permitted and inheritable
// capability sets of the calling thread; lastCap < 0 means there is nothing to drop. It
// matters when the app runs as root: Landlock does not take capabilities away, and root
// keeps them across execve even with no_new_privs. For an ordinary user there is nothing to
// drop (and dropping the bounding set would need CAP_SETPCAP); no_new_privs keeps set-uid
// and file capabilities from adding any.
func dropCapabilities(lastCap int) error {
	if lastCap < 0 {
		return nil
	}
	for c := 0; c <= lastCap; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("capabilities: drop %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("capabilities: clear the ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var none [2]unix.CapUserData
	if err := unix.Capset(&hdr, &none[0]); err != nil {
		return fmt.Errorf("capabilities: clear: %w", err)
	}
	return nil
}

// lastCapability is the kernel's highest capability number, read once: it is fixed for as
// long as the kernel runs, and a supervisor asks before every command.
var lastCapability = sync.OnceValues(readLastCapability)

func readLastCapability() (int, error) {
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
