package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"
)

// The holes of issue 40 that a unit test on the proxy's own sockets can show; the lab test
// shows them again on real interfaces and a real resolver.

// An allowed name that resolves to one of this machine's own addresses, or into a network
// behind one of its bridges, is refused like loopback: it would reach the person's services.
func TestMachineAddressesAreLocal(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	nets := []netip.Prefix{netip.MustParsePrefix("198.51.100.9/32"), netip.MustParsePrefix("2001:db8::9/128"), netip.MustParsePrefix("172.17.0.0/16")}
	h := newHarness(t, nil, func(s *Server) {
		s.machineNets = func() ([]netip.Prefix, error) { return nets, nil }
	})
	h.allow("*.example")
	for _, ip := range []string{"198.51.100.9", "2001:db8::9", "::ffff:198.51.100.9", "172.17.3.4"} {
		h.mu.Lock()
		h.names["lan.example"] = []netip.Addr{netip.MustParseAddr(ip)}
		h.mu.Unlock()
		resp, body, _ := connect(t, h.sock, "lan.example:"+port)
		if resp.StatusCode != 403 || !strings.Contains(body, "addresses of this machine") {
			t.Errorf("lan.example → %s: %d %q", ip, resp.StatusCode, body)
		}
	}
	// A neighbour on the LAN is another machine.
	h.name("far.example", "198.51.100.10", addr)
	if resp, body, _ := connect(t, h.sock, "far.example:"+port); resp.StatusCode != 200 {
		t.Errorf("far.example: %d %q", resp.StatusCode, body)
	}
	if d := h.dials(); len(d) != 1 {
		t.Errorf("dialed %q", d)
	}
	// The person lists the address itself: then it is reached.
	h.allow("198.51.100.9:" + port)
	h.redirect["198.51.100.9:"+port] = addr
	if resp, body, _ := connect(t, h.sock, "198.51.100.9:"+port); resp.StatusCode != 200 {
		t.Errorf("a listed machine address: %d %q", resp.StatusCode, body)
	}
}

// When the machine's addresses cannot be read, a name is not reached (fail closed).
func TestMachineAddressesUnreadableRefuses(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	h := newHarness(t, nil, func(s *Server) {
		s.machineNets = func() ([]netip.Prefix, error) { return nil, fmt.Errorf("netlink: permission denied") }
	})
	h.allow("far.example")
	h.name("far.example", "198.51.100.10", addr)
	if resp, body, _ := connect(t, h.sock, "far.example:"+port); resp.StatusCode != 403 || !strings.Contains(body, "could not tell") {
		t.Errorf("far.example with unreadable interfaces: %d %q", resp.StatusCode, body)
	}
}

// The real reading of this machine: loopback and every interface address are in it.
func TestMachineNetsReadsInterfaces(t *testing.T) {
	nets, err := machineNets()
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, _ := netip.AddrFromSlice(ipn.IP)
		if !onMachine(ip, nets) {
			t.Errorf("%s is not counted as this machine's (%v)", ip, nets)
		}
	}
}

// A name is judged exactly as it is resolved and sent: nothing is trimmed away, no
// non-ASCII letter is folded into an ASCII one.
func TestHostIsCheckedAsWritten(t *testing.T) {
	for _, s := range []string{"allowed.test\u00a0", " allowed.test", "allowed.test\t", "allowed.tes\u212a", "allowed.t\u0435st", "allowed..test", "allowed.test.."} {
		if h, err := parseHost(s); err == nil {
			t.Errorf("parseHost(%q) = %v, want an error", s, h)
		}
	}
	for s, want := range map[string]string{"Allowed.Test.": "allowed.test", "xn--bcher-kva.example": "xn--bcher-kva.example"} {
		if h, err := parseHost(s); err != nil || h.name != want {
			t.Errorf("parseHost(%q) = %v, %v, want %s", s, h, err, want)
		}
	}
}

// The Host field sent upstream is the host the rules checked, whatever the client wrote.
func TestPlainHTTPSendsTheCheckedHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host=%s", r.Host)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	h := newHarness(t, nil)
	h.allow("allowed.test")
	h.name("allowed.test", "192.0.2.10", u.Host)
	for _, hostField := range []string{"other.test", "allowed.test\u00a0", ""} {
		conn, err := net.Dial("unix", h.sock)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "GET http://allowed.test:%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", port, hostField)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		conn.Close()
		if want := "host=allowed.test:" + port; string(b) != want {
			t.Errorf("Host %q: the server saw %q, want %q", hostField, b, want)
		}
	}
	// A target with a no-break space is refused, not trimmed and sent as an IDNA name.
	conn, err := net.Dial("unix", h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET http://allowed.test\u00a0:%s/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", port)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 {
		t.Errorf("a no-break space in the target: %d", resp.StatusCode)
	}
}

// Connections to two ports of one host while its card is up share the card; AllowOnce lets
// both through.
func TestOneCardPerHost(t *testing.T) {
	addr1, addr2 := countServer(t), countServer(t)
	_, port1, _ := net.SplitHostPort(addr1)
	_, port2, _ := net.SplitHostPort(addr2)
	a := newAsker()
	waiting := make(chan struct{}, 16)
	h := newHarness(t, a.ask, func(s *Server) { s.waiting = func() { waiting <- struct{}{} } })
	h.name("new.example", "192.0.2.1", addr1)
	h.name("new.example", "192.0.2.1", addr2)
	codes := make(chan int, 2)
	go func() { resp, _, _ := connect(t, h.sock, "new.example:"+port1); codes <- resp.StatusCode }()
	<-a.calls
	<-waiting
	go func() { resp, _, _ := connect(t, h.sock, "new.example:"+port2); codes <- resp.StatusCode }()
	<-waiting
	a.answers <- AllowOnce
	for range 2 {
		if c := <-codes; c != 200 {
			t.Errorf("a port waiting on the host's card got %d", c)
		}
	}
	if n := a.n.Load(); n != 1 {
		t.Errorf("%d cards for one host on two ports", n)
	}
}

// A command that tries many new hosts at once raises maxCardsInBurst cards, then one folded
// card listing the rest; Deny on it refuses them all and any other new host for a minute.
func TestManyHostsFoldIntoOneCard(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	a := &asker{calls: make(chan Request, 400), answers: make(chan Decision), ended: make(chan error, 400)}
	waiting := make(chan struct{}, 400)
	h := newHarness(t, a.ask, func(s *Server) { s.waiting = func() { waiting <- struct{}{} } })
	const hosts = 40
	codes := make(chan string, hosts)
	for i := range hosts {
		name := fmt.Sprintf("h%d.example", i)
		h.name(name, "192.0.2.1", addr)
		go func() {
			resp, body, _ := connect(t, h.sock, name+":"+port)
			codes <- fmt.Sprint(resp.StatusCode, " ", body)
		}()
	}
	for range hosts {
		<-waiting
	}
	var single, fold []Request
	for range maxCardsInBurst + 1 {
		r := <-a.calls
		if r.Many != nil {
			fold = append(fold, r)
		} else {
			single = append(single, r)
		}
	}
	if len(single) != maxCardsInBurst || len(fold) != 1 {
		t.Fatalf("%d single cards and %d folded, want %d and 1", len(single), len(fold), maxCardsInBurst)
	}
	select {
	case r := <-a.calls:
		t.Fatalf("a card beyond the fold: %+v", r)
	default:
	}
	// Deny the folded card first: every host waiting on it is refused.
	a.answers <- Deny // answers one pending ask; which one is up to the scheduler
	for range maxCardsInBurst {
		a.answers <- Deny
	}
	refusedMany := 0
	for range hosts {
		if c := <-codes; strings.HasPrefix(c, "403") && strings.Contains(c, reasonDeniedMany) {
			refusedMany++
		} else if !strings.HasPrefix(c, "403") {
			t.Errorf("a host got through: %s", c)
		}
	}
	if refusedMany < hosts-maxCardsInBurst {
		t.Errorf("%d hosts refused by the fold, want at least %d", refusedMany, hosts-maxCardsInBurst)
	}
	// A new host within the minute is refused without a card.
	h.name("later.example", "192.0.2.1", addr)
	if resp, body, _ := connect(t, h.sock, "later.example:"+port); resp.StatusCode != 403 || !strings.Contains(body, reasonDeniedMany) {
		t.Errorf("a new host after Deny all: %d %q", resp.StatusCode, body)
	}
	if n := a.n.Load(); n != maxCardsInBurst+1 {
		t.Errorf("%d cards in all, want %d", n, maxCardsInBurst+1)
	}
}

// "Ask about each" on the folded card gives each waiting host its own card.
func TestFoldAskAboutEach(t *testing.T) {
	addr := countServer(t)
	_, port, _ := net.SplitHostPort(addr)
	a := &asker{calls: make(chan Request, 64), answers: make(chan Decision), ended: make(chan error, 64)}
	waiting := make(chan struct{}, 64)
	h := newHarness(t, a.ask, func(s *Server) { s.waiting = func() { waiting <- struct{}{} } })
	now := time.Unix(1_000_000, 0)
	h.s.now = func() time.Time { return now }
	for i := range maxCardsInBurst {
		h.name(fmt.Sprintf("early%d.example", i), "192.0.2.1", addr)
		go func() { <-a.calls; a.answers <- Deny }()
		connect(t, h.sock, fmt.Sprintf("early%d.example:%s", i, port))
	}
	h.name("late.example", "192.0.2.1", addr)
	code := make(chan int, 1)
	go func() { resp, _, _ := connect(t, h.sock, "late.example:"+port); code <- resp.StatusCode }()
	if r := <-a.calls; len(r.Many) != 1 || r.Many[0] != "late.example" {
		t.Fatalf("the sixth card within the burst: %+v", r)
	}
	a.answers <- AllowOnce // ask about each
	if r := <-a.calls; r.Many != nil || r.Host != "late.example" {
		t.Fatalf("after ask about each: %+v", r)
	}
	a.answers <- AllowOnce
	if c := <-code; c != 200 {
		t.Errorf("late.example allowed on its own card: %d", c)
	}
}

// The denied hosts are bounded and age out.
func TestDeniedHostsAreBounded(t *testing.T) {
	c := &conv{denied: map[string]time.Time{}}
	now := time.Unix(1_000_000, 0)
	for i := range maxDenied + 50 {
		c.denyLocked(fmt.Sprintf("h%d.example", i), now.Add(time.Duration(i)*time.Millisecond))
	}
	if len(c.denied) != maxDenied {
		t.Errorf("%d denied hosts kept, want %d", len(c.denied), maxDenied)
	}
	if _, ok := c.denied["h0.example"]; ok {
		t.Error("the oldest denied host was kept past the bound")
	}
	c.denyLocked("new.example", now.Add(2*denyMemory))
	if len(c.denied) != 1 {
		t.Errorf("%d denied hosts kept after the minute, want 1", len(c.denied))
	}
}
