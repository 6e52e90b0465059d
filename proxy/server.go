package proxy

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of one client connection, in their one place.
const (
	// maxHeaderBytes bounds a request's line and header; a larger one is answered 431.
	maxHeaderBytes = 32 << 10
	// headerTimeout bounds the wait for a request's line and header (a client that connects
	// and says nothing is closed); once the request is read, a tunnel has no time limit.
	headerTimeout = 30 * time.Second
	// dialTimeout bounds resolving a name and connecting to one of its addresses.
	dialTimeout = 30 * time.Second
	// denyMemory is how long a Deny is remembered for a conversation, so that a command
	// retrying in a loop does not show the person one card after another.
	denyMemory = time.Minute
	// maxDenied bounds the hosts a conversation remembers as denied; past it the oldest go.
	maxDenied = 256
	// maxCardsInBurst new cards within cardBurst is as many as a person can read: a command
	// that tries more hosts than that folds them into one card ("the command is trying many
	// hosts") rather than flooding the window.
	maxCardsInBurst = 5
	cardBurst       = 10 * time.Second
	// maxRefusals bounds the refusal lines kept for a conversation between TakeRefusals.
	maxRefusals = 20
	// maxSocketPath is the longest path a unix socket can have on Linux (sun_path less NUL).
	maxSocketPath = 107
)

// Decision is the person's answer to a card about a new host.
type Decision int

const (
	// Deny refuses the connection; the conversation does not ask again for a minute.
	Deny Decision = iota
	// AllowOnce allows the host:port for the rest of the conversation (until Forget).
	AllowOnce
	// AllowAlways adds host:port to the project's allowed hosts.
	AllowAlways
)

// Request is what a card asks about: a command of a conversation in a project wants to reach
// Host:Port. Host is a lower-case name or an IP address in its usual form. A card is about a
// host: connections to its other ports while the card is up wait for the same answer.
//
// A Request with Many is the folded card: the command tried more new hosts in a short time
// than a person can answer one by one (Many lists them, Host:Port is the first). Deny refuses
// them all and any other new host of the conversation for a minute; AllowOnce means "ask
// about each", and each host then gets a card of its own.
type Request struct {
	Project, Conversation, Host string
	Port                        int
	Many                        []string
}

// Asker shows a card and waits for the person's answer. It may block until the person
// answers, and must return when ctx ends (the client went away, the conversation was
// forgotten or the server closed).
type Asker func(ctx context.Context, r Request) (Decision, error)

// Options configures a Server.
type Options struct {
	// Dir is a private directory (0700, the person's own) for the sockets; it is created if
	// missing.
	Dir string
	// Rules is the allowed hosts of every project. Required.
	Rules *Rules
	// Ask asks the person about a host that is not allowed; nil refuses such hosts.
	Ask Asker
	// Dial connects to an address the proxy has resolved and checked ("192.0.2.1:443",
	// "[2001:db8::1]:443"); nil uses a net.Dialer. Tests use it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Resolve looks a host name up exactly as written (no search list: the name is the one
	// the rules checked); nil uses the system's resolver with the name fully qualified.
	// Tests use it to give names to local servers.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// MachineNets lists this machine's own addresses and its bridges' networks, read for
	// each connection to a name; nil reads the interfaces (machineNets). Tests use it.
	MachineNets func() ([]netip.Prefix, error)
}

// Server is the proxy: one unix socket per conversation, each speaking HTTP CONNECT and
// plain absolute-URI HTTP.
type Server struct {
	o             Options
	dial          func(ctx context.Context, network, addr string) (net.Conn, error)
	resolve       func(ctx context.Context, host string) ([]netip.Addr, error)
	machineNets   func() ([]netip.Prefix, error)
	now           func() time.Time
	headerTimeout time.Duration
	// waiting, when set (tests), is called each time a connection starts waiting for a card.
	waiting func()

	mu     sync.Mutex
	closed bool
	convs  map[string]*conv
}

// conv is one conversation's socket and what the proxy remembers for it. The maps and
// slices are guarded by Server.mu.
type conv struct {
	id, project, path string
	ln                net.Listener
	ctx               context.Context // ends with Forget or Close
	cancel            context.CancelFunc
	wg                sync.WaitGroup // the accept loop, every connection and every ask

	gone   bool
	conns  map[net.Conn]struct{}  // client and upstream connections, closed by Forget
	once   map[string]bool        // host:port allowed once
	denied map[string]time.Time   // host → when the person denied it
	asks   map[string]*pendingAsk // host → its card
	// fold is the folded card while it is up; cardTimes are when the recent cards were
	// shown (for maxCardsInBurst); deniedAll is when the person denied a folded card.
	fold      *pendingAsk
	cardTimes []time.Time
	deniedAll time.Time
	refusals  []string
	dropped   int // refusals beyond maxRefusals
}

// pendingAsk is one card on screen; every connection to its host (or, for the fold, to any
// of its hosts) waits for it. ports and hosts are guarded by Server.mu.
type pendingAsk struct {
	done     chan struct{}
	cancel   context.CancelFunc
	waiters  int
	ports    map[int]bool // the ports waiting on a host's card
	hosts    []string     // the hosts folded into the fold's card
	decision Decision
	err      error
}

// Start checks the socket directory and returns a server with no socket yet.
func Start(o Options) (*Server, error) {
	if o.Rules == nil {
		return nil, errors.New("proxy.Start: Options.Rules is required (load it with LoadRules)")
	}
	if err := privateDir(o.Dir); err != nil {
		return nil, err
	}
	s := &Server{
		o:             o,
		dial:          o.Dial,
		resolve:       o.Resolve,
		machineNets:   o.MachineNets,
		now:           time.Now,
		headerTimeout: headerTimeout,
		convs:         map[string]*conv{},
	}
	if s.dial == nil {
		d := &net.Dialer{}
		s.dial = d.DialContext
	}
	if s.resolve == nil {
		s.resolve = func(ctx context.Context, h string) ([]netip.Addr, error) {
			// Fully qualified: a resolv.conf search list (ndots:5 in Kubernetes, a company's
			// domain) must not turn the name the rules allowed into another one.
			return net.DefaultResolver.LookupNetIP(ctx, "ip", h+".")
		}
	}
	if s.machineNets == nil {
		s.machineNets = machineNets
	}
	return s, nil
}

// privateDir makes sure dir exists, is a directory of this user's and nobody else's.
func privateDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("the proxy's socket directory %q must be an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the proxy's socket directory: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking the proxy's socket directory: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("the proxy's socket directory %s is not a directory: remove it or choose another", dir)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the proxy's socket directory %s can be entered by other users (mode %o): run chmod 700 on it or choose another", dir, st.Mode().Perm())
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("the proxy's socket directory %s belongs to another user: choose a directory of your own", dir)
	}
	return nil
}

// socketName is a conversation's socket file name: a digest, so that any conversation id
// makes a short, safe name.
func socketName(conversation string) string {
	sum := sha256.Sum256([]byte(conversation))
	return hex.EncodeToString(sum[:8]) + ".sock"
}

// Listen opens the conversation's socket (or returns the one it has) for a project, the
// absolute path of its working tree.
func (s *Server) Listen(project, conversation string) (string, error) {
	key, err := projectKey(project)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errors.New("the proxy is closed")
	}
	if c := s.convs[conversation]; c != nil {
		if c.project != key {
			return "", fmt.Errorf("conversation %s already has a proxy socket for the project %s; Forget it before listening for %s", conversation, c.project, key)
		}
		return c.path, nil
	}
	path := filepath.Join(s.o.Dir, socketName(conversation))
	if len(path) > maxSocketPath {
		return "", fmt.Errorf("the proxy's socket path %s is longer than the %d characters a unix socket may have: choose a shorter directory", path, maxSocketPath)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("removing an old proxy socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return "", fmt.Errorf("opening the proxy socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return "", fmt.Errorf("making the proxy socket private: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &conv{
		id: conversation, project: key, path: path, ln: ln, ctx: ctx, cancel: cancel,
		conns:  map[net.Conn]struct{}{},
		once:   map[string]bool{},
		denied: map[string]time.Time{},
		asks:   map[string]*pendingAsk{},
	}
	s.convs[conversation] = c
	c.wg.Add(1)
	go s.accept(c)
	return path, nil
}

// Forget closes a conversation's socket, ends its tunnels and requests, withdraws its cards
// and forgets what was allowed once or denied. It returns when all of that has ended.
func (s *Server) Forget(conversation string) {
	s.mu.Lock()
	c := s.convs[conversation]
	if c == nil {
		s.mu.Unlock()
		return
	}
	delete(s.convs, conversation)
	s.mu.Unlock()
	s.end(c)
}

func (s *Server) end(c *conv) {
	s.mu.Lock()
	c.gone = true
	conns := make([]net.Conn, 0, len(c.conns))
	for conn := range c.conns {
		conns = append(conns, conn)
	}
	s.mu.Unlock()
	c.cancel()
	c.ln.Close() // also removes the socket file
	for _, conn := range conns {
		conn.Close()
	}
	c.wg.Wait()
}

// Close ends every conversation's socket and tunnel; the server cannot listen again.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	convs := s.convs
	s.convs = map[string]*conv{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range convs {
		wg.Go(func() { s.end(c) })
	}
	wg.Wait()
	return nil
}

// TakeRefusals returns the lines about connections refused for a conversation since the last
// call, for the model to read in the command's result.
func (s *Server) TakeRefusals(conversation string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.convs[conversation]
	if c == nil {
		return nil
	}
	out := c.refusals
	if c.dropped > 0 {
		out = append(out, fmt.Sprintf("the proxy refused %d more connections", c.dropped))
	}
	c.refusals, c.dropped = nil, 0
	return out
}

// noteLocked records a line for TakeRefusals, once per distinct line.
func (c *conv) noteLocked(line string) {
	for _, l := range c.refusals {
		if l == line {
			return
		}
	}
	if len(c.refusals) >= maxRefusals {
		c.dropped++
		return
	}
	c.refusals = append(c.refusals, line)
}

// track registers a connection to be closed by Forget; false means the conversation is
// already gone and conn was closed.
func (s *Server) track(c *conv, conn net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.gone {
		conn.Close()
		return false
	}
	c.conns[conn] = struct{}{}
	return true
}

func (s *Server) untrack(c *conv, conn net.Conn) {
	s.mu.Lock()
	delete(c.conns, conn)
	s.mu.Unlock()
	conn.Close()
}

func (s *Server) accept(c *conv) {
	defer c.wg.Done()
	for {
		conn, err := c.ln.Accept()
		if err != nil {
			if c.ctx.Err() != nil {
				return
			}
			// Out of file descriptors or a like passing trouble: wait a little rather than
			// spin, and give up when the conversation ends.
			t := time.NewTimer(50 * time.Millisecond)
			select {
			case <-c.ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			continue
		}
		s.mu.Lock()
		if c.gone {
			s.mu.Unlock()
			conn.Close()
			return
		}
		c.conns[conn] = struct{}{}
		c.wg.Add(1)
		s.mu.Unlock()
		go s.handle(c, conn)
	}
}

// headLimiter caps what the request's line and header may take; n < 0 lifts the cap.
type headLimiter struct {
	r io.Reader
	n int
}

func (l *headLimiter) Read(p []byte) (int, error) {
	if l.n < 0 {
		return l.r.Read(p)
	}
	if l.n == 0 {
		return 0, errHeadTooLarge
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

var errHeadTooLarge = errors.New("request header too large")

func (s *Server) handle(c *conv, conn net.Conn) {
	defer c.wg.Done()
	defer s.untrack(c, conn)
	lim := &headLimiter{r: conn, n: maxHeaderBytes}
	br := bufio.NewReader(lim)
	_ = conn.SetReadDeadline(time.Now().Add(s.headerTimeout))
	req, err := http.ReadRequest(br)
	if err != nil {
		var ne net.Error
		switch {
		case lim.n == 0:
			writeStatus(conn, http.StatusRequestHeaderFieldsTooLarge,
				fmt.Sprintf("the proxy refused the request: its header is larger than %d KiB\n", maxHeaderBytes>>10))
		case errors.As(err, &ne) && ne.Timeout():
			writeStatus(conn, http.StatusRequestTimeout, "the proxy closed the connection: no request came within "+s.headerTimeout.String()+"\n")
		case errors.Is(err, io.EOF):
		default:
			writeStatus(conn, http.StatusBadRequest, "the proxy could not read the request: "+err.Error()+"\n")
		}
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	lim.n = -1
	if req.Method == http.MethodConnect {
		s.connect(c, conn, br, req)
		return
	}
	s.forward(c, conn, br, req)
}

// target reads host and port for a request; a bad one is answered 400.
func parseTarget(conn net.Conn, hostName, portText string, defaultPort int) (host, int, bool) {
	port := defaultPort
	if portText != "" {
		p, err := parsePort(portText)
		if err != nil {
			writeStatus(conn, http.StatusBadRequest, "the proxy could not read the destination: "+err.Error()+"\n")
			return host{}, 0, false
		}
		port = p
	}
	h, err := parseHost(hostName)
	if err != nil {
		writeStatus(conn, http.StatusBadRequest, "the proxy could not read the destination: "+err.Error()+"\n")
		return host{}, 0, false
	}
	return h, port, true
}

func (s *Server) connect(c *conv, conn net.Conn, br *bufio.Reader, req *http.Request) {
	hostName, portText, err := net.SplitHostPort(req.Host)
	if err != nil || portText == "" {
		writeStatus(conn, http.StatusBadRequest, "the proxy needs CONNECT host:port\n")
		return
	}
	h, port, ok := parseTarget(conn, hostName, portText, 0)
	if !ok {
		return
	}
	up, ok := s.open(c, conn, br, h, port)
	if !ok {
		return
	}
	defer s.untrack(c, up)
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	tunnel(conn, br, up)
}

// open decides whether h:port may be reached (asking the person when needed), then resolves
// and connects. On refusal or failure it has answered the client and returns false.
func (s *Server) open(c *conv, conn net.Conn, br *bufio.Reader, h host, port int) (net.Conn, bool) {
	target := h.hostPort(port)
	if r, ok := s.decide(c, conn, br, h, port); !ok {
		if r.reason != "" {
			s.refuse(c, conn, refusal{target, r.reason})
		}
		return nil, false
	}
	ctx, cancel := context.WithTimeout(c.ctx, dialTimeout)
	defer cancel()
	var addrs []netip.Addr
	if h.isIP() {
		addrs = []netip.Addr{h.ip}
	} else {
		all, err := s.resolve(ctx, h.name)
		if err != nil {
			writeStatus(conn, http.StatusBadGateway, fmt.Sprintf("the proxy could not resolve %s: %v\n", h.name, err))
			return nil, false
		}
		nets, err := s.machineNets()
		if err != nil {
			// What this machine is cannot be told: fail closed.
			s.refuse(c, conn, refusal{target, reasonMachineUnknown(err)})
			return nil, false
		}
		var local []netip.Addr
		for _, a := range all {
			if isLocal(a) || onMachine(a, nets) {
				local = append(local, a.Unmap())
			} else {
				addrs = append(addrs, a.Unmap())
			}
		}
		if len(addrs) == 0 {
			if len(local) > 0 {
				s.refuse(c, conn, refusal{target, reasonLocal(h.name, local)})
			} else {
				writeStatus(conn, http.StatusBadGateway, fmt.Sprintf("the proxy could not resolve %s: no address\n", h.name))
			}
			return nil, false
		}
	}
	var errs []error
	for _, a := range addrs {
		up, err := s.dial(ctx, "tcp", netip.AddrPortFrom(a, uint16(port)).String())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !s.track(c, up) {
			return nil, false
		}
		return up, true
	}
	writeStatus(conn, http.StatusBadGateway, fmt.Sprintf("the proxy could not connect to %s: %v\n", target, errors.Join(errs...)))
	return nil, false
}

// forward passes one plain HTTP request (absolute URI) on and its response back, then
// closes the connection: every request is judged on its own, and a client's next request,
// perhaps to another host, comes on a new connection.
func (s *Server) forward(c *conv, conn net.Conn, br *bufio.Reader, req *http.Request) {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		writeStatus(conn, http.StatusBadRequest,
			"this is a proxy: send http://host/path as the request target, or CONNECT host:port for https and other protocols\n")
		return
	}
	h, port, ok := parseTarget(conn, req.URL.Hostname(), req.URL.Port(), 80)
	if !ok {
		return
	}
	up, ok := s.open(c, conn, br, h, port)
	if !ok {
		return
	}
	defer s.untrack(c, up)
	// The Host sent is the host checked (RFC 9112 §3.2.2: a proxy replaces a received Host
	// with the request target's), never a field the client wrote beside it.
	req.Host = ""
	req.URL.Host = h.String()
	if h.isIP() && h.ip.Is6() {
		req.URL.Host = "[" + h.ip.String() + "]"
	}
	if port != 80 {
		req.URL.Host = h.hostPort(port)
	}
	for _, k := range req.Header.Values("Connection") {
		for _, f := range strings.Split(k, ",") {
			req.Header.Del(strings.TrimSpace(f))
		}
	}
	for _, k := range hopHeaders {
		req.Header.Del(k)
	}
	if _, ok := req.Header["User-Agent"]; !ok {
		req.Header["User-Agent"] = []string{""} // Request.Write would add Go's own otherwise
	}
	req.Close = true
	wrote := make(chan error, 1)
	go func() { wrote <- req.Write(up) }()
	defer func() {
		// A server that answered before reading the whole body, or a client that stopped
		// sending it, must not hold the write: both sides are cut.
		up.Close()
		_ = conn.SetReadDeadline(time.Unix(1, 0))
		<-wrote
	}()
	upBr := bufio.NewReader(up)
	for {
		resp, err := http.ReadResponse(upBr, req)
		if err != nil {
			writeStatus(conn, http.StatusBadGateway, "the proxy got no valid answer from "+h.hostPort(port)+": "+err.Error()+"\n")
			return
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			// An interim answer (100 Continue, 103 Early Hints): pass it on, read the next.
			fmt.Fprintf(conn, "HTTP/1.1 %s\r\n", resp.Status)
			_ = resp.Header.Write(conn)
			_, _ = io.WriteString(conn, "\r\n")
			resp.Body.Close()
			continue
		}
		resp.Close = true
		for _, k := range hopHeaders {
			if k != "Transfer-Encoding" {
				resp.Header.Del(k)
			}
		}
		_ = resp.Write(conn)
		resp.Body.Close()
		return
	}
}
