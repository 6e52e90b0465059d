package proxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"
)

// Asking the person about a host: the decision for one connection, the one card that every
// connection to the same host:port waits for, and the watch on a client that may go away
// while it waits.

// decide says whether h:port may be reached from the conversation: by the project's rules,
// by an earlier AllowOnce, or by asking the person (one card per host at a time, folded into
// one when the command tries many hosts at once). A refusal with no reason means the client
// went away or the conversation ended.
func (s *Server) decide(c *conv, conn net.Conn, br *bufio.Reader, h host, port int) (refusal, bool) {
	if _, ok := s.o.Rules.match(c.project, h, port); ok {
		return refusal{}, true
	}
	notAllowed := reasonNotAllowed
	if h.isIP() {
		notAllowed = reasonIPNotAllowed
	}
	hostKey := h.String()
	for {
		s.mu.Lock()
		now := s.now()
		if c.once[h.hostPort(port)] {
			s.mu.Unlock()
			return refusal{}, true
		}
		if t, ok := c.denied[hostKey]; ok && now.Sub(t) < denyMemory {
			s.mu.Unlock()
			return refusal{reason: reasonDeniedRecently}, false
		}
		if !c.deniedAll.IsZero() && now.Sub(c.deniedAll) < denyMemory {
			s.mu.Unlock()
			return refusal{reason: reasonDeniedMany}, false
		}
		if s.o.Ask == nil || c.gone {
			s.mu.Unlock()
			return refusal{reason: notAllowed}, false
		}
		p := c.asks[hostKey]
		folded := false
		switch {
		case p != nil:
		case c.fold != nil || c.burstFullLocked(now):
			p, folded = s.foldLocked(c, h, port), true
		default:
			p = s.startAskLocked(c, h, port, hostKey)
			c.cardTimes = append(c.cardTimes, now)
		}
		if p.ports != nil {
			p.ports[port] = true
		}
		p.waiters++
		s.mu.Unlock()
		if s.waiting != nil {
			s.waiting()
		}

		if !s.await(c, conn, br, p, hostKey, folded) {
			return refusal{}, false
		}
		switch {
		case p.err != nil:
			return refusal{reason: reasonAskFailed(p.err)}, false
		case folded && p.decision == Deny:
			return refusal{reason: reasonDeniedMany}, false
		case folded:
			continue // "ask about each": this host now gets a card of its own
		case p.decision == AllowOnce || p.decision == AllowAlways:
			return refusal{}, true
		default:
			return refusal{reason: reasonDenied}, false
		}
	}
}

// await waits for a card's answer; if the client goes away first it stops waiting, and the
// card is taken away when nobody waits for it any more. It reports whether the answer came.
func (s *Server) await(c *conv, conn net.Conn, br *bufio.Reader, p *pendingAsk, hostKey string, folded bool) bool {
	ctx, stop := watchClient(c.ctx, conn, br)
	defer stop()
	select {
	case <-p.done:
		return true
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p.waiters--
	if p.waiters == 0 {
		p.cancel() // nobody waits for the answer any more: take the card away
		if folded && c.fold == p {
			c.fold = nil
		} else if !folded && c.asks[hostKey] == p {
			delete(c.asks, hostKey)
		}
	}
	return false
}

// burstFullLocked says whether as many cards as a person can read were shown lately.
func (c *conv) burstFullLocked(now time.Time) bool {
	c.cardTimes = slices.DeleteFunc(c.cardTimes, func(t time.Time) bool { return now.Sub(t) >= cardBurst })
	return len(c.cardTimes) >= maxCardsInBurst
}

// startAskLocked shows the card for a host and records the answer for the conversation.
func (s *Server) startAskLocked(c *conv, h host, port int, hostKey string) *pendingAsk {
	ctx, cancel := context.WithCancel(c.ctx)
	p := &pendingAsk{done: make(chan struct{}), cancel: cancel, ports: map[int]bool{}}
	c.asks[hostKey] = p
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel()
		d, err := s.o.Ask(ctx, Request{Project: c.project, Conversation: c.id, Host: hostKey, Port: port})
		s.mu.Lock()
		var keys []string
		for pt := range p.ports {
			keys = append(keys, h.hostPort(pt))
		}
		s.mu.Unlock()
		slices.Sort(keys)
		var notes []string
		if err == nil && d == AllowAlways {
			for _, key := range keys {
				if serr := s.o.Rules.Allow(c.project, key); serr != nil {
					notes = append(notes, fmt.Sprintf("the proxy allowed %s for this conversation only: saving it for the project failed: %v", key, serr))
					d = AllowOnce
				}
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		p.decision, p.err = d, err
		if c.asks[hostKey] == p {
			delete(c.asks, hostKey)
		}
		switch {
		case err != nil:
		case d == AllowOnce:
			for _, key := range keys {
				c.once[key] = true
			}
		case d == AllowAlways:
		default:
			c.denyLocked(hostKey, s.now())
		}
		for _, n := range notes {
			c.noteLocked(n)
		}
		close(p.done)
	}()
	return p
}

// foldLocked adds a host to the folded card, showing it if it is not up yet.
func (s *Server) foldLocked(c *conv, h host, port int) *pendingAsk {
	if p := c.fold; p != nil {
		if !slices.Contains(p.hosts, h.String()) {
			p.hosts = append(p.hosts, h.String())
		}
		return p
	}
	ctx, cancel := context.WithCancel(c.ctx)
	p := &pendingAsk{done: make(chan struct{}), cancel: cancel, hosts: []string{h.String()}}
	c.fold = p
	// The card lists what is waiting when it is shown; hosts that come while it is up wait
	// on it too. The first host is shown at once, so a moment is left for the rest.
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer cancel()
		s.mu.Lock()
		many := slices.Clone(p.hosts)
		s.mu.Unlock()
		d, err := s.o.Ask(ctx, Request{Project: c.project, Conversation: c.id, Host: h.String(), Port: port, Many: many})
		s.mu.Lock()
		defer s.mu.Unlock()
		p.decision, p.err = d, err
		if c.fold == p {
			c.fold = nil
		}
		switch {
		case err != nil:
		case d == Deny:
			c.deniedAll = s.now()
		default:
			c.cardTimes = nil // asked about each: the cards start afresh
		}
		close(p.done)
	}()
	return p
}

// denyLocked remembers a denied host for denyMemory, forgetting the expired ones and, past
// maxDenied, the oldest.
func (c *conv) denyLocked(hostKey string, now time.Time) {
	for k, t := range c.denied {
		if now.Sub(t) >= denyMemory {
			delete(c.denied, k)
		}
	}
	for len(c.denied) >= maxDenied {
		oldest := ""
		for k, t := range c.denied {
			if oldest == "" || t.Before(c.denied[oldest]) {
				oldest = k
			}
		}
		delete(c.denied, oldest)
	}
	c.denied[hostKey] = now
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
