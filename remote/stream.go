package remote

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Streams: a process of a remote conversation that talks over its standard input and output —
// an MCP stdio server, a language server — runs on the remote machine, and its streams are
// relayed by a session of its own over the host's master connection: an ssh run of the agent
// binary in the stream role (AgentArg streamRole), whose standard input and output are the
// process's. The app side is an ordinary local command (StreamCommand), so the MCP and
// language-server clients use it as they use a local server, unchanged. What to start comes as
// the first line of the input (StreamSpec, JSON), never as an argument: another user of the
// remote machine could read an argument (/proc/PID/cmdline), and the spec holds the server's
// configured variables, tokens among them.
//
// The remote process runs under the remote kernel's sandbox in the conversation's mode, in a
// temp dir of its own, as a tool call there does. Its whole process group dies when the
// stream ends: the app closed it (the local ssh ends), or the connection dropped (ssh on both
// sides sees the channel go). The stream role then gives the process streamGrace to exit on
// its own — closing its input is how MCP asks a server to stop — and kills its group.

// streamRole is the agent binary's second argument for the stream role.
const streamRole = "stream"

// StreamSpec is a process to start on the remote machine, its streams relayed.
type StreamSpec struct {
	// Command and Args are the program and its arguments, found on the remote PATH.
	Command string
	Args    []string
	// Env is set over the remote agent's environment without its credentials.
	Env map[string]string
	// Dir is the conversation's folder there, which the mode's policy opens; Cwd is where the
	// process runs (Dir when empty).
	Dir, Cwd string
	// Mode is the conversation's mode (domain.Mode); anything unknown is Restricted there.
	Mode string
}

// streamGrace is how long a remote process may take to exit after its input ended, before
// its group is killed.
const streamGrace = 2 * time.Second

// StreamCommand returns the local command that runs spec on the host, connecting first when
// needed (within ctx), and the first line to write to its input. Cancelling life ends the
// command; its process on the host is killed when the stream ends.
func (s *Session) StreamCommand(ctx, life context.Context, spec StreamSpec) (*exec.Cmd, []byte, error) {
	if spec.Command == "" {
		return nil, nil, errors.New("no command to start on " + s.opts.Destination)
	}
	c, err := s.client(ctx, nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("could not reach %s to start %s there: %w", s.opts.Destination, spec.Command, err)
	}
	hello, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	cmd := c.sshCmd(life, c.opts.Destination, "exec "+shellQuote(c.info.BinaryPath)+" "+AgentArg+" "+streamRole)
	return cmd, append(hello, '\n'), nil
}

// runStream is the stream role: it reads its spec from the first line of in, starts the
// process under the sandbox with the rest of in as its input and out, errw as its output, and
// returns its exit status once it ended — on its own, or killed after in ended.
func runStream(in io.Reader, out, errw io.Writer) int {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGPIPE, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	fail := func(format string, a ...any) int {
		fmt.Fprintf(errw, "phoenix-desktop on this machine: "+format+"\n", a...)
		return 1
	}
	br := bufio.NewReader(in)
	line, err := br.ReadBytes('\n')
	if err != nil {
		return fail("the stream ended before it said what to start")
	}
	var spec StreamSpec
	if err := json.Unmarshal(line, &spec); err != nil {
		return fail("could not read what to start: %v", err)
	}
	if spec.Command == "" || !filepath.IsAbs(spec.Dir) {
		return fail("a command and the project's absolute folder are needed (got %q in %q)", spec.Command, spec.Dir)
	}
	cwd := spec.Cwd
	if cwd == "" {
		cwd = spec.Dir
	}
	tmp, err := os.MkdirTemp("", "phoenix-remote-stream-")
	if err != nil {
		return fail("could not make a temp dir for %s: %v", spec.Command, err)
	}
	defer os.RemoveAll(tmp)
	ctx, kill := context.WithCancel(context.Background())
	defer kill()
	env := tools.Env{Cwd: spec.Dir, Mode: domain.Mode(spec.Mode), TempDir: tmp}
	argv := append([]string{spec.Command}, spec.Args...)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	cmd, err := sandbox.Command(ctx, tools.SandboxPolicy(env), "exec "+strings.Join(quoted, " "))
	if err != nil {
		return fail("could not start %s under the sandbox: %v", spec.Command, err)
	}
	cmd.Dir = cwd
	cmd.Env = sandbox.HelperEnv(tools.ChildEnv(os.Environ(), spec.Env))
	cmd.Stdout, cmd.Stderr = out, errw
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail("%v", err)
	}
	if err := cmd.Start(); err != nil {
		return fail("could not start %s: %v", spec.Command, err)
	}
	inputEnded := make(chan struct{})
	go func() {
		defer close(inputEnded)
		_, _ = io.Copy(stdin, br)
		_ = stdin.Close()
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-exited:
	case <-sigs:
		kill()
		werr = <-exited
	case <-inputEnded:
		t := time.NewTimer(streamGrace)
		select {
		case werr = <-exited:
		case <-t.C:
			kill()
			werr = <-exited
		case <-sigs:
			kill()
			werr = <-exited
		}
		t.Stop()
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		return ee.ExitCode()
	}
	if werr != nil {
		return 1
	}
	return 0
}
