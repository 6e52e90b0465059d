package remotetest

import (
	"net"
	"sync"
	"time"
)

// delayRelay stands between ssh and sshd where tc's netem cannot (a kernel without sch_netem,
// or no right to make namespaces): it accepts on a port of 127.0.0.1 of its own, connects each
// client to the server, and holds every chunk of bytes for the delay in each direction before
// passing it on, in the order read — what netem does to each packet, seen from the two ends.
// The end of a stream is passed on after the bytes before it (a half close), and a broken
// side closes the other, as over a network.
type delayRelay struct {
	ln     net.Listener
	target string
	delay  time.Duration

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// startRelay listens on a free port of 127.0.0.1 and relays to target with delay each way.
func startRelay(target string, delay time.Duration) (*delayRelay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &delayRelay{ln: ln, target: target, delay: delay, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// port is the relay's own port, where clients connect.
func (r *delayRelay) port() int { return r.ln.Addr().(*net.TCPAddr).Port }

func (r *delayRelay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go r.serve(c)
	}
}

// track records the connections of a pair so that close can end them; false once closed.
func (r *delayRelay) track(cs ...net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	for _, c := range cs {
		r.conns[c] = struct{}{}
	}
	return true
}

func (r *delayRelay) untrack(cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		delete(r.conns, c)
	}
}

// serve relays one client to a connection of its own to the server, both ways at once.
func (r *delayRelay) serve(client net.Conn) {
	defer r.wg.Done()
	server, err := net.Dial("tcp", r.target)
	if err != nil {
		_ = client.Close()
		return
	}
	defer func() {
		r.untrack(client, server)
		_ = client.Close()
		_ = server.Close()
	}()
	if !r.track(client, server) {
		return
	}
	var both sync.WaitGroup
	both.Go(func() { r.pipe(server, client) })
	both.Go(func() { r.pipe(client, server) })
	both.Wait()
}

// chunk is bytes read from one side and the time they are due on the other.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe passes what src sends to dst, each chunk delay after it was read and in the same
// order (one reader, one writer, a queue between them: a chunk read while an earlier one
// waits is not held longer); the end of src reaches dst after the bytes before it.
func (r *delayRelay) pipe(dst, src net.Conn) {
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{buf[:n], time.Now().Add(r.delay)}
			}
			if err != nil {
				return
			}
		}
	}()
	broken := false
	for c := range q {
		if broken {
			continue // the reader ends now that src is closed; drain what it queued
		}
		if wait := time.Until(c.due); wait > 0 {
			<-time.NewTimer(wait).C
		}
		if _, err := dst.Write(c.data); err != nil {
			// The other side is gone: so is this pair, as a reset ends both directions.
			broken = true
			_ = dst.Close()
			_ = src.Close()
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok && !broken {
		_ = tc.CloseWrite()
	}
}

// close stops accepting, ends every relayed connection and waits until all have stopped.
func (r *delayRelay) close() {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		_ = c.Close()
	}
	r.mu.Unlock()
	_ = r.ln.Close()
	r.wg.Wait()
}
