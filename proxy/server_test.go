package proxy

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const testConv = "conversation-1"

// harness is a proxy on real unix sockets whose name lookups and dials the test controls:
// names resolve through names, and a dial to an address in redirect goes to a local server.
type harness struct {
	t     testing.TB
	s     *Server
	rules *Rules
	path  string // the rules file
	sock  string // testConv's socket

	mu       sync.Mutex
	names    map[string][]netip.Addr
	redirect map[string]string
	dialed   []string
}

// newHarness starts the server; setup changes it before its first socket opens.
func newHarness(t testing.TB, ask Asker, setup ...func(*Server)) *harness {
	t.Helper()
	// A short directory: a unix socket's path has at most 107 characters.
	dir, err := os.MkdirTemp("", "px")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sockDir := filepath.Join(dir, "s")
	h := &harness{t: t, path: filepath.Join(dir, "allowed-hosts.json"), names: map[string][]netip.Addr{}, redirect: map[string]string{}}
	h.rules, err = LoadRules(h.path)
	if err != nil {
		t.Fatal(err)
	}
	h.rules.registryHosts = func(context.Context, string) ([]string, error) { return nil, nil }
	// The harness's names live on a pretend network (TEST-NET addresses, dialled through
	// redirect), so this machine's own addresses, whatever they are, play no part here; the
	// lab test (lab_test.go) checks them on real interfaces.
	noMachine := func() ([]netip.Prefix, error) { return nil, nil }
	h.s, err = Start(Options{Dir: sockDir, Rules: h.rules, Ask: ask, Dial: h.dial, Resolve: h.resolve, MachineNets: noMachine})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.s.Close() })
	for _, f := range setup {
		f(h.s)
	}
	h.sock, err = h.s.Listen(testProject, testConv)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *harness) resolve(_ context.Context, name string) ([]netip.Addr, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if a, ok := h.names[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("no such host %s", name)
}

func (h *harness) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	h.mu.Lock()
	h.dialed = append(h.dialed, addr)
	if to, ok := h.redirect[addr]; ok {
		addr = to
	}
	h.mu.Unlock()
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (h *harness) dials() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.dialed)
}

// name makes name resolve to a documentation address whose port goes to the local server at
// realAddr.
func (h *harness) name(name string, fake string, realAddr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a := netip.MustParseAddr(fake)
	h.names[name] = append(h.names[name], a)
	_, port, _ := net.SplitHostPort(realAddr)
	h.redirect[net.JoinHostPort(fake, port)] = realAddr
}

func (h *harness) allow(entries ...string) {
	for _, e := range entries {
		if err := h.rules.Allow(testProject, e); err != nil {
			h.t.Fatal(err)
		}
	}
}

// client is an HTTP client whose proxy is the socket, as a command's would be through the
// sandbox's relay.
func client(t testing.TB, sock string, tlsConfig *tls.Config) *http.Client {
	proxyURL, _ := url.Parse("http://proxy.invalid")
	tr := &http.Transport{
		Proxy: http.ProxyURL(proxyURL),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		TLSClientConfig:   tlsConfig,
		DisableKeepAlives: true,
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connect sends CONNECT target on a new connection and returns the answer; on 200 the
// connection is the tunnel.
func connect(t *testing.T, sock, target string) (*http.Response, string, net.Conn) {
	t.Helper()
	conn, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatalf("CONNECT %s: %v", target, err)
	}
	var body string
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
	}
	return resp, body, &tunnelConn{conn.(*net.UnixConn), br}
}

// tunnelConn is the client's end of a tunnel: what the reader already holds comes first.
type tunnelConn struct {
	*net.UnixConn
	br *bufio.Reader
}

func (c *tunnelConn) Read(p []byte) (int, error) { return c.br.Read(p) }

// tcpServer runs handle for each connection to a local TCP listener until the test ends.
func tcpServer(t *testing.T, handle func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() { defer c.Close(); handle(c) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return ln.Addr().String()
}

// countServer reads until the end of input, then answers how many bytes came and closes.
func countServer(t *testing.T) string {
	return tcpServer(t, func(c net.Conn) {
		n, _ := io.Copy(io.Discard, c)
		fmt.Fprintf(c, "got %d", n)
	})
}

func roundTrip(t *testing.T, tunnel net.Conn, payload string) string {
	t.Helper()
	if _, err := io.WriteString(tunnel, payload); err != nil {
		t.Fatal(err)
	}
	if err := tunnel.(*tunnelConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(tunnel)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestConnectTLSEndToEnd(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello %s %s", r.Host, r.URL.Path)
	}))
	defer srv.Close()
	h := newHarness(t, nil)
	u, _ := url.Parse(srv.URL)
	h.allow("127.0.0.1:" + u.Port())
	c := client(t, h.sock, srv.Client().Transport.(*http.Transport).TLSClientConfig)

	resp, err := c.Get(srv.URL + "/through")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "hello "+u.Host+" /through" {
		t.Errorf("got %d %q", resp.StatusCode, b)
	}

	// By name: the proxy resolves example.com (the test server's certificate names it).
	h.name("example.com", "192.0.2.10", u.Host)
	h.allow("example.com")
	resp, err = c.Get("https://example.com:" + u.Port() + "/named")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello example.com:"+u.Port()+" /named" {
		t.Errorf("by name: got %q", b)
	}
	if got := h.dials(); !slices.Equal(got, []string{u.Host, "192.0.2.10:" + u.Port()}) {
		t.Errorf("dialed %q", got)
	}
	if r := h.s.TakeRefusals(testConv); len(r) != 0 {
		t.Errorf("refusals after allowed connections: %q", r)
	}
}

func TestPlainHTTP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s host=%s proxy-auth=%q proxy-conn=%q x=%q ua=%q body=%q",
			r.Method, r.URL.RequestURI(), r.Host, r.Header.Get("Proxy-Authorization"), r.Header.Get("Proxy-Connection"), r.Header.Get("X-Keep"), r.UserAgent(), body)
	}))
	defer srv.Close()
	h := newHarness(t, nil)
	u, _ := url.Parse(srv.URL)
	h.allow("127.0.0.1")

	resp, err := client(t, h.sock, nil).Get(srv.URL + "/a/b?q=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf("GET /a/b?q=1 host=%s proxy-auth=\"\" proxy-conn=\"\" x=\"\" ua=\"Go-http-client/1.1\" body=\"\"", u.Host); string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}

	// Hop-by-hop fields stay with the proxy; the body goes through; the connection closes.
	conn, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s/post HTTP/1.1\r\nHost: %s\r\nProxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\nX-Keep: 1\r\nContent-Length: 5\r\n\r\nhello", srv.URL, u.Host)
	resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if want := fmt.Sprintf("POST /post host=%s proxy-auth=\"\" proxy-conn=\"\" x=\"1\" ua=\"\" body=\"hello\"", u.Host); string(b) != want {
		t.Errorf("got %q, want %q", b, want)
	}
	if !resp.Close {
		t.Error("the answer does not say Connection: close")
	}

	// Expect: 100-continue: the interim answer comes back before the body is sent.
	conn2, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn2.Close()
	fmt.Fprintf(conn2, "PUT %s/put HTTP/1.1\r\nHost: %s\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n", srv.URL, u.Host)
	br := bufio.NewReader(conn2)
	interim, err := http.ReadResponse(br, nil)
	if err != nil || interim.StatusCode != http.StatusContinue {
		t.Fatalf("before the body: %v %v", interim, err)
	}
	io.WriteString(conn2, "abc")
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	if !strings.HasPrefix(string(b), "PUT /put") || !strings.HasSuffix(string(b), `body="abc"`) {
		t.Errorf("after 100 Continue: %q", b)
	}
}

func TestRefusedHost(t *testing.T) {
	h := newHarness(t, nil)
	h.allow("other.example")
	line := "the proxy refused example.org:443: not among the hosts you allowed for this project"
	for range 2 {
		resp, body, _ := connect(t, h.sock, "example.org:443")
		if resp.StatusCode != http.StatusForbidden || !strings.HasPrefix(body, line+"\n") || !strings.Contains(body, "allow") {
			t.Errorf("CONNECT example.org:443: %d %q", resp.StatusCode, body)
		}
	}
	resp, err := client(t, h.sock, nil).Get("http://example.org/x")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET http://example.org/x: %d", resp.StatusCode)
	}
	want := []string{line, "the proxy refused example.org:80: not among the hosts you allowed for this project"}
	if got := h.s.TakeRefusals(testConv); !slices.Equal(got, want) {
		t.Errorf("TakeRefusals = %q, want %q", got, want)
	}
	if got := h.s.TakeRefusals(testConv); len(got) != 0 {
		t.Errorf("TakeRefusals a second time = %q", got)
	}
	if d := h.dials(); len(d) != 0 {
		t.Errorf("a refused host was dialed: %q", d)
	}
}

func TestWildcardAndPortThroughProxy(t *testing.T) {
	h := newHarness(t, nil)
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	h.name("www.example.org", "192.0.2.1", addr)
	h.name("a.b.example.org", "192.0.2.2", addr)
	h.name("example.org", "192.0.2.3", addr)
	h.allow("*.example.org:" + port)
	for target, want := range map[string]int{
		"www.example.org:" + port:  200,
		"a.b.example.org:" + port:  200,
		"WWW.Example.ORG.:" + port: 200,
		"example.org:" + port:      403,
		"www.example.org:1":        403,
		"wwwexample.org:" + port:   403,
	} {
		resp, body, conn := connect(t, h.sock, target)
		if resp.StatusCode != want {
			t.Errorf("CONNECT %s: %d %q, want %d", target, resp.StatusCode, body, want)
			continue
		}
		if want == 200 {
			if got := roundTrip(t, conn, "12345"); got != "got 5" {
				t.Errorf("through %s: %q", target, got)
			}
		}
	}
}

func TestIPLiteralForms(t *testing.T) {
	h := newHarness(t, nil)
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	h.allow("localhost", "example.org")
	forms := []string{"127.0.0.1", "2130706433", "0x7f000001", "0177.0.0.1", "127.1", "[::ffff:127.0.0.1]", "127.0.0.1."}
	for _, f := range forms {
		resp, body, _ := connect(t, h.sock, f+":"+port)
		if resp.StatusCode != 403 || !strings.Contains(body, reasonIPNotAllowed) {
			t.Errorf("CONNECT %s:%s with only names listed: %d %q", f, port, resp.StatusCode, body)
		}
	}
	if d := h.dials(); len(d) != 0 {
		t.Fatalf("dialed %q", d)
	}
	h.allow("127.0.0.1:" + port)
	for _, f := range forms {
		resp, body, conn := connect(t, h.sock, f+":"+port)
		if resp.StatusCode != 200 {
			t.Errorf("CONNECT %s:%s with the address listed: %d %q", f, port, resp.StatusCode, body)
			continue
		}
		if got := roundTrip(t, conn, "x"); got != "got 1" {
			t.Errorf("through %s: %q", f, got)
		}
	}
	for _, d := range h.dials() {
		if d != addr {
			t.Errorf("dialed %s, want every form to dial %s", d, addr)
		}
	}
	if resp, body, _ := connect(t, h.sock, "127.0.0.2:"+port); resp.StatusCode != 403 {
		t.Errorf("CONNECT to another address: %d %q", resp.StatusCode, body)
	}
}

func TestRebindingToLocalAddressesRefused(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	a := newAsker()
	h := newHarness(t, a.ask)
	h.allow("evil.example", "mixed.example")
	for _, ip := range []string{"127.0.0.1", "::1", "169.254.169.254", "0.0.0.0", "::ffff:127.0.0.1"} {
		h.mu.Lock()
		h.names["evil.example"] = []netip.Addr{netip.MustParseAddr(ip)}
		h.mu.Unlock()
		resp, body, _ := connect(t, h.sock, "evil.example:"+port)
		if resp.StatusCode != 403 || !strings.Contains(body, "resolves only to addresses of this machine") {
			t.Errorf("evil.example → %s: %d %q", ip, resp.StatusCode, body)
		}
	}
	if d := h.dials(); len(d) != 0 {
		t.Fatalf("a local address was dialed: %q", d)
	}
	// Of a name's addresses, the local ones are skipped and the others used.
	h.mu.Lock()
	h.names["mixed.example"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	h.mu.Unlock()
	h.name("mixed.example", "192.0.2.7", addr)
	resp, body, conn := connect(t, h.sock, "mixed.example:"+port)
	if resp.StatusCode != 200 {
		t.Fatalf("mixed.example: %d %q", resp.StatusCode, body)
	}
	if got := roundTrip(t, conn, "ab"); got != "got 2" {
		t.Errorf("through mixed.example: %q", got)
	}
	if d := h.dials(); !slices.Equal(d, []string{"192.0.2.7:" + port}) {
		t.Errorf("dialed %q", d)
	}
	// A host the person allows on the card is held to the same rule.
	h.mu.Lock()
	h.names["once.example"] = []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	h.mu.Unlock()
	go func() { <-a.calls; a.answers <- AllowOnce }()
	resp, body, _ = connect(t, h.sock, "once.example:"+port)
	if resp.StatusCode != 403 || !strings.Contains(body, "resolves only to addresses of this machine") {
		t.Errorf("once.example → 127.0.0.1 after AllowOnce: %d %q", resp.StatusCode, body)
	}
}

// asker is a card the test answers.
type asker struct {
	calls   chan Request
	answers chan Decision
	ended   chan error // the ctx error of an ask that ended without an answer
	n       atomic.Int32
}

func newAsker() *asker {
	return &asker{calls: make(chan Request, 16), answers: make(chan Decision), ended: make(chan error, 16)}
}

func (a *asker) ask(ctx context.Context, r Request) (Decision, error) {
	a.n.Add(1)
	a.calls <- r
	select {
	case d := <-a.answers:
		return d, nil
	case <-ctx.Done():
		a.ended <- ctx.Err()
		return Deny, ctx.Err()
	}
}

func TestConcurrentConnectionsShareOneCard(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	a := newAsker()
	waiting := make(chan struct{}, 16)
	h := newHarness(t, a.ask, func(s *Server) { s.waiting = func() { waiting <- struct{}{} } })
	h.name("new.example", "192.0.2.1", addr)

	const n = 5
	type result struct {
		code int
		conn net.Conn
	}
	results := make(chan result, n)
	for range n {
		go func() {
			resp, _, conn := connect(t, h.sock, "new.example:"+port)
			results <- result{resp.StatusCode, conn}
		}()
	}
	req := <-a.calls
	if !reflect.DeepEqual(req, Request{Project: testProject, Conversation: testConv, Host: "new.example", Port: mustAtoi(port)}) {
		t.Errorf("the card asks %+v", req)
	}
	for range n {
		<-waiting
	}
	a.answers <- AllowOnce
	for range n {
		var r result
		select {
		case r = <-results:
		case <-time.After(time.Minute): // only when the connections did not share the card
			t.Fatalf("connections still wait after the card was answered; %d cards were shown", a.n.Load())
		}
		if r.code != 200 {
			t.Errorf("a waiting connection got %d", r.code)
			continue
		}
		if got := roundTrip(t, r.conn, "x"); got != "got 1" {
			t.Errorf("through the tunnel: %q", got)
		}
	}
	if a.n.Load() != 1 {
		t.Errorf("%d cards for one host", a.n.Load())
	}
	// Allowed once: the conversation does not ask again, the project does not keep it.
	if resp, _, _ := connect(t, h.sock, "new.example:"+port); resp.StatusCode != 200 {
		t.Errorf("after AllowOnce: %d", resp.StatusCode)
	}
	if a.n.Load() != 1 || len(h.rules.List(testProject)) != 0 {
		t.Errorf("AllowOnce asked again (%d cards) or was saved (%q)", a.n.Load(), h.rules.List(testProject))
	}
	// Another port of the host is another question.
	go func() { <-a.calls; a.answers <- Deny }()
	if resp, _, _ := connect(t, h.sock, "new.example:1"); resp.StatusCode != 403 {
		t.Errorf("another port after AllowOnce: %d", resp.StatusCode)
	}
	// Another conversation of the project, and the same one after Forget, ask again.
	other, err := h.s.Listen(testProject, "conversation-2")
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-a.calls; a.answers <- Deny }()
	if resp, body, _ := connect(t, other, "new.example:"+port); resp.StatusCode != 403 || !strings.Contains(body, reasonDenied) {
		t.Errorf("another conversation: %d %q", resp.StatusCode, body)
	}
	h.s.Forget(testConv)
	sock, err := h.s.Listen(testProject, testConv)
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-a.calls; a.answers <- AllowOnce }()
	if resp, _, _ := connect(t, sock, "new.example:"+port); resp.StatusCode != 200 {
		t.Errorf("after Forget: %d", resp.StatusCode)
	}
	if a.n.Load() != 4 {
		t.Errorf("%d cards, want 4", a.n.Load())
	}
}

func mustAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

func TestAllowAlwaysIsSaved(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	a := newAsker()
	h := newHarness(t, a.ask)
	h.name("new.example", "192.0.2.1", addr)
	go func() { <-a.calls; a.answers <- AllowAlways }()
	if resp, body, _ := connect(t, h.sock, "new.example:"+port); resp.StatusCode != 200 {
		t.Fatalf("after AllowAlways: %d %q", resp.StatusCode, body)
	}
	want := []string{"new.example:" + port}
	if got := h.rules.List(testProject); !slices.Equal(got, want) {
		t.Errorf("List = %q, want %q", got, want)
	}
	again, err := LoadRules(h.path)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Allowed(testProject, "new.example", mustAtoi(port)) {
		t.Error("the saved entry does not allow the host after reloading")
	}
	other, err := h.s.Listen(testProject, "conversation-2")
	if err != nil {
		t.Fatal(err)
	}
	if resp, _, _ := connect(t, other, "new.example:"+port); resp.StatusCode != 200 || a.n.Load() != 1 {
		t.Errorf("another conversation of the project: %d after %d cards", resp.StatusCode, a.n.Load())
	}
}

func TestDenyIsRememberedForAMinute(t *testing.T) {
	a := newAsker()
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	h := newHarness(t, a.ask, func(s *Server) { s.now = func() time.Time { return time.Unix(0, now.Load()) } })

	go func() { <-a.calls; a.answers <- Deny }()
	resp, body, _ := connect(t, h.sock, "spam.example:443")
	if resp.StatusCode != 403 || !strings.Contains(body, reasonDenied) {
		t.Fatalf("denied: %d %q", resp.StatusCode, body)
	}
	for range 3 {
		resp, body, _ = connect(t, h.sock, "spam.example:443")
		if resp.StatusCode != 403 || !strings.Contains(body, reasonDeniedRecently) {
			t.Errorf("a retry: %d %q", resp.StatusCode, body)
		}
	}
	if a.n.Load() != 1 {
		t.Errorf("%d cards for retries within a minute", a.n.Load())
	}
	want := []string{
		"the proxy refused spam.example:443: " + reasonDenied,
		"the proxy refused spam.example:443: " + reasonDeniedRecently,
	}
	if got := h.s.TakeRefusals(testConv); !slices.Equal(got, want) {
		t.Errorf("TakeRefusals = %q, want %q", got, want)
	}
	now.Add(int64(denyMemory))
	go func() { <-a.calls; a.answers <- Deny }()
	connect(t, h.sock, "spam.example:443")
	if a.n.Load() != 2 {
		t.Errorf("after a minute: %d cards, want 2", a.n.Load())
	}
}

func TestClientGoneWithdrawsCard(t *testing.T) {
	a := newAsker()
	h := newHarness(t, a.ask)
	conn, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(conn, "CONNECT gone.example:443 HTTP/1.1\r\nHost: gone.example:443\r\n\r\n")
	<-a.calls
	conn.Close()
	if err := <-a.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the card's context ended with %v", err)
	}
	// Nothing was decided: the next connection asks afresh.
	go func() { <-a.calls; a.answers <- Deny }()
	connect(t, h.sock, "gone.example:443")
	if a.n.Load() != 2 {
		t.Errorf("%d cards, want 2", a.n.Load())
	}
}

func TestForgetWithdrawsCardAndEndsTunnels(t *testing.T) {
	addr := tcpServer(t, func(c net.Conn) { io.Copy(io.Discard, c) }) // never answers
	_, port, _ := net.SplitHostPort(addr)
	a := newAsker()
	h := newHarness(t, a.ask)
	h.allow("127.0.0.1")
	_, _, tunnel := connect(t, h.sock, addr)

	waiting, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	io.WriteString(waiting, "CONNECT ask.example:"+port+" HTTP/1.1\r\nHost: x\r\n\r\n")
	<-a.calls

	h.s.Forget(testConv)
	if err := <-a.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the card's context ended with %v", err)
	}
	if n, err := tunnel.Read(make([]byte, 1)); err == nil {
		t.Errorf("the tunnel still reads (%d bytes) after Forget", n)
	}
	if _, err := io.ReadAll(waiting); err != nil {
		t.Errorf("the waiting connection: %v", err)
	}
	if _, err := os.Stat(h.sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket file is still there: %v", err)
	}
	if _, err := net.Dial("unix", h.sock); err == nil {
		t.Error("the forgotten socket still accepts")
	}
	if r := h.s.TakeRefusals(testConv); r != nil {
		t.Errorf("refusals of a forgotten conversation: %q", r)
	}
}

func TestCloseEndsEverything(t *testing.T) {
	addr := tcpServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	h := newHarness(t, nil)
	h.allow("127.0.0.1")
	other, err := h.s.Listen(testProject, "conversation-2")
	if err != nil {
		t.Fatal(err)
	}
	_, _, t1 := connect(t, h.sock, addr)
	_, _, t2 := connect(t, other, addr)
	if err := h.s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, tun := range []net.Conn{t1, t2} {
		if _, err := tun.Read(make([]byte, 1)); err == nil {
			t.Error("a tunnel still reads after Close")
		}
	}
	if _, err := h.s.Listen(testProject, "conversation-3"); err == nil {
		t.Error("Listen after Close succeeded")
	}
}

func TestHalfCloseBothWays(t *testing.T) {
	// The server half-closes first: it says hello and stops sending, then counts what the
	// client still sends.
	counted := make(chan int64, 1)
	addr := tcpServer(t, func(c net.Conn) {
		io.WriteString(c, "hello")
		c.(*net.TCPConn).CloseWrite()
		n, _ := io.Copy(io.Discard, c)
		counted <- n
	})
	h := newHarness(t, nil)
	h.allow("127.0.0.1")
	_, _, tunnel := connect(t, h.sock, addr)
	got, err := io.ReadAll(tunnel) // ends when the server's half-close arrives
	if err != nil || string(got) != "hello" {
		t.Fatalf("read %q, %v", got, err)
	}
	// The other way is still open.
	if _, err := io.WriteString(tunnel, "still here"); err != nil {
		t.Fatal(err)
	}
	tunnel.(*tunnelConn).CloseWrite()
	if n := <-counted; n != int64(len("still here")) {
		t.Errorf("the server got %d bytes", n)
	}
	// And the count server shows the client's half-close reaching the server.
	if got := roundTrip(t, mustConnect(t, h, countServer(t)), strings.Repeat("z", 1<<20)); got != fmt.Sprintf("got %d", 1<<20) {
		t.Errorf("a megabyte through the tunnel: %q", got)
	}
}

func mustConnect(t *testing.T, h *harness, target string) net.Conn {
	resp, body, conn := connect(t, h.sock, target)
	if resp.StatusCode != 200 {
		t.Fatalf("CONNECT %s: %d %q", target, resp.StatusCode, body)
	}
	return conn
}

func TestBadRequests(t *testing.T) {
	h := newHarness(t, nil)
	h.allow("127.0.0.1", "example.org")
	send := func(raw string) (int, string) {
		conn, err := net.Dial("unix", h.sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		go io.WriteString(conn, raw)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("%.40q: %v", raw, err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for raw, want := range map[string]int{
		"GET /relative HTTP/1.1\r\nHost: example.org\r\n\r\n":            400,
		"GET https://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n": 400,
		"CONNECT example.org HTTP/1.1\r\nHost: example.org\r\n\r\n":      400,
		"CONNECT example.org:0 HTTP/1.1\r\nHost: example.org\r\n\r\n":    400,
		"CONNECT exa%20mple.org:443 HTTP/1.1\r\nHost: x\r\n\r\n":         400,
		"CONNECT 1.2.3.999:443 HTTP/1.1\r\nHost: x\r\n\r\n":              400,
		"NONSENSE\r\n\r\n": 400,
		"GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\nX-Big: " + strings.Repeat("a", maxHeaderBytes) + "\r\n\r\n": 431,
	} {
		if code, body := send(raw); code != want {
			t.Errorf("%.60q: %d %q, want %d", raw, code, body, want)
		}
	}
	// A client that says nothing is closed once the header's time is up.
	h = newHarness(t, nil, func(s *Server) { s.headerTimeout = time.Millisecond })
	conn, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("a silent client: %v %v", resp, err)
	}
}

func TestListenAndStart(t *testing.T) {
	h := newHarness(t, nil)
	again, err := h.s.Listen(testProject+"/", testConv)
	if err != nil || again != h.sock {
		t.Errorf("Listen again = %q, %v; want %q", again, err, h.sock)
	}
	if _, err := h.s.Listen("/elsewhere", testConv); err == nil {
		t.Error("Listen for another project on the same conversation succeeded")
	}
	if _, err := h.s.Listen("relative", "c"); err == nil {
		t.Error("Listen for a relative project succeeded")
	}
	st, err := os.Stat(filepath.Dir(h.sock))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("the socket directory: %v %v", st.Mode(), err)
	}

	open := t.TempDir()
	os.Chmod(open, 0o755)
	if _, err := Start(Options{Dir: open, Rules: h.rules}); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("Start in a directory others can enter: %v", err)
	}
	if _, err := Start(Options{Dir: t.TempDir()}); err == nil {
		t.Error("Start without rules succeeded")
	}
}

// The lines the model reads and the 403 bodies come from the same words.
func TestRefusalWordsHaveOneHome(t *testing.T) {
	r := refusal{"example.org:443", reasonNotAllowed}
	if first, _, _ := strings.Cut(r.body(), "\n"); first != r.line() {
		t.Errorf("the body's first line %q is not the refusal line %q", first, r.line())
	}
}
