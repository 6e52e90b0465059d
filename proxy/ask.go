package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"time"
)

// Asking the person about a host: the decision for one connection, the one card that every
// connection to the same host:port waits for, and the watch on a client that may go away
// while it waits.

// decide says whether h:port may be reached from the conversation: by the project's rules,
// by an earlier AllowOnce, or by asking the person (one card per host:port at a time). A
// refusal with no reason means the client went away or the conversation ended.
func (s *Server) decide(c *conv, conn net.Conn, br *bufio.Reader, h host, port int) (refusal, bool) {
	if _, ok := s.o.Rules.match(c.project, h, port); ok {
		return refusal{}, true
	}
	key := h.hostPort(port)
	notAllowed := reasonNotAllowed
	if h.isIP() {
		notAllowed = reasonIPNotAllowed
	}
	s.mu.Lock()
	if c.once[key] {
		s.mu.Unlock()
		return refusal{}, true
	}
	if t, ok := c.denied[key]; ok && s.now().Sub(t) < denyMemory {
		s.mu.Unlock()
		return refusal{reason: reasonDeniedRecently}, false
	}
	if s.o.Ask == nil || c.gone {
		s.mu.Unlock()
		return refusal{reason: notAllowed}, false
	}
	p := c.asks[key]
	if p == nil {
		p = s.startAskLocked(c, h, port, key)
	}
	p.waiters++
	s.mu.Unlock()
	if s.waiting != nil {
		s.waiting()
	}

	ctx, stop := watchClient(c.ctx, conn, br)
	defer stop()
	select {
	case <-p.done:
	case <-ctx.Done():
		s.mu.Lock()
		p.waiters--
		if p.waiters == 0 {
			p.cancel() // nobody waits for the answer any more: take the card away
			if c.asks[key] == p {
				delete(c.asks, key)
			}
		}
		s.mu.Unlock()
		return refusal{}, false
	}
	switch {
	case p.err != nil:
		return refusal{reason: reasonAskFailed(p.err)}, false
	case p.decision == AllowOnce || p.decision == AllowAlways:
		return refusal{}, true
	default:
		return refusal{reason: reasonDenied}, false
	}
}

// startAskLocked shows the card for key and records the answer for the conversation.
func (s *Server) startAskLocked(c *conv, h host, port int, key string) *pendingAsk {
	ctx, cancel := context.WithCancel(c.ctx)
	p := &pendingAsk{done: make(chan struct{}), cancel: cancel}
	c.asks[key] = p
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel()
		d, err := s.o.Ask(ctx, Request{Project: c.project, Conversation: c.id, Host: h.String(), Port: port})
		note := ""
		if err == nil && d == AllowAlways {
			if serr := s.o.Rules.Allow(c.project, key); serr != nil {
				note = fmt.Sprintf("the proxy allowed %s for this conversation only: saving it for the project failed: %v", key, serr)
				d = AllowOnce
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p.decision, p.err = d, err
		if c.asks[key] == p {
			delete(c.asks, key)
		}
		switch {
		case err != nil:
		case d == AllowOnce:
			c.once[key] = true
		case d == AllowAlways:
		default:
			c.denied[key] = s.now()
		}
		if note != "" {
			c.noteLocked(note)
		}
		close(p.done)
	}()
	return p
}

// watchClient returns a context that ends when the client closes its connection while it
// waits for an answer; stop ends the watch and leaves the connection as it was (a byte the
// client sent meanwhile stays in br).
func watchClient(parent context.Context, conn net.Conn, br *bufio.Reader) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := br.Peek(1); err != nil {
			var ne net.Error
			if !errors.As(err, &ne) || !ne.Timeout() {
				cancel()
			}
		}
	}()
	return ctx, func() {
		_ = conn.SetReadDeadline(time.Unix(1, 0)) // wakes the Peek
		<-done
		_ = conn.SetReadDeadline(time.Time{})
		cancel()
	}
}
