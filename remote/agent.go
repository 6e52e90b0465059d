package remote

import (
	"context"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/proxy"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// AgentArg is the hidden first argument that starts this binary in the agent role. It is not
// a listed command: only Dial starts it, on the remote machine, over SSH.
const AgentArg = "__phoenix-remote-agent"

// RemoteTools are the tools whose calls run on the remote machine: those that touch the
// project's files or run its commands. The others (think, todo, fetch_url, …) touch neither
// and stay in the app.
var RemoteTools = append([]string{domain.ToolBash, domain.ToolPatch, domain.ToolKeywordSearch, domain.ToolReadImage},
	languageToolNames()...)

// languageToolNames are the language tools (lsp.go): answered by the servers there.
func languageToolNames() []string {
	var names []string
	for _, t := range domain.LanguageTools() {
		names = append(names, t.Name)
	}
	return names
}

// MaybeRunAgent runs the agent role and exits when this process was started as the agent;
// otherwise it returns at once. main calls it first thing, after the sandbox helper's check
// (the agent's commands re-execute this binary as the sandbox helper).
func MaybeRunAgent() {
	if len(os.Args) < 2 || os.Args[1] != AgentArg {
		return
	}
	// sshd sets SSH_CLIENT, and the agent starts with SHLVL 0 (the login shell's exec lowers
	// it): a bash that sees both takes itself for sshd's own shell, sources ~/.bashrc and
	// skips $BASH_ENV — where the sandbox's gate waits until the command's restrictions are
	// complete. Without these variables every bash the agent starts reads $BASH_ENV.
	for _, name := range []string{"SSH_CLIENT", "SSH2_CLIENT"} {
		_ = os.Unsetenv(name)
	}
	if len(os.Args) > 2 && os.Args[2] == streamRole {
		os.Exit(runStream(os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(runAgent(os.Stdin, os.Stdout))
}

// runAgent serves the app over in and out until the input ends or a signal says the session
// is over, then stops every command still running and removes the temp dirs.
func runAgent(in io.Reader, out io.Writer) int {
	// SIGPIPE: a write to standard output after the connection dropped would otherwise kill
	// the agent before it stopped its commands. SIGHUP, SIGTERM: the session ended.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGPIPE, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT)
	a := newAgent()
	// net/rpc's server, at the end of its input, waits for the calls in flight before it
	// returns — a command that never ends would keep it forever — so the end of the input is
	// watched here, where it cancels them.
	ended := make(chan struct{})
	served := make(chan struct{})
	go func() {
		defer close(served)
		a.serve(stream{&endReader{r: in, ended: ended}, out})
	}()
	select {
	case <-ended:
	case <-served:
	case <-sigs:
	}
	a.shutdown()
	return 0
}

// endReader closes ended when its reader fails: the app or the connection is gone.
type endReader struct {
	r     io.Reader
	ended chan struct{}
	once  sync.Once
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil {
		e.once.Do(func() { close(e.ended) })
	}
	return n, err
}

// stream joins the agent's standard input and output into the connection net/rpc serves.
type stream struct {
	io.Reader
	io.Writer
}

func (stream) Close() error { return nil }

// agent is the remote side's state: the calls running and each conversation's temp dir.
type agent struct {
	ctx    context.Context
	cancel context.CancelFunc
	reg    *tools.Registry

	mu       sync.Mutex
	closed   bool
	runs     map[string]context.CancelFunc
	tempDirs map[string]string
	wg       sync.WaitGroup
	// ckpts holds the conversations' shadow repositories here (checkpoints.go).
	ckpts checkpointAgent
	// lsps holds the conversations' language servers here (lsp.go).
	lsps languageSets
	// proxy is Project mode's network proxy here, started on first use (proxy.go); asks says
	// the app keeps a NextQuestion call waiting, so a new host can be asked about.
	proxy     *proxy.Server
	proxyDir  string
	asks      bool
	questions *questions
	// rules is the host's allowed hosts, shared by the proxy and Settings (project.go).
	rulesMu sync.Mutex
	rules   *proxy.Rules
}

func newAgent() *agent {
	ctx, cancel := context.WithCancel(context.Background())
	return &agent{ctx: ctx, cancel: cancel, reg: tools.NewRegistry(),
		runs: map[string]context.CancelFunc{}, tempDirs: map[string]string{}, questions: newQuestions(ctx)}
}

// serve answers calls on conn until it ends.
func (a *agent) serve(conn io.ReadWriteCloser) {
	srv := rpc.NewServer()
	if err := srv.RegisterName(agentService, &Agent{a: a}); err != nil {
		panic(err) // the service's method set is fixed; this fails only on a bug here
	}
	a.ckpts.a = a
	if err := srv.RegisterName(checkpointService, &Checkpoints{c: &a.ckpts}); err != nil {
		panic(err)
	}
	if err := srv.RegisterName(proxyService, &Proxy{q: a.questions}); err != nil {
		panic(err)
	}
	if err := srv.RegisterName(languageService, &Languages{a: a}); err != nil {
		panic(err)
	}
	if err := srv.RegisterName(projectService, &Project{a: a}); err != nil {
		panic(err)
	}
	if err := srv.RegisterName(hooksService, &Hooks{a: a}); err != nil {
		panic(err)
	}
	srv.ServeConn(conn)
}

// shutdown cancels every running call — each tool kills its command's process group on
// cancel — waits until they have returned, and removes the temp dirs.
func (a *agent) shutdown() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	a.closeProxy()
	a.wg.Wait()
	a.ckpts.closeAll()
	a.lsps.closeAll()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, d := range a.tempDirs {
		_ = os.RemoveAll(d)
	}
}

// start registers a call, or refuses it once the agent is shutting down.
func (a *agent) start(id string) (context.Context, func(), error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return nil, nil, fmt.Errorf("the remote agent is shutting down")
	}
	if _, dup := a.runs[id]; dup {
		return nil, nil, fmt.Errorf("a call %q is already running on the remote side", id)
	}
	ctx, cancel := context.WithCancel(a.ctx)
	a.runs[id] = cancel
	a.wg.Add(1)
	return ctx, func() {
		a.mu.Lock()
		delete(a.runs, id)
		a.mu.Unlock()
		cancel()
		a.wg.Done()
	}, nil
}

// tempDir is the conversation's private temp dir on this machine, made on first use: the
// only writable place of a Restricted command.
func (a *agent) tempDir(conv string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if d, ok := a.tempDirs[conv]; ok {
		return d, nil
	}
	d, err := os.MkdirTemp("", "phoenix-remote-")
	if err != nil {
		return "", err
	}
	a.tempDirs[conv] = d
	return d, nil
}

// Agent is the net/rpc service the app calls (wire.go). Its methods run each in their own
// goroutine, so a Cancel is answered while the Run it stops is still running.
type Agent struct{ a *agent }

// Hello reports the agent's version and the remote kernel's sandbox layers.
func (s *Agent) Hello(args HelloArgs, reply *HelloReply) error {
	if args.Version != assets.Version {
		return fmt.Errorf("the remote agent is version %s, the app %s", assets.Version, args.Version)
	}
	s.a.mu.Lock()
	s.a.asks = args.Asks
	s.a.mu.Unlock()
	*reply = HelloReply{Version: assets.Version, PID: os.Getpid(), Layers: sandbox.Describe()}
	return nil
}

// Run runs one tool call here, in the conversation's mode, and answers its whole output.
func (s *Agent) Run(args RunArgs, reply *RunReply) error {
	if !slices.Contains(RemoteTools, args.Tool) {
		return fmt.Errorf("the tool %s does not run on the remote side", args.Tool)
	}
	ctx, done, err := s.a.start(args.ID)
	if err != nil {
		return err
	}
	defer done()
	tmp, err := s.a.tempDir(args.Conversation)
	if err != nil {
		return fmt.Errorf("could not make the conversation's temp dir on the remote machine: %w", err)
	}
	env := tools.Env{Cwd: args.Cwd, Mode: domain.Mode(args.Mode), TempDir: tmp, ImageLimits: args.ImageLimits}
	var proxyErr error
	if env.Mode == domain.ModeProject && args.Tool == domain.ToolBash {
		// Without its proxy a Project-mode command still runs, with no network at all.
		sock, perr := s.a.proxySocket(args.Cwd, args.Conversation)
		if perr != nil {
			proxyErr = perr
		}
		env.ProxySocket = sock
	}
	call := domain.ToolCall{ID: args.ID, Name: args.Tool, Arguments: args.Arguments}
	var set *lsp.Set
	if isLanguageCall(args.Tool) {
		set = s.a.lsps.set(args.Conversation, args.LanguageServers)
	}
	reply.Output = runWithLanguageServers(ctx, set, s.a.reg, env, call)
	if env.ProxySocket != "" {
		reply.Output.Content = tools.WithRefusals(reply.Output.Content, s.a.refusals(args.Conversation))
	}
	if proxyErr != nil {
		reply.Output.Content += "\n[The network proxy could not start on the remote machine, so this command ran without network: " + proxyErr.Error() + "]"
	}
	return nil
}

// Ping answers at once: one round trip over the connection, for measurements.
func (s *Agent) Ping(_ Empty, _ *Empty) error { return nil }

// Cancel stops a running call; a call that already ended is no error (Stop raced its end).
func (s *Agent) Cancel(args CancelArgs, _ *Empty) error {
	s.a.mu.Lock()
	cancel := s.a.runs[args.ID]
	s.a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}
