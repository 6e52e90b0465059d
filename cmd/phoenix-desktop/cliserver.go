package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/clisock"
)

// The CLI beside the app (issue 28): while the app holds a data directory, the headless
// commands that use it connect to the app's socket (package clisock) and the app runs the
// very command function main dispatches to, on its own session, with the client's
// arguments, working directory, standard streams and signals; the client prints what comes
// back and exits with the command's code. So what a client does is live in the window (a
// chat streams into the open conversation), and every command has one implementation.

// servedCommands are the commands that open the data directory, and so run inside the app
// while it runs. The others (doctor, bench, commands, hooks, mcp list, version, help) never
// take the directory's lock and run on their own as before.
var servedCommands = []string{"chat", "list", "show", "export", "search", "delete", "checkpoints", "rewind", "changes", "revert", "queue", "fork", "spent", "merge", "worktree"}

func isServed(cmd string) bool { return slices.Contains(servedCommands, cmd) }

// helloTimeout bounds how long a connection may take to say what to run: a peer that
// connects and says nothing does not keep a goroutine forever.
const helloTimeout = 10 * time.Second

// drainTimeout bounds how long closing the server waits for the commands it runs to end
// (a chat whose client is gone stops its turn first, which takes moments).
const drainTimeout = 10 * time.Second

// cliServer runs the clients' commands in the app.
type cliServer struct {
	ln   *net.UnixListener
	path string
	app  *session
	demo func() bool
	log  *slog.Logger
	uid  int // the uid a client must run as: the app's

	mu     sync.Mutex
	conns  map[*clisock.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// serveCLI listens on the data directory's socket and runs clients' commands on app.
// demo reports whether the app's model is the offline demo (chat --demo is accepted then).
// The caller holds the data directory (app's store is open), so a socket already there is
// stale and is replaced.
func serveCLI(app *session, demo func() bool, log *slog.Logger) (*cliServer, error) {
	return serveCLIFor(app, demo, log, os.Getuid())
}

// serveCLIFor is serveCLI accepting clients of uid (a test refuses its own).
func serveCLIFor(app *session, demo func() bool, log *slog.Logger, uid int) (*cliServer, error) {
	path, err := clisock.Path(app.store.Dir())
	if err != nil {
		return nil, err
	}
	ln, err := clisock.Listen(path)
	if err != nil {
		return nil, fmt.Errorf("listen for commands on %s: %w", path, err)
	}
	// Close removes the socket itself, after the connections are closed.
	ln.SetUnlinkOnClose(false)
	lent := *app
	lent.borrowed = true
	lent.model = nil // the app swaps its model under its own lock; commands use the runtime
	s := &cliServer{ln: ln, path: path, app: &lent, demo: demo, log: log, uid: uid, conns: map[*clisock.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

func (s *cliServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.log.Error("the command socket stopped accepting; commands run on their own until the app restarts", "err", err)
			}
			return
		}
		conn := clisock.NewConn(c)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer s.forget(conn)
			s.handle(conn, c)
		}()
	}
}

func (s *cliServer) forget(c *clisock.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	c.Close()
}

// Close stops accepting, closes every client's connection (each client says the app quit;
// a chat stops its turn as when its terminal closes), waits a bounded time for the
// commands to end, and removes the socket. Call it before the session closes.
func (s *cliServer) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(drainTimeout):
		s.log.Warn("commands of the command line were still running when the app closed")
	}
	if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		s.log.Warn("the command socket could not be removed; the next command removes it", "err", err)
	}
}

// handle runs one client's command.
func (s *cliServer) handle(conn *clisock.Conn, raw *net.UnixConn) {
	stderr := clisock.Writer{C: conn, Kind: clisock.Stderr}
	refuse := func(code int, err error) {
		fmt.Fprintln(stderr, "phoenix-desktop:", err)
		_ = conn.WriteInt(clisock.Exit, code)
	}
	if err := clisock.CheckPeer(raw, s.uid); err != nil {
		s.log.Warn("a command connection was refused", "err", err)
		refuse(1, err)
		return
	}
	_ = raw.SetReadDeadline(time.Now().Add(helloTimeout))
	kind, p, err := conn.Read()
	if err != nil {
		return
	}
	_ = raw.SetReadDeadline(time.Time{})
	var req clisock.Request
	if kind != clisock.Hello || json.Unmarshal(p, &req) != nil {
		refuse(2, errors.New("the command connection did not start with a request"))
		return
	}
	if req.Version != clisock.Version {
		refuse(2, fmt.Errorf("this command line speaks version %d of the app's protocol, the running app version %d: use the same build as the app, or close the app", req.Version, clisock.Version))
		return
	}
	if !filepath.IsAbs(req.Cwd) {
		refuse(2, errors.New("the command line sent no absolute working directory; run the command again from an existing directory"))
		return
	}
	if len(req.Args) == 0 || !isServed(req.Args[0]) {
		refuse(2, fmt.Errorf("the app runs only these commands for the command line: %v", servedCommands))
		return
	}
	in := &remoteStdin{conn: conn, data: make(chan []byte, 1)}
	sigs := &relayedSignals{}
	env := &cmdEnv{app: s.app, appDemo: s.demo, stdin: in, stdinTerminal: req.StdinTerminal, cwd: req.Cwd, signals: sigs}
	exited := make(chan struct{})
	go s.readClient(conn, in, sigs, exited)
	code := s.runCommand(env, req.Args, clisock.Writer{C: conn, Kind: clisock.Stdout}, stderr)
	close(exited)
	_ = conn.WriteInt(clisock.Exit, code)
}

// runCommand runs the command; a command that panics ends itself, not the window (on its
// own it would have ended only its own process).
func (s *cliServer) runCommand(env *cmdEnv, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("a command of the command line panicked in the app", "args", args, "panic", r, "stack", string(debug.Stack()))
			fmt.Fprintf(stderr, "phoenix-desktop: the command failed inside the app (%v); the app's log has the details; please report it\n", r)
			code = 2
		}
	}()
	return runWith(env, args, stdout, stderr)
}

// readClient reads the client's frames while its command runs: standard input it asked for
// and signals. A client that is gone is a hang-up: a chat stops its turn.
func (s *cliServer) readClient(conn *clisock.Conn, in *remoteStdin, sigs *relayedSignals, exited <-chan struct{}) {
	defer in.closeInput()
	for {
		kind, p, err := conn.Read()
		if err != nil {
			select {
			case <-exited:
			default:
				sigs.deliver(syscall.SIGHUP, conn)
			}
			return
		}
		switch kind {
		case clisock.Stdin:
			select {
			case in.data <- p:
			case <-exited:
				return
			}
		case clisock.Signal:
			if n, err := clisock.Int(p); err == nil {
				sigs.deliver(syscall.Signal(n), conn)
			}
		}
	}
}

// remoteStdin reads the client's standard input: each Read asks for at most len(p) bytes
// and waits for them, so nothing is read from the person's terminal that the command does
// not read.
type remoteStdin struct {
	conn *clisock.Conn
	mu   sync.Mutex // one read at a time: the answers come in order
	data chan []byte
	once sync.Once
	eof  bool
}

func (r *remoteStdin) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.eof || len(p) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		return 0, nil
	}
	if err := r.conn.WriteInt(clisock.StdinRead, min(len(p), clisock.MaxPayload)); err != nil {
		r.eof = true
		return 0, io.EOF
	}
	b, ok := <-r.data
	if !ok || len(b) == 0 {
		r.eof = true
		return 0, io.EOF
	}
	return copy(p, b), nil
}

func (r *remoteStdin) closeInput() { r.once.Do(func() { close(r.data) }) }

// relayedSignals hands the client's signals to the command that asked for them, as
// signal.Notify would. A signal no command waits for ends the client as the signal would
// end a process on its own (128+n); the command finishes in the app.
type relayedSignals struct {
	mu    sync.Mutex
	chans []chan<- os.Signal
	// gone: the client ended (or was ended by a signal) before the command asked for
	// signals; a command that asks later is hung up on at once, so a chat started for a
	// client that is gone stops its turn rather than run it for nobody.
	gone bool
}

func (r *relayedSignals) Notify(c chan<- os.Signal, _ ...os.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chans = append(r.chans, c)
	if r.gone {
		select {
		case c <- syscall.SIGHUP:
		default:
		}
	}
}

func (r *relayedSignals) Stop(c chan<- os.Signal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.chans = slices.DeleteFunc(r.chans, func(x chan<- os.Signal) bool { return x == c })
}

func (r *relayedSignals) deliver(sig syscall.Signal, conn *clisock.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.chans) == 0 {
		r.gone = true
		if sig != syscall.SIGHUP {
			_ = conn.WriteInt(clisock.Exit, 128+int(sig))
		}
		conn.Close()
		return
	}
	for _, c := range r.chans {
		select { // like signal.Notify: a full channel misses the signal, never blocks
		case c <- sig:
		default:
		}
	}
}
