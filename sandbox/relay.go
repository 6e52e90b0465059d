//go:build linux

package sandbox

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// The way out of a Project command's network namespace. The namespace has only loopback;
// the supervisor, which lives in it, listens on a loopback port and relays each connection
// to the app's proxy (package proxy), whose unix socket the app hands over with each command
// as a descriptor (so the socket's path, which may lie in a hidden directory, is never
// needed). The command's HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name that port: tools that
// honour them need no name resolution, the proxy resolves names and decides which hosts may
// be reached. A connection made while no Project command runs, or by one without a proxy, is
// closed at once.

// relay is a supervisor's end of the proxy path.
type relay struct {
	ln   net.Listener
	port int

	mu     sync.Mutex
	target string // the proxy socket, as fdPath of its descriptor; "" refuses
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// startRelay listens on a loopback port of the supervisor's network namespace.
func startRelay() (*relay, error) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("project mode: listen for the proxy relay: %w", err)
	}
	r := &relay{ln: ln, port: ln.Addr().(*net.TCPAddr).Port, conns: map[net.Conn]struct{}{}}
	go r.accept()
	return r, nil
}

func (r *relay) accept() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		target := r.target
		if target == "" {
			r.mu.Unlock()
			c.Close()
			continue
		}
		r.conns[c] = struct{}{}
		r.wg.Add(1)
		r.mu.Unlock()
		go r.serve(c, target)
	}
}

// serve copies one connection both ways until either end closes.
func (r *relay) serve(c net.Conn, target string) {
	defer r.wg.Done()
	defer func() {
		r.mu.Lock()
		delete(r.conns, c)
		r.mu.Unlock()
		c.Close()
	}()
	up, err := net.Dial("unix", target)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	<-done
}

// open lets connections through to target (a path to the proxy socket) until closeAll.
func (r *relay) open(target string) {
	r.mu.Lock()
	r.target = target
	r.mu.Unlock()
}

// closeAll refuses new connections and ends the ones still open: the command has ended, and
// its descriptor of the proxy socket is about to be closed.
func (r *relay) closeAll() {
	r.mu.Lock()
	r.target = ""
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// proxyEnv points a command's proxy variables at the relay; loopback stays direct, so a
// command's own servers are reached without the proxy.
func (r *relay) proxyEnv(env []string) []string {
	url := "http://127.0.0.1:" + strconv.Itoa(r.port)
	return withVars(env, map[string]string{
		"HTTP_PROXY": url, "HTTPS_PROXY": url, "ALL_PROXY": url,
		"http_proxy": url, "https_proxy": url, "all_proxy": url,
		"NO_PROXY": "localhost,127.0.0.1,::1", "no_proxy": "localhost,127.0.0.1,::1",
	})
}
