package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// client is one running server: its process (a sandbox supervisor running it), the
// JSON-RPC connection on its stdin and stdout, the documents it has open and the diagnostics
// it published.
type client struct {
	spec   Spec
	root   string
	cmd    *exec.Cmd
	kill   context.CancelFunc
	conn   *jsonrpc2.Conn
	stderr *tail
	// utf8 says the server counts a position's character in bytes (it chose UTF-8 from the
	// encodings offered); otherwise in UTF-16 code units, the protocol's default.
	utf8 bool
	// pull says the server answers textDocument/diagnostic.
	pull bool
	// exited is closed when the process has been reaped; exitErr is then its status.
	exited  chan struct{}
	exitErr error
	// watching is closed when the goroutine of onExit has returned.
	watching chan struct{}

	mu    sync.Mutex
	docs  map[string]*document  // by URI
	diags map[string]*published // by URI
	// published is closed and replaced on every publishDiagnostics, to wake the waiters.
	published chan struct{}
	// warm says the server has answered an edit's check or a question once.
	warm bool
	// anyPublished says the server has published diagnostics at least once.
	anyPublished bool
}

type document struct {
	version int
	text    string
}

type published struct {
	version *int
	seq     uint64
	list    []Diagnostic
}

// pipes joins the server's stdout and stdin into the stream jsonrpc2 reads and writes.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error {
	err := p.WriteCloser.Close()
	if rerr := p.ReadCloser.Close(); err == nil {
		err = rerr
	}
	return err
}

// start starts spec's server for the tree root under env's sandbox policy and initializes
// it; ctx bounds the initialization only. On failure nothing of it is left running.
func start(ctx context.Context, spec Spec, program string, env tools.Env) (*client, error) {
	procCtx, kill := context.WithCancel(context.Background())
	argv := append([]string{program}, spec.Args...)
	cmd, err := sandbox.Command(procCtx, tools.SandboxPolicy(env), "exec "+shellQuote(argv))
	if err != nil {
		kill()
		var setup *sandbox.SetupError
		if errors.As(err, &setup) {
			return nil, fmt.Errorf("the sandbox could not start it: %s", setup.Reason)
		}
		return nil, fmt.Errorf("the sandbox could not start it: %w", err)
	}
	c := &client{spec: spec, root: env.Cwd, cmd: cmd, kill: kill, stderr: &tail{max: 2048},
		exited: make(chan struct{}), docs: map[string]*document{}, diags: map[string]*published{},
		published: make(chan struct{})}
	cmd.Dir = env.Cwd
	cmd.Env = sandbox.HelperEnv(serverEnv(os.Environ(), spec.Env, env))
	cmd.Stderr = c.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		kill()
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		kill()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		kill()
		return nil, fmt.Errorf("it could not be run: %w", err)
	}
	go func() {
		c.exitErr = cmd.Wait()
		close(c.exited)
	}()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(pipes{stdout, stdin}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(c.handle), jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	if err := c.initialize(ctx); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *client) initialize(ctx context.Context) error {
	rootURI := fileURI(c.root)
	params := map[string]any{
		// No process id: in the sandbox's own process namespace the app's id means nothing,
		// and a server that watches it would exit at once. The app kills the server itself.
		"processId":        nil,
		"clientInfo":       map[string]string{"name": "phoenix-desktop"},
		"rootUri":          rootURI,
		"rootPath":         c.root,
		"workspaceFolders": []workspaceFolder{{URI: rootURI, Name: filepath.Base(c.root)}},
		"capabilities": map[string]any{
			"general": map[string]any{"positionEncodings": []string{"utf-8", "utf-16"}},
			"textDocument": map[string]any{
				"synchronization":    map[string]any{"didSave": true},
				"publishDiagnostics": map[string]any{"versionSupport": true},
				"hover":              map[string]any{"contentFormat": []string{"plaintext", "markdown"}},
				"definition":         map[string]any{"linkSupport": true},
				"references":         map[string]any{},
				"documentSymbol":     map[string]any{"hierarchicalDocumentSymbolSupport": true},
			},
			"workspace": map[string]any{"configuration": true, "workspaceFolders": true, "symbol": map[string]any{}},
			"window":    map[string]any{"workDoneProgress": false},
		},
	}
	if len(c.spec.InitOptions) > 0 {
		params["initializationOptions"] = c.spec.InitOptions
	}
	var res initializeResult
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return err
	}
	c.utf8 = res.Capabilities.PositionEncoding == "utf-8"
	p := bytes.TrimSpace(res.Capabilities.DiagnosticProvider)
	c.pull = len(p) > 0 && !bytes.Equal(p, []byte("null")) && !bytes.Equal(p, []byte("false"))
	return c.conn.Notify(ctx, "initialized", struct{}{})
}

// call makes one request and turns every way it can fail into the person's words: the
// server died, did not answer in time, or answered with an error.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	err := c.conn.Call(ctx, method, params, result)
	if err == nil {
		return nil
	}
	var rpcErr *jsonrpc2.Error
	switch {
	case errors.As(err, &rpcErr):
		return &answerError{method: method, msg: rpcErr.Message}
	case ctx.Err() != nil && c.alive():
		return fmt.Errorf("it did not answer %s in time", method)
	}
	return c.deadErr()
}

// answerError is a server's error answer to one request: the server itself is fine.
type answerError struct{ method, msg string }

func (e *answerError) Error() string {
	return fmt.Sprintf("it answered %s with an error: %s", e.method, e.msg)
}

func (c *client) alive() bool {
	select {
	case <-c.exited:
		return false
	case <-c.conn.DisconnectNotify():
		return false
	default:
		return true
	}
}

// lastWordsWait bounds how long deadErr waits for a server whose connection ended to exit.
const lastWordsWait = 500 * time.Millisecond

// deadErr says that the server is gone and, from its stderr, why.
func (c *client) deadErr() error {
	msg := "it stopped"
	// The connection usually ends a moment before the process does, and its stderr (the
	// reason) is complete only once Wait has returned: wait for that, briefly, since a
	// server that closed its output but lives on must not hold up the turn.
	select {
	case <-c.exited:
		if c.exitErr != nil {
			msg = "it stopped (" + c.exitErr.Error() + ")"
		}
	case <-time.After(lastWordsWait):
	}
	if t := c.stderr.String(); t != "" {
		msg += "; its last words: " + t
	}
	return errors.New(msg)
}

// handle answers the server's requests (configuration, capability registration, progress
// tokens: all accepted with nothing) and keeps the diagnostics it publishes. It runs on the
// connection's reader, so publications arrive in order; it never blocks.
func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	switch req.Method {
	case "textDocument/publishDiagnostics":
		var p publishDiagnosticsParams
		if req.Params != nil && json.Unmarshal(*req.Params, &p) == nil {
			c.mu.Lock()
			prev := c.diags[p.URI]
			seq := uint64(1)
			if prev != nil {
				seq = prev.seq + 1
			}
			c.diags[p.URI] = &published{version: p.Version, seq: seq, list: p.Diagnostics}
			c.anyPublished = true
			close(c.published)
			c.published = make(chan struct{})
			c.mu.Unlock()
		}
		return nil, nil
	case "workspace/configuration":
		var p struct {
			Items []json.RawMessage `json:"items"`
		}
		if req.Params != nil {
			_ = json.Unmarshal(*req.Params, &p)
		}
		// An empty object for each section asked: the server's defaults (some servers
		// stop on a null where they expect settings).
		out := make([]any, len(p.Items))
		for i := range out {
			out[i] = struct{}{}
		}
		return out, nil
	case "workspace/applyEdit":
		return map[string]any{"applied": false, "failureReason": "Phoenix Desktop's language client does not apply edits"}, nil
	case "client/registerCapability", "client/unregisterCapability", "window/workDoneProgress/create",
		"window/showMessageRequest", "window/showDocument", "workspace/workspaceFolders":
		return nil, nil
	}
	if req.Notif {
		return nil, nil
	}
	return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "not supported by Phoenix Desktop: " + req.Method}
}

// sync makes the server see text as the content of path (opening it, or a full change),
// and returns the document's version and the diagnostics sequence number before the change.
func (c *client) sync(ctx context.Context, path, text string) (version int, seqBefore uint64, err error) {
	uri := fileURI(path)
	c.mu.Lock()
	doc := c.docs[uri]
	if p := c.diags[uri]; p != nil {
		seqBefore = p.seq
	}
	if doc != nil && doc.text == text {
		v := doc.version
		c.mu.Unlock()
		return v, seqBefore, nil
	}
	if doc == nil {
		doc = &document{}
		c.docs[uri] = doc
	}
	opened := doc.version > 0
	doc.version++
	doc.text = text
	version = doc.version
	c.mu.Unlock()
	if !opened {
		err = c.conn.Notify(ctx, "textDocument/didOpen", didOpenParams{TextDocument: textDocumentItem{
			URI: uri, LanguageID: c.spec.languageOf(path), Version: version, Text: text}})
	} else {
		err = c.conn.Notify(ctx, "textDocument/didChange", didChangeParams{
			TextDocument:   versionedTextDocumentIdentifier{URI: uri, Version: version},
			ContentChanges: []contentChange{{Text: text}}})
		if err == nil {
			// The file is on disk as the server now sees it: servers that check on save
			// (a build-based check) start now.
			err = c.conn.Notify(ctx, "textDocument/didSave", didSaveParams{TextDocument: textDocumentIdentifier{URI: uri}})
		}
	}
	if err != nil {
		return 0, 0, c.deadErr()
	}
	return version, seqBefore, nil
}

// diagnostics returns the server's diagnostics of path at version: by asking (pull
// diagnostics) where the server offers it, else by waiting for the publication that follows
// the change (newer than seqBefore, of this version where the server says which). ok is
// false when none came before ctx ended.
func (c *client) diagnostics(ctx context.Context, path string, version int, seqBefore uint64) ([]Diagnostic, bool, error) {
	uri := fileURI(path)
	if c.pull {
		var rep struct {
			Kind  string       `json:"kind"`
			Items []Diagnostic `json:"items"`
		}
		err := c.call(ctx, "textDocument/diagnostic", map[string]any{"textDocument": textDocumentIdentifier{URI: uri}}, &rep)
		if err == nil && rep.Kind != "unchanged" {
			return rep.Items, true, nil
		}
		var ans *answerError
		if err != nil && !errors.As(err, &ans) {
			return nil, false, err
		}
		// An error answer or "unchanged": fall back to what was published.
	}
	var quiet <-chan time.Time
	var got []Diagnostic
	for {
		c.mu.Lock()
		p, wake := c.diags[uri], c.published
		c.mu.Unlock()
		if p != nil && p.seq > seqBefore && (p.version == nil || *p.version >= version) {
			if p.version != nil {
				return p.list, true, nil
			}
			// Without a version, a publication may still be of the text before the change,
			// or a first part (syntax before types): the last one before a short quiet
			// spell is the answer.
			got, seqBefore = p.list, p.seq
			quiet = time.After(unversionedQuiet)
		}
		select {
		case <-wake:
		case <-quiet:
			return got, true, nil
		case <-ctx.Done():
			if quiet != nil {
				return got, true, nil
			}
			return nil, false, nil
		case <-c.exited:
			return nil, false, c.deadErr()
		case <-c.conn.DisconnectNotify():
			return nil, false, c.deadErr()
		}
	}
}

func (c *client) warmed() {
	c.mu.Lock()
	c.warm = true
	c.mu.Unlock()
}

// unversionedQuiet is how long a server that does not say which version its diagnostics
// are of must stay quiet before its last publication counts as the answer.
const unversionedQuiet = 500 * time.Millisecond

// version is the document version the server's last publication about path was of, 0 when
// it did not say.
func (c *client) version(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.diags[fileURI(path)]; p != nil && p.version != nil {
		return *p.version
	}
	return 0
}

// docVersion is the version of path the server has open, 0 when it is not open.
func (c *client) docVersion(path string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.docs[fileURI(path)]; d != nil {
		return d.version
	}
	return 0
}

// current is what the server last published for path, if anything.
func (c *client) current(path string) ([]Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.diags[fileURI(path)]
	if p == nil {
		return nil, false
	}
	return p.list, true
}

// text is the text the server has for uri, if it has the document open.
func (c *client) text(uri string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.docs[uri]; d != nil {
		return d.text, true
	}
	return "", false
}

// onExit calls f once when the server's process ends or its connection breaks.
func (c *client) onExit(f func()) {
	c.watching = make(chan struct{})
	go func() {
		defer close(c.watching)
		select {
		case <-c.exited:
		case <-c.conn.DisconnectNotify():
		}
		f()
	}()
}

// close asks nothing of the server: it kills the process tree (the supervisor sweeps it) and
// waits until it is reaped, so that no process of it outlives the call.
func (c *client) close() {
	c.kill()
	_ = c.conn.Close()
	<-c.exited
	if c.watching != nil {
		<-c.watching
	}
}

// pid is the server's supervisor's process id (its tree dies with it).
func (c *client) pid() int {
	if c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// serverEnv is the app's environment without its credentials, as bash gets it, plus the
// server's own configured variables; in a sandboxed mode the caches a server writes (gopls's,
// Go's build cache) lie in the conversation's temp dir, where the sandbox lets it write (the
// supervisor points Go's caches at their copy-on-write overlays where it can mount them).
func serverEnv(base []string, own map[string]string, env tools.Env) []string {
	set := maps.Clone(own)
	if set == nil {
		set = map[string]string{}
	}
	if env.TempDir != "" && env.Mode != domain.ModeUnrestricted {
		cache := filepath.Join(env.TempDir, ".cache")
		for k, v := range map[string]string{"XDG_CACHE_HOME": cache, "GOCACHE": filepath.Join(cache, "go-build")} {
			if _, ok := set[k]; !ok {
				set[k] = v
			}
		}
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || tools.IsSecret(name) {
			continue
		}
		if _, replaced := set[name]; replaced {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// tail keeps the last max bytes written to it: a server's stderr, for the reason it died.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if i := strings.LastIndexByte(s, '\n'); len(s) > 300 && i >= 0 {
		s = s[i+1:]
	}
	if r := []rune(s); len(r) > 300 {
		s = "…" + string(r[len(r)-299:])
	}
	return s
}

// shellQuote quotes argv for bash -c.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
