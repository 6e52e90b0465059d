//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// landlockABI is what one Landlock ABI adds to the kernel's file and network rules, and what
// the sandbox does about it on kernels that lack it. It is the one table of these facts:
// Describe and the tests derive from it.
type landlockABI struct {
	abi    int
	kernel string
	// adds is what the Restricted policy gains from this ABI.
	adds string
	// without says what happens on an older ABI: which other layer makes up for it, or,
	// when hole is true, what stays open.
	without string
	// hole, when set, is what a Restricted command can do on an older ABI that it should
	// not.
	hole string
	// scopesSignals marks the ABI from which a command cannot signal processes outside.
	scopesSignals bool
}

var landlockABIs = []landlockABI{
	{1, "5.13", "the file system read-only except the private temp dir and /dev/null, /dev/zero, /dev/full; no tracing of processes outside", "", "", false},
	{2, "5.19", "moving and linking files between directories of the temp dir", "files move between directories of the temp dir by copying (mv does this by itself)", "", false},
	{3, "6.2", "truncating files through their path", "the seccomp filter denies truncate(2) everywhere, the temp dir included", "", false},
	{4, "6.7", "TCP bind and connect", "in the mount view TCP reaches only the command's own network namespace; without it the seccomp filter denies creating any socket", "", false},
	{5, "6.10", "ioctl on devices", "the only writable devices are /dev/null, /dev/zero and /dev/full, and there is no terminal", "", false},
	{6, "6.12", "signals and abstract unix sockets limited to the sandbox", "abstract unix sockets: the seccomp filter denies creating unix sockets; signals: the filter hands each signal a command sends by pid, process group or pidfd, and each SIGIO owner it sets, to the supervisor, which lets through only those meant for the command's own processes", "", true},
}

// signalsScopedAt reports whether Landlock at this ABI keeps a command from signalling
// processes outside the sandbox.
func signalsScopedAt(abi int) bool {
	for _, a := range landlockABIs {
		if a.scopesSignals {
			return abi >= a.abi
		}
	}
	return false
}

// Layer is one part of the Restricted sandbox on this machine.
type Layer struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	// Detail says what the layer does here, or why it is missing and what that means.
	Detail string `json:"detail"`
}

// Layers is which parts of the Restricted sandbox this machine enforces and why any is
// missing: the one source for `phoenix-desktop doctor`, the Restricted badge's details and
// the settings.
type Layers struct {
	Status
	// Summary says first, in plain words, what Restricted mode means for the person here.
	Summary string `json:"summary"`
	// Secrets is the secrets table: what no sandboxed command can read.
	Secrets []Secret `json:"secrets"`
	Layers  []Layer  `json:"layers"`
	// Project says whether Project mode can be enforced here and what it means.
	Project ProjectLayers `json:"project"`
	// Holes lists, in words for a person, what a Restricted command can still do here that
	// it should not.
	Holes []string `json:"holes,omitempty"`
}

// Describe reports the layers of the Restricted sandbox on this machine.
func Describe() Layers {
	st := Probe()
	view, reason := false, ""
	if st.Available {
		view, reason = mountViewUsable()
	}
	out := describe(st, seccompAvailable(), userNotifAvailable(), pdeathsigSetpriv() != "", view, reason)
	out.Secrets = Secrets()
	out.Project.Available, out.Project.Reason = ProjectAvailable()
	out.Project.Summary = ProjectSummary(0)
	out.Project.Protected = append([]string(nil), ProtectedFiles...)
	if view {
		var names []string
		for _, c := range sharedCaches(hiddenPaths()) {
			if _, err := os.Stat(c.Path); err == nil {
				names = append(names, c.Name+" ("+c.Path+")")
			}
		}
		cl := Layer{Name: "toolchain caches", Active: len(names) > 0}
		if len(names) > 0 {
			cl.Detail = "shared copy-on-write, so a first build reuses what you compiled and your caches are never written: " + strings.Join(names, ", ")
		} else {
			cl.Detail = "no Go, npm or pip cache found; a command's caches start empty in its temp dir"
		}
		out.Layers = append(out.Layers, cl)
	}
	return out
}

// ProjectLayers is what Project mode adds, for doctor and the mode badge's details; the app
// adds the hosts the person allowed, which the proxy keeps.
type ProjectLayers struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
	Summary   string `json:"summary"`
	// Protected is the table of files in the tree that stay read-only.
	Protected []string `json:"protected"`
}

// ProjectSummary is what Project mode means, in the person's words; hosts is how many hosts
// the person allowed for the project (the proxy's list).
func ProjectSummary(hosts int) string {
	n := "no host so far"
	switch {
	case hosts == 1:
		n = "1 so far"
	case hosts > 1:
		n = fmt.Sprintf("%d so far", hosts)
	}
	return "Commands can change files in this project only (not its protected files); they cannot read your keys; network: only the hosts you allowed — " + n + "."
}

// String renders Project mode's part for a person.
func (p ProjectLayers) String() string {
	if !p.Available {
		return "Project mode: unavailable: " + p.Reason + "\n"
	}
	return "Project mode: available. " + p.Summary + "\n" +
		"  In the project, these stay read-only (and cannot be renamed or replaced; one a command creates is removed when it ends): " +
		strings.Join(p.Protected, ", ") + "; .git cannot be moved or replaced, while its objects, refs and index stay writable so git add and git commit work.\n" +
		"  No new git repository can be made anywhere in the project (git init, clone, worktree add and submodule checkouts there are refused; one made another way is removed when the command ends); the repositories there before keep their hooks and configuration read-only.\n" +
		"  Network: none but the app's proxy, which asks you about each new host.\n"
}

// restrictedSummary is what Restricted mode means, in the person's words.
const restrictedSummary = "Commands can read your project, not your keys; they cannot change anything outside their own temp dir; no network."

func seccompAvailable() error {
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err
}

// describe builds the report from what was found: seccompErr and notifyErr say why seccomp,
// or its handing of calls to the supervisor, is missing.
func describe(st Status, seccompErr, notifyErr error, pdeathsig, view bool, viewReason string) Layers {
	out := Layers{Status: st, Summary: restrictedSummary}
	if !st.Available {
		out.Summary = "Restricted mode is unavailable here, so commands run with your full rights: " + st.Reason
	}
	ll := Layer{Name: "Landlock", Active: st.Available}
	switch {
	case st.ABI == 0:
		ll.Detail = st.Reason
	case !st.Available:
		ll.Detail = fmt.Sprintf("ABI %d, not in use: %s", st.ABI, st.Reason)
	default:
		var have, lack []string
		for _, a := range landlockABIs {
			if st.ABI >= a.abi {
				have = append(have, a.adds)
				continue
			}
			lack = append(lack, fmt.Sprintf("%s (ABI %d, Linux %s): %s", a.adds, a.abi, a.kernel, a.without))
			if a.hole != "" {
				out.Holes = append(out.Holes, a.hole)
			}
		}
		ll.Detail = fmt.Sprintf("ABI %d: %s", st.ABI, strings.Join(have, "; "))
		if len(lack) > 0 {
			ll.Detail += ". Missing here: " + strings.Join(lack, "; ")
		}
	}
	out.Layers = append(out.Layers, ll)

	sc := Layer{Name: "seccomp", Active: seccompErr == nil}
	if sc.Active {
		sc.Detail = "denies io_uring, mounts, namespaces, kernel modules, unix sockets and datagram socket pairs; lets through only an allow-list of ioctl requests (terminal and file-system queries real tools use); leaves ptrace to Landlock, so a command traces only its own processes"
		if view {
			sc.Detail += "; allows IPv4 and IPv6 sockets, which reach only the command's own network namespace"
		} else {
			sc.Detail += "; denies every other socket and System V IPC and POSIX message queues"
		}
		if !view && notifyErr != nil {
			sc.Detail += ", and chmod, chown and extended attributes everywhere (without the mount view they cannot be told apart by path)"
		}
		if notifyErr == nil {
			sc.Detail += "; it hands the calls that reach another process by its pid (signals where Landlock does not limit them; resource limits, scheduling and priorities everywhere) to the supervisor, which lets through only those meant for the command's own processes"
		} else {
			sc.Detail += fmt.Sprintf("; the supervisor cannot decide calls for it here (%v), so the calls that reach another process by its pid are refused, those to the command's own processes included (`kill $!` and `timeout` fail where Landlock does not limit signals)", notifyErr)
		}
	} else {
		sc.Detail = fmt.Sprintf("not available (%v): Restricted mode is off, because sockets could not be closed", seccompErr)
	}
	out.Layers = append(out.Layers, sc)

	out.Layers = append(out.Layers, Layer{Name: "capabilities", Active: true,
		Detail: "all dropped, and no_new_privs set, so set-uid programs gain nothing"})

	mv := Layer{Name: "mount view", Active: view}
	switch {
	case view:
		mv.Detail = "commands run in a user and mount namespace where every mount is read-only and only the temp dir is writable, so the kernel refuses changes to timestamps, modes, ownership and extended attributes outside it, and chmod, git init and git clone work inside it; every secret is covered by an empty file system; a network namespace of their own has only loopback (their own test servers work, your loopback services are out of reach); each command has its own IPC namespace and a private /dev/shm (Python's multiprocessing works); in a pid namespace whose first process is the supervisor, commands see only their own processes and die with the supervisor even if it is killed outright"
	case !st.Available:
		mv.Detail = "not in use without Restricted mode"
	case notifyErr == nil:
		mv.Detail = "off: " + viewReason + ". Landlock and seccomp keep the file system read-only, and the supervisor carries out changes of modes, timestamps, owners and extended attributes for the command in the temp dir and refuses them elsewhere"
	default:
		mv.Detail = "off: " + viewReason + ". Landlock and seccomp alone keep the file system read-only"
		out.Holes = append(out.Holes,
			"the command can change the timestamps of your files (utimensat stays open because touch needs it in the temp dir; the mount view closes this)",
			"chmod is denied in the temp dir too, so `git init` and `git clone` there fail")
	}
	out.Layers = append(out.Layers, mv)
	if st.Available && !view {
		out.Holes = append(out.Holes,
			"the names of files in a hidden directory can be listed (their contents cannot be read): without the mount view the secrets are left out of Landlock's read rules, which cover contents, not names",
			"/dev/shm is read-only, so Python's multiprocessing fails; there is no loopback, so a test cannot start its own server; toolchain caches start empty in each conversation")
	}
	if st.Available && !view {
		out.Holes = append(out.Holes, "a bash command outlives its supervisor if something outside kills the supervisor outright (the OOM killer, you): only the mount view's pid namespace ends it with the supervisor")
	}

	out.Layers = append(out.Layers, Layer{Name: "supervisor", Active: true,
		Detail: "each command runs below a long-lived supervisor that is never restricted; it kills the whole tree, setsid escapees included, when the command ends or is stopped, and when the app ends"})
	pd := Layer{Name: "parent-death signal", Active: pdeathsig}
	if pdeathsig {
		pd.Detail = "a long-running Restricted command started through sandbox.Command (MCP servers) dies even if its supervisor is killed outright (setpriv --pdeathsig)"
	} else {
		pd.Detail = "missing: no setpriv(1) with --pdeathsig (util-linux 2.33) was found, so a long-running Restricted command outlives a supervisor that is killed outright"
	}
	out.Layers = append(out.Layers, pd)
	return out
}

// String renders the report for a person, one layer a line.
func (l Layers) String() string {
	var b strings.Builder
	if l.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", l.Summary)
	}
	if l.Available {
		fmt.Fprintf(&b, "Restricted mode: available\n")
	} else {
		fmt.Fprintf(&b, "Restricted mode: unavailable: %s\n", l.Reason)
	}
	if l.Available {
		var present []string
		for _, s := range l.Secrets {
			if s.Present {
				present = append(present, fmt.Sprintf("  - %s: %s\n", s.Path, s.What))
			}
		}
		if len(present) > 0 {
			b.WriteString("Hidden from every command (the secrets table):\n" + strings.Join(present, ""))
		} else {
			b.WriteString("Hidden from every command: none of the secrets table's places exists here yet; each is hidden as soon as it does\n")
		}
	}
	for _, layer := range l.Layers {
		mark := "on "
		if !layer.Active {
			mark = "off"
		}
		fmt.Fprintf(&b, "  [%s] %s: %s\n", mark, layer.Name, layer.Detail)
	}
	if l.Project.Summary != "" {
		b.WriteString(l.Project.String())
	}
	if l.Available && len(l.Holes) > 0 {
		b.WriteString("Known limits here:\n")
		for _, h := range l.Holes {
			fmt.Fprintf(&b, "  - %s\n", h)
		}
	}
	return b.String()
}
