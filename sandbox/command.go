//go:build linux

package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// HelperArg is the hidden first argument that turns the app binary into the supervisor of
// one command. It is not a flag, so no flag parser ever sees it.
const HelperArg = "__phoenix_sandbox_exec"

// MaxScriptBytes is the longest script Command accepts: the kernel limits one argument to
// 128 KiB including its terminating NUL.
const MaxScriptBytes = 128*1024 - 1

// WaitDelay bounds how long Wait waits, after cancellation or after the helper exits, for the
// helper to finish and for the output pipes to close. The helper normally ends everything in
// a few milliseconds; the delay only matters if it were stuck.
const WaitDelay = 2 * time.Second

// ExitSetupFailed is the helper's exit status when it could not set up (restrict itself,
// start bash). Its stderr then holds a line starting with "phoenix sandbox:".
const ExitSetupFailed = 125

// ErrHelperNotWired is returned by Command in a process that was started as the helper but
// did not divert to it: its main (or TestMain) does not call MaybeRunHelper first. Refusing
// here stops such a binary from re-executing itself without end.
var ErrHelperNotWired = errors.New("this binary was started as the sandbox helper but its main does not call sandbox.MaybeRunHelper first")

// Policy says how one command runs. The zero value other than TempDir is the Restricted
// policy, so that forgetting a field never loosens the sandbox.
type Policy struct {
	// TempDir is the conversation's private temporary directory: the only directory a
	// restricted command may write to, and its TMPDIR. It must exist and be absolute.
	// The caller creates it (see MakeTempDir) and removes it with the conversation.
	TempDir string
	// Unrestricted runs bash without Landlock, seccomp or dropped capabilities. The
	// supervisor still runs, so cancellation still ends every process the command started.
	Unrestricted bool
	// Project, on a policy that is not Unrestricted, is Project mode: every wall of the
	// Restricted policy stays up, but the working tree (except its protected files, see
	// ProtectedFiles) is writable and the network is reachable through the app's proxy
	// only. Nil is Restricted.
	Project *Project
}

// Project is what Project mode adds to the Restricted policy.
type Project struct {
	// Tree is the working tree the command may change: an absolute path to a directory.
	Tree string
	// ProxySocket is the unix socket of the app's network proxy for this conversation
	// (see package proxy); the command reaches it as a loopback address named by
	// HTTP_PROXY, HTTPS_PROXY and ALL_PROXY. Empty means no network at all.
	ProxySocket string
}

// helperConfig is what Command hands to the helper process, as one JSON argument.
type helperConfig struct {
	Restricted bool   `json:"restricted"`
	TempDir    string `json:"temp_dir,omitempty"`
	// Setpriv is the path of a setpriv(1) that accepts --pdeathsig, used to give a
	// restricted bash its parent-death signal (see startRestricted); empty when there is
	// none.
	Setpriv string `json:"setpriv,omitempty"`
	// MaxABI caps the Landlock ABI the ruleset asks for; 0 means the kernel's.
	MaxABI int `json:"max_abi,omitempty"`
	// MountView says the supervisor runs in a mount view of its own where everything but
	// the temp dir is read-only (see mountview.go). A long-lived supervisor sets it itself,
	// from how it was started.
	MountView bool `json:"mount_view,omitempty"`
	// Hidden is the secrets table as the app found it (hiddenPaths): covered in the mount
	// view, left out of Landlock's read rules without it.
	Hidden []string `json:"hidden,omitempty"`
	// Shm says the supervisor in the mount view has a private /dev/shm; it sets it itself.
	Shm bool `json:"-"`
	// Caches are the toolchain caches to share copy-on-write in the mount view (caches.go);
	// Mounted are those the supervisor did mount for this command.
	Caches  []CacheDir `json:"caches,omitempty"`
	Mounted []CacheDir `json:"-"`
	// Project is Project mode (project.go); nil is Restricted.
	Project *projectConfig `json:"project,omitempty"`
	// ProxySocket is the proxy's socket for a supervisor of one command (Command), which
	// opens it before it hides anything; a long-lived one gets a descriptor instead.
	ProxySocket string `json:"proxy_socket,omitempty"`
}

// proxySocket is the policy's proxy socket, "" when it has none.
func (p Policy) proxySocket() string {
	if p.Project == nil || p.Unrestricted {
		return ""
	}
	return p.Project.ProxySocket
}

// ErrProjectUnavailable is returned for a Project policy where the mount view cannot be
// set up; the error wraps it with the reason. Project mode is never run with fewer walls.
var ErrProjectUnavailable = errors.New("project mode is unavailable")

// ProjectAvailable reports whether Project mode can be enforced here, and if not, why, in
// the person's words.
func ProjectAvailable() (bool, string) {
	if st := Probe(); !st.Available {
		return false, st.Reason
	}
	if usable, reason := mountViewUsable(); !usable {
		return false, "it needs user namespaces, for a writable project with read-only protected files and a network that reaches only the proxy: " + reason
	}
	return true, ""
}

var (
	setprivOnce sync.Once
	setprivPath string
)

// pdeathsigSetpriv returns the setpriv(1) that the restricted path uses to make bash die with
// its supervisor, or "" when there is none: the option came with util-linux 2.33, and an
// older setpriv rejects it, which one run with --version finds out, once per process.
func pdeathsigSetpriv() string {
	setprivOnce.Do(func() {
		path, err := exec.LookPath("setpriv")
		if err != nil || !filepath.IsAbs(path) {
			return
		}
		// Kept between runs with setpriv's identity (probes.go): a start of it is a
		// headless chat's first command's to pay otherwise.
		now := probeNow()
		id, settled := fileIdentity(path, now)
		if a, ok := rememberedProbe("setpriv --pdeathsig", id, now); ok && settled {
			if a == "yes" {
				setprivPath = path
			}
			return
		}
		answer := "no"
		if exec.Command(path, "--pdeathsig", "KILL", "--version").Run() == nil {
			setprivPath, answer = path, "yes"
		}
		if settled {
			rememberProbe("setpriv --pdeathsig", id, answer, now)
		}
	})
	return setprivPath
}

// Command returns a command that runs `bash -c script` under the policy, supervised by a
// re-executed copy of this binary (see the package documentation). The caller sets Dir, Env,
// Stdout and Stderr, and leaves Stdin nil (so it reads /dev/null), SysProcAttr, Cancel and
// WaitDelay as they are: cancelling ctx asks the supervisor to SIGKILL the whole tree.
//
// A Restricted policy where Probe reports Landlock unavailable fails with ErrUnavailable.
func Command(ctx context.Context, p Policy, script string) (*exec.Cmd, error) {
	cfg, err := prepare(p, script)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program's own binary to run the sandbox helper: %w", err)
	}
	if cfg.Restricted {
		cfg.MountView, _ = mountViewUsable()
	}
	arg, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode the sandbox policy: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, HelperArg, string(arg), script)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// A session of its own: no controlling terminal to read from or inject into, and a
		// process group the app's terminal signals do not reach.
		Setsid: true,
		// If the app dies, the helper still cleans up. Go delivers this when the OS thread
		// that started the helper exits; that happens only to threads a goroutine locked
		// and never unlocked, which the tool runner does not do.
		Pdeathsig: syscall.SIGTERM,
	}
	if cfg.MountView {
		viewSysProcAttr(cmd.SysProcAttr)
	}
	if cfg.Project != nil {
		cfg.ProxySocket = p.proxySocket()
		if arg, err = json.Marshal(cfg); err != nil {
			return nil, fmt.Errorf("encode the sandbox policy: %w", err)
		}
		cmd.Args[2] = string(arg)
	}
	cmd.Cancel = func() error {
		// SIGTERM, not SIGKILL: the helper must live long enough to SIGKILL its descendants,
		// including setsid escapees that no process-group kill reaches (REQ-BED-005).
		return cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.WaitDelay = WaitDelay
	return cmd, nil
}

func checkTempDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("the restricted policy needs a private temp dir, and none was given")
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("the sandbox temp dir %q must be an absolute path", dir)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("the sandbox temp dir: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the sandbox temp dir %s is not a directory", dir)
	}
	return filepath.Clean(dir), nil
}

// MakeTempDir creates a private (0700) temporary directory for one conversation, in the
// sandbox's temp root below the system temp dir, which is hidden from every other
// conversation's commands (see Secrets). The caller removes it, with os.RemoveAll, when the
// conversation is deleted or the app stops.
func MakeTempDir(conversationID string) (string, error) {
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, conversationID)
	if len(safe) > 64 {
		safe = safe[:64]
	}
	root, err := ensureTempRoot()
	if err != nil {
		return "", err
	}
	dir, err := os.MkdirTemp(root, safe+"-")
	if err != nil {
		return "", fmt.Errorf("create the private temp dir of conversation %s: %w", conversationID, err)
	}
	return dir, nil
}
