package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// ErrUnreachable is why a URL server is not used by a Restricted conversation: its sandbox
// has no network, and a server the app reached for it would be a way around that.
// Project mode counts as Restricted here: the app, not a sandboxed command, would make that
// connection, outside the proxy that holds the person's allowed hosts.
var ErrUnreachable = errors.New("not reachable in Restricted mode (no network) or Project mode (network only through the proxy): approve Unrestricted mode (request_mode_upgrade) to use it")

// Progress is one progress notification of a running call.
type Progress struct {
	Progress, Total float64
	Message         string
}

// launch is what a server needs to start: where, under which policy.
type launch struct {
	cwd        string
	tempDir    string
	restricted bool
	// policy is the sandbox policy of the conversation's mode (tools.SandboxPolicy), the one
	// mapping bash uses too.
	policy sandbox.Policy
	// elsewhere, when set, starts the server on another machine (Set.StartElsewhere).
	elsewhere Starter
	mode      domain.Mode
}

// server is one running server: its session and, for a stdio server, the supervised process
// tree that kill ends.
type server struct {
	name       string
	cfg        ServerConfig
	restricted bool
	session    *sdk.ClientSession
	stderr     *tailBuffer
	// kill ends a stdio server's whole process tree at once (the sandbox supervisor SIGKILLs
	// everything below it); nil for a URL server.
	kill context.CancelFunc
	// cmd is the supervisor process of a stdio server, for its exit status.
	cmd *exec.Cmd
	// stdoutDone is closed when the copier of a stdio server's stdout has ended.
	stdoutDone chan struct{}
	stdio      *stdioTransport
	// instructions is what the server said about using it, for the system prompt.
	instructions string
	// life bounds an SSE server's event stream, which lasts until close (endLife).
	life    context.Context
	endLife context.CancelFunc
	// auth is a URL server's OAuth handler (oauth.go), nil otherwise.
	auth *storedAuth
	// exited is closed when the session has ended (the server exited or was closed).
	exited chan struct{}
	// where is the machine a stdio server started elsewhere runs on (elsewhere.go).
	where string
	// listChanged is set by the server's tools/list_changed notification; the next request's
	// tool list asks again.
	listChanged atomic.Bool
	// listChangedSignal receives a value (without blocking) at each such notification, for
	// whoever waits for one: the tests, since the SDK's server sends it a little later.
	listChangedSignal chan struct{}
	closeOnce         sync.Once

	mu       sync.Mutex
	progress map[string]func(Progress) // by progress token, while a call runs
	calls    atomic.Int64
}

const clientName = "phoenix-desktop"

// startServer starts (stdio) or connects to (URL) one server and completes the MCP
// handshake, within ctx. When the handshake fails, the dead server is returned with the error,
// for what it wrote on stderr.
func startServer(ctx context.Context, name string, cfg ServerConfig, l launch, httpClient *http.Client, elicit ElicitFunc, oauth *storedAuth) (*server, error) {
	if cfg.IsURL() && l.restricted {
		return nil, ErrUnreachable
	}
	s := &server{name: name, cfg: cfg, restricted: l.restricted, stderr: newTailBuffer(stderrKeep),
		exited: make(chan struct{}), progress: map[string]func(Progress){}, listChangedSignal: make(chan struct{}, 1)}
	client := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1"}, &sdk.ClientOptions{
		// Elicitation only: roots, sampling and logging are deprecated by the 2026-07-28
		// revision, and the app offers none of them.
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return elicitFor(ctx, name, elicit, req)
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			s.listChanged.Store(true)
			select {
			case s.listChangedSignal <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: s.onProgress,
	})
	var transport sdk.Transport
	switch {
	case cfg.IsSSE():
		s.life, s.endLife = context.WithCancel(context.Background())
		transport = lifetimeTransport{&sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: withHeaders(httpClient, cfg.Headers)}, s.life}
	case cfg.IsURL():
		s.auth = oauth
		transport = &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: withSessionMeta(withHeaders(httpClient, cfg.Headers)), OAuthHandler: oauth}
	default:
		t, err := s.startStdio(ctx, l)
		if err != nil {
			return nil, err
		}
		transport = t
	}
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		s.killTree()
		s.waitStdout()
		if s.auth.failed() {
			return s, s.auth.failure(name, cfg)
		}
		// The server comes back with the error for its stderr, which says why.
		return s, s.describe(fmt.Errorf("start MCP server %s: %w", name, err))
	}
	s.session = session
	if init := session.InitializeResult(); init != nil {
		s.instructions = init.Instructions
	}
	go func() {
		_ = session.Wait()
		close(s.exited)
	}()
	return s, nil
}

// startStdio is the one place a server's process is started: through the sandbox's
// supervisor, under the conversation's policy, exactly like a bash command (`exec` replaces
// bash with the server, so the server is bash's process, inside the sandbox and its process
// group). Its stdin and stdout are the MCP connection. It runs in the configured cwd, else
// the conversation's directory.
func (s *server) startStdio(ctx context.Context, l launch) (sdk.Transport, error) {
	procCtx, kill := context.WithCancel(context.Background())
	if l.elsewhere != nil {
		t, err := s.startElsewhere(ctx, procCtx, kill, l)
		if err != nil {
			return nil, err
		}
		return t, nil
	}
	argv := append([]string{s.cfg.Command}, s.cfg.Args...)
	cmd, err := sandbox.Command(procCtx, l.policy, "exec "+shellQuote(argv))
	if err != nil {
		kill()
		return nil, fmt.Errorf("start MCP server %s: %w", s.name, err)
	}
	cmd.Dir = l.cwd
	if s.cfg.Cwd != "" {
		cmd.Dir = s.cfg.Cwd
	}
	cmd.Env = sandbox.HelperEnv(serverEnv(os.Environ(), s.cfg.Env, l.restricted))
	cmd.Stderr = s.stderr
	s.kill, s.cmd = kill, cmd
	s.stdoutDone = make(chan struct{})
	s.stdio = &stdioTransport{cmd: cmd, kill: kill, log: s.stderr, done: s.stdoutDone}
	return s.stdio, nil
}

// waitStdout waits until the stdio server's stdout has been read to its end (its tree is
// dead by then), so that no goroutine of it outlives the server.
func (s *server) waitStdout() {
	if s.stdoutDone != nil && s.cmd != nil && s.cmd.Process != nil {
		<-s.stdoutDone
	}
}

// offlineEnv tells the package runners that fetch a server before starting it (npx, uvx) to
// use only what they already have, in a Restricted sandbox that has no network: without it
// npx retries the registry for a minute before it gives up; with it, it fails at once and
// says why (ENOTCACHED).
var offlineEnv = map[string]string{"npm_config_offline": "true", "UV_OFFLINE": "1"}

// serverEnv is the app's environment without its credentials (as for bash), plus the
// server's own variables from the configuration, which the person put there for it, and in
// Restricted mode offlineEnv where the configuration does not say otherwise.
func serverEnv(base []string, configured map[string]string, restricted bool) []string {
	return tools.ChildEnv(base, ownEnv(configured, restricted))
}

// ownEnv is the server's own variables: the configured ones, and in Restricted mode
// offlineEnv where the configuration does not say otherwise.
func ownEnv(configured map[string]string, restricted bool) map[string]string {
	own := maps.Clone(configured)
	if restricted {
		for k, v := range offlineEnv {
			if _, set := own[k]; !set {
				if own == nil {
					own = map[string]string{}
				}
				own[k] = v
			}
		}
	}
	return own
}

func (s *server) onProgress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	if req == nil || req.Params == nil {
		return
	}
	s.mu.Lock()
	fn := s.progress[fmt.Sprint(req.Params.ProgressToken)]
	s.mu.Unlock()
	if fn != nil {
		fn(Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}

// listTools asks for every page of the server's tools.
func (s *server) listTools(ctx context.Context) ([]*sdk.Tool, error) {
	s.listChanged.Store(false)
	var all []*sdk.Tool
	params := &sdk.ListToolsParams{}
	for range 100 {
		res, err := s.session.ListTools(ctx, params)
		if err != nil {
			return nil, s.describe(fmt.Errorf("list the tools of MCP server %s: %w", s.name, err))
		}
		all = append(all, res.Tools...)
		if res.NextCursor == "" {
			return all, nil
		}
		params = &sdk.ListToolsParams{Cursor: res.NextCursor}
	}
	return nil, fmt.Errorf("MCP server %s lists more than 100 pages of tools", s.name)
}

// call runs one tool, reporting its progress notifications to onProgress.
func (s *server) call(ctx context.Context, tool string, args json.RawMessage, onProgress func(Progress)) (*sdk.CallToolResult, error) {
	params := &sdk.CallToolParams{Name: tool, Arguments: args}
	if onProgress != nil {
		token := fmt.Sprintf("phoenix-%d", s.calls.Add(1))
		params.SetProgressToken(token)
		s.mu.Lock()
		s.progress[token] = onProgress
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.progress, token)
			s.mu.Unlock()
		}()
	}
	return s.session.CallTool(ctx, params)
}

// alive reports whether the session still runs.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// killTree ends a stdio server's process tree at once; it does not wait.
func (s *server) killTree() {
	if s.kill != nil {
		s.kill()
	}
}

// close ends the server: the process tree is killed first (a server that ignores its closed
// stdin must not linger), then the session is closed, which reaps the supervisor. A URL
// server's session is closed in the background: its goodbye is an HTTP request, and an
// unresponsive server must not hold up the conversation that stops.
func (s *server) close() {
	s.closeOnce.Do(func() {
		s.killTree()
		if s.endLife != nil {
			defer s.endLife()
		}
		switch {
		case s.session != nil && s.cfg.IsURL():
			go s.session.Close()
		case s.session != nil:
			_ = s.session.Close()
		case s.stdio != nil && s.cmd.Process != nil:
			_ = s.stdio.wait()
		}
		s.waitStdout()
	})
}

// describe adds what the server wrote on stderr and how it exited to an error, so that a
// server that cannot start says why.
func (s *server) describe(err error) error {
	var parts []string
	if s.cmd != nil {
		if note := exitNote(s.cmd.Process); note != "" {
			parts = append(parts, "it exited with "+note)
		}
	}
	if s.where != "" {
		// Its streams cross an SSH connection: a drop ends the server as surely as a crash.
		parts = append(parts, "it ran on "+s.where+" over SSH, so a lost connection to "+s.where+" ends it too")
	}
	if tail := strings.TrimSpace(s.stderr.String()); tail != "" {
		parts = append(parts, "its stderr ends with:\n"+lastLines(tail, 10))
	}
	if len(parts) == 0 {
		return err
	}
	return fmt.Errorf("%w; %s", err, strings.Join(parts, "; "))
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lifetimeTransport connects within ctx (the start's timeout) but keeps the connection, whose
// event stream the SSE transport opens with the context it connects with, for life.
type lifetimeTransport struct {
	sdk.Transport
	life context.Context
}

func (t lifetimeTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	connCtx, cancel := context.WithCancel(t.life)
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.Transport.Connect(connCtx)
	if !stop() && err == nil { // the start ended while it connected
		conn.Close()
		err = ctx.Err()
	}
	if err != nil {
		cancel()
	}
	return conn, err
}

// withHeaders returns an HTTP client that adds the configured headers to every request.
func withHeaders(base *http.Client, headers map[string]string) *http.Client {
	if base == nil {
		base = http.DefaultClient
	}
	if len(headers) == 0 {
		return base
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	c.Transport = headerTransport{base: rt, headers: headers}
	return &c
}

type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// stderrKeep is how much of a server's stderr is kept, for Settings and error messages.
const stderrKeep = 16 * 1024

// tailBuffer keeps the last bytes written to it. os/exec's copier writes; Settings reads.
type tailBuffer struct {
	mu   sync.Mutex
	keep int
	buf  []byte
}

func newTailBuffer(keep int) *tailBuffer { return &tailBuffer{keep: keep} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.keep; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.ToValidUTF8(string(b.buf), "\uFFFD")
}
