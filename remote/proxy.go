package remote

import (
	"context"
	"errors"
	"fmt"
	"net/rpc"
	"os"
	"sync"

	"github.com/phoenix-desktop/phoenix/proxy"
)

// Project mode's network for a remote conversation. The command runs on the remote machine,
// so its proxy must run there too: the sandbox relays the command's loopback port to a unix
// socket on the same machine. The agent starts the same proxy package the app runs locally,
// one socket per conversation, and the command's network wall points at it as locally.
//
// Asking the person about a new host goes the other way from every other call: the agent
// asks, the app answers. net/rpc only lets the app call the agent, so the app keeps one call,
// Proxy.NextQuestion, waiting on the agent for each connection, and answers each question
// with Proxy.Answer. This needs no second stream, no second RPC direction and no change to
// the framing: a waiting net/rpc call costs one goroutine on each side, and when the
// connection drops the agent's context ends, which answers every waiting question with an
// error — the proxy refuses the host, exactly as when the person denies it.

// proxyService is the name of the agent's net/rpc service for the proxy's questions.
const proxyService = "Proxy"

// remoteRulesFile is where the agent keeps the allowed hosts of the projects on its machine
// (in the remote user's configuration directory): the projects live there, so their
// "always" answers are kept there.
const remoteRulesFile = "remote-network.json"

// Question is one card the agent's proxy asks the app to show, or, with Withdrawn, the
// withdrawal of an earlier one (every connection that waited for it went away).
type Question struct {
	ID        uint64
	Withdrawn bool
	Request   proxy.Request
}

// AnswerArgs is the person's answer to a Question.
type AnswerArgs struct {
	ID       uint64
	Decision proxy.Decision
	// Err, when set, says the card could not be shown or answered; the host is refused.
	Err string
}

// questions passes the proxy's questions to the app's waiting NextQuestion calls and their
// answers back.
type questions struct {
	ctx  context.Context // ends when the session ends: every waiting question is refused
	send chan Question

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan AnswerArgs
}

func newQuestions(ctx context.Context) *questions {
	return &questions{ctx: ctx, send: make(chan Question), waiting: map[uint64]chan AnswerArgs{}}
}

// errSessionEnded is why a question waiting when the connection to the app ended is refused.
var errSessionEnded = errors.New("the connection to the app ended before the person answered")

// ask is the agent proxy's Asker: it hands the question to the app and waits for the answer.
func (q *questions) ask(ctx context.Context, r proxy.Request) (proxy.Decision, error) {
	q.mu.Lock()
	q.next++
	id := q.next
	ch := make(chan AnswerArgs, 1)
	q.waiting[id] = ch
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		delete(q.waiting, id)
		q.mu.Unlock()
	}()
	select {
	case q.send <- Question{ID: id, Request: r}:
	case <-ctx.Done():
		return proxy.Deny, ctx.Err()
	case <-q.ctx.Done():
		return proxy.Deny, errSessionEnded
	}
	select {
	case a := <-ch:
		if a.Err != "" {
			return proxy.Deny, errors.New(a.Err)
		}
		return a.Decision, nil
	case <-ctx.Done():
		// Nobody waits for this host any more: the app takes its card away.
		select {
		case q.send <- Question{ID: id, Withdrawn: true}:
		case <-q.ctx.Done():
		}
		return proxy.Deny, ctx.Err()
	case <-q.ctx.Done():
		return proxy.Deny, errSessionEnded
	}
}

// Proxy is the net/rpc service through which the app hears the proxy's questions.
type Proxy struct{ q *questions }

// NextQuestion waits for the next question (or withdrawal); it fails when the session ends.
func (p *Proxy) NextQuestion(_ Empty, reply *Question) error {
	select {
	case q := <-p.q.send:
		*reply = q
		return nil
	case <-p.q.ctx.Done():
		return errSessionEnded
	}
}

// Answer passes the person's answer on; an answer to a question that is no longer waiting
// (withdrawn meanwhile) is no error.
func (p *Proxy) Answer(a AnswerArgs, _ *Empty) error {
	p.q.mu.Lock()
	ch := p.q.waiting[a.ID]
	p.q.mu.Unlock()
	if ch != nil {
		select {
		case ch <- a:
		default: // answered twice: the first answer stands
		}
	}
	return nil
}

// proxySocket starts the agent's proxy on first use, when the app said it can ask the person,
// and returns the conversation's socket.
func (a *agent) proxySocket(project, conv string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return "", errors.New("the remote agent is shutting down")
	}
	if a.proxy == nil {
		rules, err := a.networkRules()
		if err != nil {
			return "", err
		}
		// A unix socket's path is short (107 bytes): a fresh private directory under /tmp.
		dir, err := os.MkdirTemp("", "phoenix-proxy-")
		if err != nil {
			return "", fmt.Errorf("could not make a directory for the network proxy on the remote machine: %w", err)
		}
		o := proxy.Options{Dir: dir, Rules: rules}
		if a.asks {
			o.Ask = a.questions.ask
		}
		srv, err := proxy.Start(o)
		if err != nil {
			_ = os.RemoveAll(dir)
			return "", err
		}
		a.proxy, a.proxyDir = srv, dir
	}
	return a.proxy.Listen(project, conv)
}

// refusals takes the lines saying which connections of the conversation the proxy refused.
func (a *agent) refusals(conv string) []string {
	a.mu.Lock()
	srv := a.proxy
	a.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.TakeRefusals(conv)
}

// closeProxy stops the proxy, refusing what waits, and removes its sockets.
func (a *agent) closeProxy() {
	a.mu.Lock()
	srv, dir := a.proxy, a.proxyDir
	a.proxy = nil
	a.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
		_ = os.RemoveAll(dir)
	}
}

// askLoop, on the app's side, keeps one NextQuestion call waiting on the agent and shows each
// question with ask; it ends when the connection does, and every card it showed is taken away.
func askLoop(ctx context.Context, c *rpc.Client, ask proxy.Asker, wg *sync.WaitGroup) {
	defer wg.Done()
	var mu sync.Mutex
	cards := map[uint64]context.CancelFunc{}
	for {
		var q Question
		if err := c.Call(proxyService+".NextQuestion", Empty{}, &q); err != nil {
			return
		}
		mu.Lock()
		if q.Withdrawn {
			if cancel := cards[q.ID]; cancel != nil {
				cancel()
			}
			mu.Unlock()
			continue
		}
		qctx, cancel := context.WithCancel(ctx)
		cards[q.ID] = cancel
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				delete(cards, q.ID)
				mu.Unlock()
				cancel()
			}()
			d, err := ask(qctx, q.Request)
			a := AnswerArgs{ID: q.ID, Decision: d}
			if err != nil {
				a.Err = err.Error()
			}
			if qctx.Err() != nil {
				return // withdrawn, or the connection ended: nobody waits for the answer
			}
			c.Go(proxyService+".Answer", a, &Empty{}, make(chan *rpc.Call, 1))
		}()
	}
}
