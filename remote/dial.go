package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/proxy"
)

// Options say how to reach the remote machine.
type Options struct {
	// Destination is what ssh takes: "host", "user@host", or a Host of ~/.ssh/config.
	Destination string
	// SSH is the ssh program; empty means "ssh" found on PATH.
	SSH string
	// ConfigFile, when set, replaces the person's ~/.ssh/config (ssh -F); tests use it.
	ConfigFile string
	// Binary is the program copied to and started on the remote side; empty means the agent
	// built alone, shipped beside the app (agentBinary), else this executable.
	Binary string
	// Ask shows the person a card about a host a Project-mode command there wants to reach
	// (proxy.go); nil refuses every host the project does not allow.
	Ask proxy.Asker
}

// Info is what Dial found on the remote side.
type Info struct {
	OS, Arch string
	// BinaryPath is where the agent's binary lives on the remote machine.
	BinaryPath string
	// Copied says the binary was copied by this Dial (no matching one was there).
	Copied bool
	// Hello is the agent's answer: its version and the remote kernel's sandbox layers.
	Hello HelloReply
}

// sshOptions are set on every ssh run, over the person's configuration: no prompt can
// appear (the app has no terminal to show it in), a silent network drop is noticed within
// about three seconds, and nothing of this machine — its agent, its display, its ports — is
// forwarded to the remote side.
var sshOptions = []string{
	"-T", "-e", "none",
	"-o", "BatchMode=yes",
	"-o", "ConnectTimeout=10",
	"-o", "ServerAliveInterval=1",
	"-o", "ServerAliveCountMax=3",
	"-o", "ForwardAgent=no",
	"-o", "ForwardX11=no",
	"-o", "ClearAllForwardings=yes",
}

// AgentDir is the remote agent binaries' folder under the remote user's cache directory, as
// the remote shell writes it (one home for the install, the probe and Forget).
const agentDirShell = `"${XDG_CACHE_HOME:-$HOME/.cache}/phoenix-desktop/bin"`

// binaryIdentity is the local binary's checksum and size, hashed once per process: later
// connections must not read tens of megabytes again.
type binaryIdentity struct {
	sum  string
	size int64
}

var (
	identityMu    sync.Mutex
	identityCache = map[string]binaryIdentity{}
)

func identify(path string) (binaryIdentity, error) {
	identityMu.Lock()
	defer identityMu.Unlock()
	if id, ok := identityCache[path]; ok {
		return id, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return binaryIdentity{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return binaryIdentity{}, err
	}
	id := binaryIdentity{sum: hex.EncodeToString(h.Sum(nil)), size: n}
	identityCache[path] = id
	return id, nil
}

// agentName is the binary's file name on the remote side: the release and the start of its
// checksum, so two builds of one release never share a file.
func (id binaryIdentity) agentName() string { return assets.Version + "-" + id.sum[:16] }

// goArch maps `uname -m` to Go's name of the processor.
var goArch = map[string]string{
	"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i686": "386", "i386": "386",
	"armv7l": "arm", "armv6l": "arm", "riscv64": "riscv64", "ppc64le": "ppc64le", "s390x": "s390x",
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// remoteSh is the command line ssh sends for script: the remote user's login shell may be any
// shell, so the script runs under /bin/sh.
func remoteSh(script string) string { return "exec /bin/sh -c " + shellQuote(script) }

// boundedBuffer keeps the last part of what ssh and the agent wrote to standard error, for
// error messages.
type boundedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const boundedMax = 8 << 10

func (b *boundedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > boundedMax {
		b.buf = append([]byte(nil), b.buf[len(b.buf)-boundedMax:]...)
	}
	return len(p), nil
}

func (b *boundedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.TrimSpace(string(b.buf))
}

// sshCmd builds one ssh run through the host's master connection; ctx kills it (the
// long-lived agent session gets context.Background: Close ends it).
func (c *Client) sshCmd(ctx context.Context, extra ...string) *exec.Cmd {
	return sshCommand(ctx, c.sshPath, c.opts, append(c.masterOptions(), extra...)...)
}

// masterOptions share one master connection per host: the first ssh run to it becomes the
// master (ControlMaster=auto) and stays, in the background, for masterPersist after its last
// session ends, so a later connection — a new conversation there, a reconnect of the agent —
// skips the key exchange and the authentication.
func (c *Client) masterOptions() []string {
	return []string{"-o", "ControlMaster=auto", "-o", "ControlPath=" + c.ctlPath, "-o", "ControlPersist=" + strconv.Itoa(int(masterPersist/time.Second))}
}

// masterPersist is how long an idle master connection stays.
const masterPersist = 5 * time.Minute

// sshCommand is one ssh run with Phoenix's options over the person's configuration.
func sshCommand(ctx context.Context, sshPath string, opts Options, extra ...string) *exec.Cmd {
	args := append([]string(nil), sshOptions...)
	if opts.ConfigFile != "" {
		args = append(args, "-F", opts.ConfigFile)
	}
	args = append(args, extra...)
	return exec.CommandContext(ctx, sshPath, args...)
}

// controlDir is the private folder of the master connections' sockets: in the person's runtime
// directory when there is one (memory-backed, private), else the temp dir, and owner-only
// either way — a folder of that name that someone else owns or can enter is refused, since its
// sockets would carry the person's sessions.
func controlDir() (string, error) {
	dir := filepath.Join(runtimeBase(), "phoenix-ssh-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("could not make a private folder for SSH connections: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("could not check the private folder for SSH connections: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("the folder %s for SSH connections is not private to you (owner or permissions); remove it and try again", dir)
	}
	return dir, nil
}

// findSSH is the ssh program of opts, or ssh on PATH.
func findSSH(opts Options) (string, error) {
	if opts.SSH != "" {
		return opts.SSH, nil
	}
	p, err := exec.LookPath("ssh")
	if err != nil {
		return "", fmt.Errorf("OpenSSH's ssh program was not found on PATH; install it (Debian: apt install openssh-client) to work on another machine")
	}
	return p, nil
}

// runtimeBase is the person's runtime directory when there is one, else the temp dir.
func runtimeBase() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	return os.TempDir()
}

// Dial connects to the remote machine, makes sure the agent's binary is there (copying this
// one when it is not), starts the agent and greets it. ctx bounds the whole connection; the
// Client lives on until Close or the connection drops.
func Dial(ctx context.Context, opts Options) (c *Client, err error) {
	if err := CheckDestination(opts.Destination); err != nil {
		return nil, err
	}
	sshPath, err := findSSH(opts)
	if err != nil {
		return nil, err
	}
	bin := opts.Binary
	if bin == "" {
		if bin, err = agentBinary(); err != nil {
			return nil, fmt.Errorf("could not find Phoenix's own program to copy to %s: %w", opts.Destination, err)
		}
	}
	id, err := identify(bin)
	if err != nil {
		return nil, fmt.Errorf("could not read Phoenix's own program %s to copy to %s: %w", bin, opts.Destination, err)
	}
	ctlDir, err := controlDir()
	if err != nil {
		return nil, err
	}
	// ssh expands %C to a hash of this host, the remote host, its port and user.
	c = &Client{opts: opts, sshPath: sshPath, ctlPath: filepath.Join(ctlDir, "%C"), lost: make(chan struct{})}
	c.askCtx, c.askCancel = context.WithCancel(context.Background())
	// `return nil, err` sets c to nil before deferred calls run: close the one made here.
	made := c
	defer func() {
		if err != nil {
			made.Close()
		}
	}()
	probe, err := c.probe(ctx, id)
	if err != nil {
		return nil, err
	}
	c.info.OS, c.info.Arch = probe["os"], probe["arch"]
	if probe["os"] != "Linux" {
		return nil, fmt.Errorf("%s runs %s; Phoenix can work only on Linux machines over SSH", opts.Destination, probe["os"])
	}
	if goArch[probe["arch"]] != runtime.GOARCH {
		return nil, fmt.Errorf("%s has a %s processor and this Phoenix is built for %s; it can copy itself only to a machine of the same kind", opts.Destination, probe["arch"], runtime.GOARCH)
	}
	dir := probe["dir"]
	if !strings.HasPrefix(dir, "/") {
		return nil, fmt.Errorf("%s has no usable home or cache folder (it reported %q); set HOME for that user there", opts.Destination, dir)
	}
	c.info.BinaryPath = dir + "/" + id.agentName()
	// The file is named by its checksum and was put in place only after the remote side
	// checked that checksum (install), so a file of that name and size is the same program.
	if size, err := strconv.ParseInt(probe["size"], 10, 64); err != nil || size != id.size {
		if err := c.install(ctx, bin, id, dir); err != nil {
			return nil, err
		}
		c.info.Copied = true
	}
	if err := c.startAgent(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// probe asks the remote side for its system, processor, the agent's folder and the size of a
// binary of this build there. The first ssh run to a host also starts its master connection.
func (c *Client) probe(ctx context.Context, id binaryIdentity) (map[string]string, error) {
	script := `printf 'os=%s\narch=%s\n' "$(uname -s)" "$(uname -m)"; d=` + agentDirShell +
		`; printf 'dir=%s\n' "$d"; f="$d/` + id.agentName() + `"; if [ -f "$f" ] && [ -x "$f" ]; then printf 'size=%s\n' "$(wc -c <"$f")"; fi; echo end`
	cmd := c.sshCmd(ctx, c.opts.Destination, remoteSh(script))
	var stderr boundedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("connecting to %s took too long (%v); check that the machine is up and reachable with `ssh %s`", c.opts.Destination, context.Cause(ctx), c.opts.Destination)
		}
		return nil, c.sshFailed("connect to", &stderr)
	}
	m := map[string]string{}
	ended := false
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\n")
		if line == "end" {
			ended = true
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	if !ended {
		return nil, fmt.Errorf("%s did not answer Phoenix's questions about the system as a POSIX shell would (it said %q); check the remote user's shell", c.opts.Destination, string(out))
	}
	return m, nil
}

// EndMaster ends the master connection to the host, if there is one: every session over it
// ends, so the agent there stops what it runs. Session.Close and Forget call it.
func EndMaster(ctx context.Context, opts Options) {
	sshPath, err := findSSH(opts)
	if err != nil {
		return
	}
	dir, err := controlDir()
	if err != nil {
		return
	}
	c := &Client{opts: opts, sshPath: sshPath, ctlPath: filepath.Join(dir, "%C")}
	_ = c.sshCmd(ctx, "-O", "exit", opts.Destination).Run()
}

// sshFailed turns ssh's own words into an error for the person.
func (c *Client) sshFailed(what string, stderr *boundedBuffer) error {
	msg := stderr.String()
	if msg == "" {
		msg = "ssh ended without saying why"
	}
	return fmt.Errorf("could not %s %s over SSH: %s. Check that `ssh %s` works in a terminal without asking anything (keys or agent, known_hosts)", what, c.opts.Destination, msg, c.opts.Destination)
}

// install copies the binary into dir on the remote side. The remote shell writes it to a
// temporary name, checks its SHA-256 and only then makes it executable and renames it into
// place, so a cut or corrupted copy is never run.
func (c *Client) install(ctx context.Context, bin string, id binaryIdentity, dir string) error {
	f, err := os.Open(bin)
	if err != nil {
		return fmt.Errorf("could not read Phoenix's own program to copy to %s: %w", c.opts.Destination, err)
	}
	defer f.Close()
	script := `set -e; d=` + shellQuote(dir) + `; mkdir -p "$d"; chmod 700 "$d"; t=$(mktemp "$d/.incoming.XXXXXX"); trap 'rm -f "$t"' EXIT; cat >"$t"; ` +
		`if ! printf '%s  %s\n' ` + id.sum + ` "$t" | sha256sum -c --status; then echo "the copy's checksum does not match" >&2; exit 3; fi; ` +
		`chmod 700 "$t"; mv -f "$t" "$d/` + id.agentName() + `"; trap - EXIT`
	cmd := c.sshCmd(ctx, c.opts.Destination, remoteSh(script))
	var stderr boundedBuffer
	cmd.Stdin, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("copying Phoenix to %s took too long (%v)", c.opts.Destination, context.Cause(ctx))
		}
		return c.sshFailed("copy Phoenix's agent to", &stderr)
	}
	return nil
}

// helloTimeout bounds the agent's greeting once its process runs.
const helloTimeout = 15 * time.Second

// startAgent starts the agent over a session of the master connection and greets it.
func (c *Client) startAgent(ctx context.Context) error {
	cmd := c.sshCmd(context.Background(), c.opts.Destination, "exec "+shellQuote(c.info.BinaryPath)+" "+AgentArg)
	cmd.Stderr = &c.agentErr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not start ssh to %s: %w", c.opts.Destination, err)
	}
	c.agent = cmd
	c.agentDone = make(chan struct{})
	c.rpc = newRPCClient(stdout, stdin)
	go func() {
		_ = cmd.Wait()
		close(c.agentDone)
		c.markLost()
	}()
	hctx, cancel := context.WithTimeout(ctx, helloTimeout)
	defer cancel()
	call := c.rpc.Go(agentService+".Hello", HelloArgs{Version: assets.Version, Asks: c.opts.Ask != nil}, &c.info.Hello, nil)
	select {
	case <-call.Done:
	case <-hctx.Done():
		return fmt.Errorf("the agent of Phoenix on %s did not answer within %v", c.opts.Destination, helloTimeout)
	}
	if call.Error != nil {
		<-c.agentDone
		return c.agentStartError(call.Error)
	}
	if c.opts.Ask != nil {
		c.asking.Add(1)
		go askLoop(c.askCtx, c.rpc, c.opts.Ask, &c.asking)
	}
	c.asking.Add(1)
	go watchLoop(c.rpc, &c.langs, &c.asking)
	return nil
}

// agentStartError says why the agent did not start, in the person's words where we know them.
func (c *Client) agentStartError(err error) error {
	msg := c.agentErr.String()
	if strings.Contains(msg, "error while loading shared libraries") {
		why := ""
		if c.opts.Binary == "" {
			why = ": this Phoenix has no " + AgentBinaryName + " beside it (the agent built alone, which needs no library), so it copied the whole app; reinstall Phoenix from its package, or"
		} else {
			why = ";"
		}
		return fmt.Errorf("the agent of Phoenix cannot start on %s because a system library is missing there (%s)%s install the desktop's libraries there (on Debian: apt install libgl1 libx11-6 libxcursor1 libxrandr2 libxinerama1 libxi6 libxxf86vm1)", c.opts.Destination, msg, why)
	}
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("the agent of Phoenix on %s stopped at its start: %s", c.opts.Destination, msg)
}
