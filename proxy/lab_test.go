package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// The network lab: Project mode's network wall tried on real sockets, real interfaces and the
// system's own resolver, in namespaces of the test's own so the machine is left as it was.
//
//	lab (network + mount namespace)           remote (network namespace)
//	  lo, 127.0.0.1:53  the lab's DNS server
//	  veth0 10.77.0.1  ──────────────────────  veth1 10.77.0.2 (far), 10.77.0.3 (evil)
//	  br0   10.88.0.1/16 (a bridge: containers)  :80 answers "remote <its address>"
//	  :80 on every address answers "local"
//	  /etc/resolv.conf: nameserver 127.0.0.1, search evil.test, ndots:5
//
// The proxy runs in the lab with the system resolver and the real reading of this machine's
// addresses; only the allowed hosts are set. Each hole of issue 40 is a connection that must be
// refused, beside one that must go through so the lab itself is known to work.

// labRole tells a re-run test binary which part of the lab it plays.
const labRole = "PHOENIX_PROXY_LAB_ROLE"

// labNames is what the lab's DNS server answers (A records); anything else does not exist.
var labNames = map[string]string{
	"far.allowed.test.":          "10.77.0.2", // another machine
	"mine.allowed.test.":         "10.77.0.1", // this machine's own (non-loopback) address
	"bridge.allowed.test.":       "10.88.0.5", // a container behind this machine's bridge
	"nx.allowed.test.evil.test.": "10.77.0.3", // what the search list would make of nx.allowed.test
	"allowed.test.evil.test.":    "10.77.0.3", // … and of allowed.test
}

func TestNetworkWallOnRealSockets_REQ_BED_014(t *testing.T) {
	if os.Getenv(labRole) != "" {
		t.Skip("the lab's own run")
	}
	if os.Geteuid() != 0 {
		t.Skip("the network lab needs root for its network and mount namespaces")
	}
	for _, tool := range []string{"unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the network lab needs %s (util-linux, iproute2)", tool)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "unshare", "--net", "--mount", "--propagation", "private",
		os.Args[0], "-test.run=^TestNetworkLab$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), labRole+"=lab")
	out, err := cmd.CombinedOutput()
	t.Logf("the lab:\n%s", out)
	if err != nil {
		t.Fatalf("the lab failed: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestNetworkLab") {
		t.Fatal("the lab did not run")
	}
}

// TestNetworkLab is the lab's side; it runs only inside TestNetworkWallOnRealSockets's
// namespaces.
func TestNetworkLab(t *testing.T) {
	if os.Getenv(labRole) != "lab" {
		t.Skip("runs inside TestNetworkWallOnRealSockets_REQ_BED_014's namespaces")
	}
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	// sysfs shows the interfaces of the namespace that mounted it: the lab's own, so that the
	// proxy can tell br0 is a bridge, as it can on the machine.
	if err := syscall.Mount("sysfs", "/sys", "sysfs", 0, ""); err != nil {
		t.Fatalf("mount the lab's sysfs: %v", err)
	}
	run("ip", "link", "set", "lo", "up")
	remote := startRemote(t)
	run("ip", "link", "add", "veth0", "type", "veth", "peer", "name", "veth1", "netns", fmt.Sprint(remote.pid))
	run("ip", "addr", "add", "10.77.0.1/24", "dev", "veth0")
	run("ip", "link", "set", "veth0", "up")
	run("ip", "link", "add", "br0", "type", "bridge")
	run("ip", "addr", "add", "10.88.0.1/16", "dev", "br0")
	run("ip", "link", "set", "br0", "up")
	remote.start(t)

	// This machine's own service, on every address.
	local, err := net.Listen("tcp", "0.0.0.0:80")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { local.Close() })
	go serveGreeting(local, func(net.Conn) string { return "local" })

	// The lab's resolver: a DNS server on loopback and a resolv.conf with a search list, over
	// the machine's own in this mount namespace only.
	serveLabDNS(t)
	conf := filepath.Join(t.TempDir(), "resolv.conf")
	if err := os.WriteFile(conf, []byte("nameserver 127.0.0.1\nsearch evil.test\noptions ndots:5 attempts:1 timeout:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(conf, "/etc/resolv.conf", "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("bind the lab's resolv.conf: %v", err)
	}

	dir, err := os.MkdirTemp("", "pxlab")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	rules, err := LoadRules(filepath.Join(dir, "allowed-hosts.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []string{"*.allowed.test", "allowed.test"} {
		if err := rules.Allow(testProject, e); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Start(Options{Dir: filepath.Join(dir, "s"), Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	sock, err := s.Listen(testProject, testConv)
	if err != nil {
		t.Fatal(err)
	}
	through := func(target string) (int, string) {
		resp, body, conn := connect(t, sock, target)
		if resp.StatusCode != 200 {
			return resp.StatusCode, body
		}
		b, _ := io.ReadAll(conn)
		return 200, string(b)
	}

	// The lab works: another machine's address is reached by its name.
	if code, body := through("far.allowed.test:80"); code != 200 || body != "remote 10.77.0.2" {
		t.Fatalf("far.allowed.test: %d %q (the lab itself does not work)", code, body)
	}
	// Hole 2: this machine's own LAN address, and a network behind its bridge.
	for _, name := range []string{"mine.allowed.test", "bridge.allowed.test"} {
		if code, body := through(name + ":80"); code != 403 || !strings.Contains(body, "addresses of this machine") {
			t.Errorf("%s (this machine): %d %q, want 403", name, code, body)
		}
	}
	// Hole 3: the search list must not turn an allowed name into another one.
	for _, name := range []string{"nx.allowed.test", "allowed.test"} {
		code, body := through(name + ":80")
		if code == 200 {
			t.Errorf("%s reached %q through the resolver's search list", name, body)
		} else if code != 502 || !strings.Contains(body, "could not resolve") {
			t.Errorf("%s: %d %q, want 502 (no such name)", name, code, body)
		}
	}
	if n := remote.evilConns(); n != 0 {
		t.Errorf("the evil address got %d connections", n)
	}
}

// labRemote is the remote side of the lab: a re-run test binary in a network namespace of its
// own, which configures veth1 when told to and answers on port 80.
type labRemote struct {
	pid   int
	stdin io.WriteCloser
	lines *bufio.Scanner
	ready chan string // the remote side's LAB- lines
	mu    sync.Mutex
	evil  int
}

func startRemote(t *testing.T) *labRemote {
	t.Helper()
	cmd := exec.Command("unshare", "--net", os.Args[0], "-test.run=^TestNetworkLabRemote$", "-test.count=1")
	cmd.Env = append(os.Environ(), labRole+"=remote")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Wait()
	})
	r := &labRemote{pid: cmd.Process.Pid, stdin: stdin, lines: bufio.NewScanner(stdout)}
	// unshare(1) enters the new namespace before it runs the test binary: once the binary
	// speaks, a link moved to its pid lands in the remote namespace, not the lab's.
	r.waitFor(t, "LAB-NS")
	return r
}

// waitFor waits for the remote side's line want, counting its connections meanwhile.
func (r *labRemote) waitFor(t *testing.T, want string) {
	t.Helper()
	if r.ready == nil {
		r.ready = make(chan string, 4)
		go func() {
			for r.lines.Scan() {
				line := r.lines.Text()
				switch {
				case line == "LAB-CONN 10.77.0.3":
					r.mu.Lock()
					r.evil++
					r.mu.Unlock()
				case strings.HasPrefix(line, "LAB-"):
					r.ready <- line
				}
			}
			r.ready <- fmt.Sprintf("LAB-FAIL the remote side ended: %v", r.lines.Err())
		}()
	}
	select {
	case line := <-r.ready:
		if line != want {
			t.Fatalf("the remote side: %s (waiting for %s)", line, want)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the remote side did not say %s within a minute", want)
	}
}

// start tells the remote side that veth1 is there, and waits until it answers.
func (r *labRemote) start(t *testing.T) {
	t.Helper()
	if _, err := io.WriteString(r.stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, "LAB-READY")
}

func (r *labRemote) evilConns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.evil
}

// TestNetworkLabRemote is the lab's remote machine; it runs only inside the lab.
func TestNetworkLabRemote(t *testing.T) {
	if os.Getenv(labRole) != "remote" {
		t.Skip("runs inside TestNetworkWallOnRealSockets_REQ_BED_014's namespaces")
	}
	fmt.Println("LAB-NS")
	in := bufio.NewScanner(os.Stdin)
	if !in.Scan() {
		return
	}
	for _, args := range [][]string{
		{"ip", "link", "set", "lo", "up"},
		{"ip", "addr", "add", "10.77.0.2/24", "dev", "veth1"},
		{"ip", "addr", "add", "10.77.0.3/24", "dev", "veth1"},
		{"ip", "link", "set", "veth1", "up"},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			fmt.Printf("LAB-FAIL %s: %v: %s\n", strings.Join(args, " "), err, out)
			return
		}
	}
	ln, err := net.Listen("tcp", "0.0.0.0:80")
	if err != nil {
		fmt.Printf("LAB-FAIL listen: %v\n", err)
		return
	}
	defer ln.Close()
	go serveGreeting(ln, func(c net.Conn) string {
		ip := c.LocalAddr().(*net.TCPAddr).IP.String()
		fmt.Printf("LAB-CONN %s\n", ip)
		return "remote " + ip
	})
	fmt.Println("LAB-READY")
	for in.Scan() { // until the lab closes stdin
	}
}

// serveGreeting answers each connection with greet's words and closes it.
func serveGreeting(ln net.Listener, greet func(net.Conn) string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = io.WriteString(c, greet(c))
		c.Close()
	}
}

// serveLabDNS answers labNames on 127.0.0.1:53 (UDP): A records for the names it knows, an
// empty answer for their other types, and "no such name" for everything else.
func serveLabDNS(t *testing.T) {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		t.Fatalf("the lab's DNS server: %v", err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			addr, known := labNames[strings.ToLower(q.Name.String())]
			rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true}
			if !known {
				rh.RCode = dnsmessage.RCodeNameError
			}
			b := dnsmessage.NewBuilder(nil, rh)
			b.EnableCompression()
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			if known && q.Type == dnsmessage.TypeA {
				ip := net.ParseIP(addr).To4()
				_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1},
					dnsmessage.AResource{A: [4]byte{ip[0], ip[1], ip[2], ip[3]}})
			}
			msg, err := b.Finish()
			if err == nil {
				_, _ = pc.WriteTo(msg, from)
			}
		}
	}()
}
