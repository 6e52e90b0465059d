//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// serveMode and serveViewMode are the arguments after HelperArg that start a long-lived
// supervisor (see Run) instead of the supervisor of one command; the second sets up the
// mount view first.
const (
	serveMode        = "serve"
	serveViewMode    = "serve-view"
	serveProjectMode = "serve-project"
)

// maxIdleSupervisors bounds how many started supervisors wait for work. Commands of one
// conversation are serial, so a handful covers several conversations working at once; each
// idle one costs a process and some memory.
const maxIdleSupervisors = 2

// maxFrameBytes bounds one protocol message: a script of MaxScriptBytes, JSON-escaped, and an
// environment fit easily.
const maxFrameBytes = 8 << 20

// RunOptions are the parts of a command other than its policy and script.
type RunOptions struct {
	// Dir is the working directory; empty means the supervisor's, which is the app's.
	Dir string
	// Env is the command's whole environment (the Restricted policy replaces the temp-dir
	// variables with its private TMPDIR).
	Env []string
	// Stdout and Stderr receive the command's output; nil discards it. Stdin is /dev/null.
	Stdout, Stderr io.Writer
	// Notice, when set, receives what the sandbox did about the command that the model
	// should know, in plain words (Project mode: a protected file the command created was
	// removed).
	Notice func(string)
}

// SetupError says that the supervisor could not start the command (restrict it, find bash,
// enter the working directory). The command did not run.
type SetupError struct{ Reason string }

func (e *SetupError) Error() string { return "the sandbox could not start the command: " + e.Reason }

// ErrOutputHeld is returned, with the exit status, when the command ended but its output
// pipes stayed open past WaitDelay; the output is complete up to that point.
var ErrOutputHeld = errors.New("the output was closed after the command exited, because a process kept it open")

// Run runs `bash -c script` under the policy on a long-lived supervisor process and returns
// bash's exit status (128+n when a signal ended it). It gives the same guarantees as Command
// — the app is never restricted, the whole tree (setsid escapees included) is killed when the
// command ends or ctx is cancelled, the command dies with the app, the command can neither
// signal nor trace its supervisor — but it does not start the app binary for each command:
// supervisors are started once (see Prewarm) and each runs one command at a time, so
// whatever is left below one after a command ends belongs to that command and is swept.
//
// Cancelling ctx kills the tree and returns status 137 with ctx's error. A Restricted policy
// where Probe reports Landlock unavailable fails with ErrUnavailable; a command that could
// not start fails with a *SetupError.
func Run(ctx context.Context, p Policy, script string, o RunOptions) (int, error) {
	cfg, err := prepare(p, script)
	if err != nil {
		return 0, err
	}
	// No setpriv: its parent-death signal guards against a supervisor killed outright, and
	// costs two program starts per command (see startRestricted); a long-lived supervisor
	// sweeps its command when the app ends or closes the socket.
	cfg.Setpriv = ""
	req := runRequest{helperConfig: cfg, Script: script, Dir: o.Dir, Env: o.Env}
	if req.Env == nil {
		req.Env = os.Environ()
	}
	k := kindPlain
	if cfg.Restricted {
		if usable, _ := mountViewUsable(); usable {
			k = kindView
		}
	}
	if cfg.Project != nil {
		k = kindProject
	}
	for attempt := 0; ; attempt++ {
		s, err := defaultPool.get(k)
		if err != nil {
			return 0, err
		}
		status, sent, err := s.run(ctx, req, p.proxySocket(), o)
		if err == nil || errors.Is(err, ErrOutputHeld) {
			defaultPool.put(s)
			return status, err
		}
		s.close()
		// An idle supervisor that ended meanwhile (the person killed it, the OOM killer) is
		// replaced once; a command that was already handed over is not run twice.
		if sent || attempt > 0 {
			return status, err
		}
	}
}

// Prewarm starts a supervisor in the background when none is waiting, so that the next
// command does not pay for starting one. The app calls it at start-up; it is cheap to call
// again.
func Prewarm() {
	defaultPool.prewarm()
}

// prepare checks a command and its policy before it is run, and returns the supervisor's
// part of the policy.
func prepare(p Policy, script string) (helperConfig, error) {
	if isHelper() {
		return helperConfig{}, ErrHelperNotWired
	}
	if len(script) > MaxScriptBytes {
		return helperConfig{}, fmt.Errorf("the command is %d bytes, more than the %d the kernel accepts in one argument: write long content in parts or with the patch tool", len(script), MaxScriptBytes)
	}
	if strings.IndexByte(script, 0) >= 0 {
		return helperConfig{}, errors.New("the command contains a NUL byte, which cannot be passed to bash")
	}
	cfg := helperConfig{Restricted: !p.Unrestricted, MaxABI: maxABIForTests}
	if cfg.Restricted {
		if st := Probe(); !st.Available {
			return helperConfig{}, fmt.Errorf("%w: %s", ErrUnavailable, st.Reason)
		}
		dir, err := checkTempDir(p.TempDir)
		if err != nil {
			return helperConfig{}, err
		}
		cfg.TempDir = dir
		cfg.Setpriv = pdeathsigSetpriv()
		cfg.Hidden = hiddenPaths()
		if p.Project != nil {
			if ok, reason := ProjectAvailable(); !ok {
				return helperConfig{}, fmt.Errorf("%w: %s", ErrProjectUnavailable, reason)
			}
			tree, err := checkTree(p.Project.Tree)
			if err != nil {
				return helperConfig{}, err
			}
			// Noted before the caches are looked for: from now on a go in this tree is the
			// agent's, and is never the one asked where the caches are.
			agentTrees.note(tree)
			cfg.Project = &projectConfig{Tree: tree, Proxy: p.Project.ProxySocket != ""}
		}
		cfg.Caches = sharedCaches(cfg.Hidden)
	}
	return cfg, nil
}

// maxABIForTests caps the Landlock ABI the sandbox asks for, 0 for none, so that the tests
// can run the escape battery at every ABI the kernel has.
var maxABIForTests int

// runRequest is one command for a long-lived supervisor.
type runRequest struct {
	helperConfig
	Script string   `json:"script"`
	Dir    string   `json:"dir,omitempty"`
	Env    []string `json:"env"`
	// SameEnv stands for an Env equal to that of the last request the supervisor received
	// (sentEnv): a conversation's commands nearly always share one environment, and
	// decoding it is most of what reading a request costs the supervisor.
	SameEnv bool `json:"same_env,omitempty"`
}

// message is what the app sends a supervisor: a command to run, with its stdout and stderr
// attached as file descriptors, or a request to stop the running one.
type message struct {
	Run  *runRequest `json:"run,omitempty"`
	Stop bool        `json:"stop,omitempty"`
}

// outcome is the supervisor's answer to a run request; the first message it sends, once it
// is ready or has failed to set up, is one too.
type outcome struct {
	Status     int    `json:"status"`
	SetupError string `json:"setup_error,omitempty"`
	// Notes are what the supervisor did about the command that the model should know
	// (a protected file it created and that was removed).
	Notes []string `json:"notes,omitempty"`
	// Ahead says the command was forked from a thread restricted before it came
	// (restrictedThread).
	Ahead bool `json:"ahead,omitempty"`
}

// kind is the sort of supervisor: one for Unrestricted commands and Restricted ones without
// the mount view, and one that runs in the mount view (see mountview.go).
type kind int

const (
	kindPlain kind = iota
	kindView
	// kindProject runs Project commands: in the mount view, with a writable tree and the
	// proxy relay. Restricted commands never run on it, so the tree's binding can stay from
	// one command to the next.
	kindProject
)

// inView reports whether supervisors of this kind run in the mount view.
func (k kind) inView() bool { return k != kindPlain }

// pool holds the started supervisors that wait for work.
type pool struct {
	mu   sync.Mutex
	idle map[kind][]*supervisor
	// warming is true while Prewarm starts one.
	warming bool
}

var defaultPool = &pool{}

func (p *pool) get(k kind) (*supervisor, error) {
	p.mu.Lock()
	for len(p.idle[k]) > 0 {
		list := p.idle[k]
		s := list[len(list)-1]
		p.idle[k] = list[:len(list)-1]
		if s.alive() {
			p.mu.Unlock()
			return s, nil
		}
		s.close()
	}
	p.mu.Unlock()
	return startSupervisor(k)
}

func (p *pool) put(s *supervisor) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle[s.kind]) >= maxIdleSupervisors || !s.alive() {
		go s.close()
		return
	}
	if p.idle == nil {
		p.idle = map[kind][]*supervisor{}
	}
	p.idle[s.kind] = append(p.idle[s.kind], s)
}

// prewarm starts, in the background, a supervisor of each kind that has none waiting.
func (p *pool) prewarm() {
	p.mu.Lock()
	if p.warming || isHelper() {
		p.mu.Unlock()
		return
	}
	p.warming = true
	p.mu.Unlock()
	go func() {
		defer func() {
			p.mu.Lock()
			p.warming = false
			p.mu.Unlock()
		}()
		// Asking go for its caches costs a program start; the first command should not.
		Caches()
		// Trying the mount view leaves its supervisor in the pool when it works.
		if usable, _ := mountViewUsable(); usable {
			p.fill(kindView)
		}
		p.fill(kindPlain)
	}()
}

func (p *pool) fill(k kind) {
	p.mu.Lock()
	n := len(p.idle[k])
	p.mu.Unlock()
	if n > 0 {
		return
	}
	if s, err := startSupervisor(k); err == nil {
		p.put(s)
	}
}

// Shutdown ends every supervisor that waits for work; one still running a command ends when
// that command is done and it is not taken back. The app calls it when it closes (the
// supervisors would also end by themselves once the app is gone); the bench calls it to
// measure a cold start. Run starts new supervisors afterwards as needed.
func Shutdown() {
	defaultPool.drain()
}

func (p *pool) drain() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, list := range idle {
		for _, s := range list {
			s.close()
		}
	}
}

// supervisor is the app's end of one long-lived supervisor process.
type supervisor struct {
	kind kind
	cmd  *exec.Cmd
	conn *net.UnixConn
	// sentEnv is the environment of the last request the supervisor received; a request
	// with the same one says so instead of sending it again (runRequest.SameEnv).
	sentEnv []string
}

// wire returns req as it is sent to s: without its environment when s has it already.
func (s *supervisor) wire(req runRequest) runRequest {
	if s.sentEnv != nil && req.Env != nil && slices.Equal(req.Env, s.sentEnv) {
		req.Env, req.SameEnv = nil, true
	}
	return req
}

// supervisorEnv is the environment a supervisor itself runs with: what it needs to find bash
// and setpriv, and the locale, without the app's other variables (each command brings its
// own environment), so that nothing the command may not see sits in the supervisor's.
func supervisorEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PATH" || name == "LANG" || name == "LANGUAGE" || strings.HasPrefix(name, "LC_") || name == noCapsInNamespaceEnv {
			env = append(env, kv)
		}
	}
	return HelperEnv(env)
}

// startSupervisor starts a supervisor of kind k and waits until it is ready for a command.
func startSupervisor(k kind) (*supervisor, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find this program's own binary to run the sandbox supervisor: %w", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("create the sandbox supervisor's socket: %w", err)
	}
	ours := os.NewFile(uintptr(fds[0]), "sandbox-supervisor")
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-supervisor")
	defer theirs.Close()
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		theirs.Close()
		return nil, fmt.Errorf("use the sandbox supervisor's socket: %w", err)
	}
	mode := serveMode
	switch k {
	case kindView:
		mode = serveViewMode
	case kindProject:
		mode = serveProjectMode
	}
	cmd := exec.Command(exe, HelperArg, mode)
	cmd.Env = supervisorEnv()
	cmd.ExtraFiles = []*os.File{theirs}
	// Its own diagnostics (none in normal operation) go to the app's standard error.
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// No controlling terminal, and a process group the app's terminal signals miss.
		Setsid: true,
		// If the app dies, the supervisor sweeps and ends; it also ends when its socket
		// reports the app's end closed, whichever comes first.
		Pdeathsig: syscall.SIGTERM,
	}
	if k.inView() {
		viewSysProcAttr(cmd.SysProcAttr)
	}
	if err := cmd.Start(); err != nil {
		c.Close()
		return nil, fmt.Errorf("start the sandbox supervisor: %w", err)
	}
	s := &supervisor{kind: k, cmd: cmd, conn: c.(*net.UnixConn)}
	var ready outcome
	if _, err := readFrame(s.conn, &ready); err != nil {
		s.close()
		return nil, fmt.Errorf("the sandbox supervisor ended while starting: %w", err)
	}
	if ready.SetupError != "" {
		s.close()
		return nil, &SetupError{Reason: ready.SetupError}
	}
	return s, nil
}

// alive reports whether the supervisor process has not ended. It looks without reaping
// (close reaps), so that nothing has to wait on an idle supervisor and no goroutine outlives
// the commands.
func (s *supervisor) alive() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, s.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err == nil && info.Signo == 0
}

// close ends the supervisor: with its socket closed it sweeps whatever runs and exits; it is
// killed if it has not within WaitDelay.
func (s *supervisor) close() {
	_ = s.conn.Close()
	done := make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(WaitDelay):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// run hands the command to the supervisor and waits for its status. sent reports whether
// the supervisor received the command.
func (s *supervisor) run(ctx context.Context, req runRequest, proxySocket string, o RunOptions) (status int, sent bool, err error) {
	stdout, stderr := o.Stdout, o.Stderr
	outR, outW, err := outputPipe()
	if err != nil {
		return 0, false, err
	}
	errR, errW, err := outputPipe()
	if err != nil {
		outR.Close()
		unix.Close(outW)
		return 0, false, err
	}
	fds := []int{outW, errW}
	if s.kind.inView() {
		// The supervisor binds the temp dir from this descriptor: its path may lie below a
		// secret the view hides (mountview.go).
		dirFd, err := unix.Open(req.TempDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			outR.Close()
			unix.Close(outW)
			errR.Close()
			unix.Close(errW)
			return 0, false, fmt.Errorf("open the sandbox temp dir: %w", err)
		}
		defer unix.Close(dirFd)
		fds = append(fds, dirFd)
	}
	if s.kind == kindProject && proxySocket != "" {
		// The supervisor connects through this descriptor (relay.go): the socket's path may
		// lie below a secret the view hides.
		// A proxy that is gone leaves the command without network, never with more; the
		// model is told why its connections fail.
		sockFd, err := unix.Open(proxySocket, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err == nil {
			defer unix.Close(sockFd)
			fds = append(fds, sockFd)
		} else if o.Notice != nil {
			o.Notice(fmt.Sprintf("The app's network proxy could not be reached (%v), so this command had no network.", err))
		}
	}
	w := s.wire(req)
	err = writeFrame(s.conn, message{Run: &w}, fds...)
	unix.Close(outW)
	unix.Close(errW)
	if err != nil {
		outR.Close()
		errR.Close()
		return 0, false, fmt.Errorf("hand the command to the sandbox supervisor: %w", err)
	}
	// A supervisor that failed to receive it all is closed, never asked again.
	s.sentEnv = req.Env
	var copying sync.WaitGroup
	copyOut := func(r *os.File, w io.Writer) {
		defer copying.Done()
		if w == nil {
			w = io.Discard
		}
		_, _ = io.Copy(w, r)
	}
	copying.Add(2)
	go copyOut(outR, stdout)
	go copyOut(errR, stderr)

	answer := make(chan outcome, 1)
	failed := make(chan error, 1)
	go func() {
		var o outcome
		if _, err := readFrame(s.conn, &o); err != nil {
			failed <- err
			return
		}
		answer <- o
	}()
	var out outcome
	select {
	case out = <-answer:
	case err = <-failed:
	case <-ctx.Done():
		// The supervisor kills the tree and then answers.
		if werr := writeFrame(s.conn, message{Stop: true}); werr != nil {
			err = werr
			break
		}
		select {
		case out = <-answer:
		case err = <-failed:
		case <-time.After(WaitDelay):
			err = errors.New("the sandbox supervisor did not stop the command in time")
		}
	}
	if err != nil {
		// The supervisor is gone or stuck: end it, which kills what it ran, and let the
		// output readers finish.
		_ = s.cmd.Process.Kill()
		outR.Close()
		errR.Close()
		copying.Wait()
		return 128 + int(syscall.SIGKILL), true, fmt.Errorf("the sandbox supervisor ended unexpectedly: %w", err)
	}
	// Every process of the command is gone, so the pipes normally close at once; a
	// descriptor passed outside the tree (only possible unrestricted) is cut off.
	held := waitTimeout(&copying, WaitDelay)
	if held {
		outR.Close()
		errR.Close()
		copying.Wait()
	} else {
		outR.Close()
		errR.Close()
	}
	if out.Ahead {
		startedAhead.Add(1)
	}
	if o.Notice != nil {
		for _, n := range out.Notes {
			o.Notice(n)
		}
	}
	switch {
	case out.SetupError != "":
		return ExitSetupFailed, true, &SetupError{Reason: out.SetupError}
	case ctx.Err() != nil:
		return out.Status, true, ctx.Err()
	case held:
		return out.Status, true, ErrOutputHeld
	}
	return out.Status, true, nil
}

// outputPipe makes a pipe for a command's output: the read end an *os.File the runtime's
// poller waits on, the write end a plain descriptor, blocking (as a program's output
// normally is), that goes to the supervisor and is closed here once sent. os.Pipe would
// register the write end with the poller too, and handing its descriptor over would make it
// blocking again: five system calls of each pipe for nothing, on every command's start.
func outputPipe() (*os.File, int, error) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return nil, -1, fmt.Errorf("create the output pipe: %w", err)
	}
	if err := unix.SetNonblock(p[0], true); err != nil {
		unix.Close(p[0])
		unix.Close(p[1])
		return nil, -1, fmt.Errorf("create the output pipe: %w", err)
	}
	return os.NewFile(uintptr(p[0]), "output"), p[1], nil
}

// startedAhead counts the commands this process ran that started from a thread restricted
// ahead; the tests read it to know that path was taken.
var startedAhead atomic.Int64

// waitTimeout waits for wg, and reports true when d passed first.
func waitTimeout(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return false
	case <-t.C:
		return true
	}
}
