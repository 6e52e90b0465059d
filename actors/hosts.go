package actors

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Project mode's network (issue 24): a command reaches the network only through the app's
// proxy, which listens on a unix socket per conversation and lets through the hosts the person
// allowed for the project. The proxy lives in its own package; the runtime sees it through
// these interfaces, so that it can hand each command its socket, tell the model what the
// proxy refused, and ask the person about a new host without the proxy knowing about actors.

// HostProxy is the app's network proxy as the runtime uses it (*proxy.Server satisfies it).
type HostProxy interface {
	// Listen returns the socket of the proxy for a conversation of the project (its working
	// directory), starting to listen on first use; later calls return the same socket.
	Listen(project, conversation string) (socketPath string, err error)
	// Forget stops listening for a conversation (deleted, or its actor passivated).
	Forget(conversation string)
	// TakeRefusals returns, once, the lines that say which connections of the conversation
	// the proxy refused since the last call, and why.
	TakeRefusals(conversation string) []string
}

// HostRules is the person's allowed hosts per project, as Settings shows and edits them. The
// object behind Config.HostProxy may implement it too; without it Settings shows none.
type HostRules interface {
	AllowedHosts(project string) []string
	// AddHost allows a host (or pattern) for the project; an entry that is no host says so.
	AddHost(project, pattern string) error
	RemoveHost(project, pattern string) error
	// Registries reports whether the project allows the package registries this machine's
	// toolchains are configured with; SetRegistries turns that on or off.
	Registries(project string) bool
	SetRegistries(project string, on bool) error
}

// HostDecision is the person's answer to a host card.
type HostDecision int

const (
	// HostDeny refuses the connection (also the answer when nobody answers).
	HostDeny HostDecision = iota
	// HostAllowOnce lets this connection through and remembers nothing.
	HostAllowOnce
	// HostAllowAlways lets it through and adds the host to the project's allowed list.
	HostAllowAlways
)

// Allowed reports whether the connection may go through.
func (d HostDecision) Allowed() bool { return d == HostAllowOnce || d == HostAllowAlways }

// Remember reports whether the host joins the project's allowed list.
func (d HostDecision) Remember() bool { return d == HostAllowAlways }

func (d HostDecision) String() string {
	switch d {
	case HostAllowOnce:
		return "allow once"
	case HostAllowAlways:
		return "always for this project"
	}
	return "deny"
}

// ParseHostDecision reads the words String writes (and "once", "always"), for the CLI.
func ParseHostDecision(s string) (HostDecision, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "deny", "no":
		return HostDeny, nil
	case "allow once", "once", "allow":
		return HostAllowOnce, nil
	case "always for this project", "always":
		return HostAllowAlways, nil
	}
	return HostDeny, fmt.Errorf("unknown answer %q: use deny, once or always", s)
}

// HostApprovalRequested asks the person whether a command may reach a host it has not been
// allowed to reach. The command keeps running (it waits on its connection) while the card is
// shown; answer with Runtime.AnswerHost and this RequestID. It is not a state of the
// conversation: a HostApprovalAnswered follows, with the answer or because the asking
// connection went away.
type HostApprovalRequested struct {
	ConvID    string
	RequestID string
	Host      string
	Port      int
	// Project is the working directory whose allowed list "Always" adds to.
	Project string
	// Many, when set, makes this the folded card: the command tried these hosts (and more may
	// wait) faster than a person can answer one card each. HostDeny refuses them all and any
	// other new host for a minute; HostAllowOnce means "ask about each": every host then gets
	// a card of its own. Host and Port are the first of them.
	Many []string
}

// HostApprovalAnswered closes a host card: answered by the person or the CLI, or Withdrawn
// because the connection that asked ended first (the command was stopped or timed out).
type HostApprovalAnswered struct {
	ConvID    string
	RequestID string
	Decision  HostDecision
	Withdrawn bool
}

func (e HostApprovalRequested) Conversation() string { return e.ConvID }
func (e HostApprovalAnswered) Conversation() string  { return e.ConvID }

// ErrNoHostRequest answers a host decision that matches no open request: already answered,
// or its connection has gone.
var ErrNoHostRequest = errors.New("no connection is waiting for this answer: it was answered already or the command ended")

// hostAsks holds the host cards waiting for an answer, by request id.
type hostAsks struct {
	mu      sync.Mutex
	pending map[string]hostAsk
}

type hostAsk struct {
	conv   string
	answer chan HostDecision // buffered: AnswerHost never blocks
}

// AskHost asks the person whether a command of the conversation may reach host:port, and
// waits for the answer or for ctx's end (then HostDeny and ctx's error). The proxy calls it
// from the connection's goroutine, never an actor's.
func (r *Runtime) AskHost(ctx context.Context, project, conversation, host string, port int) (HostDecision, error) {
	return r.askHost(ctx, HostApprovalRequested{ConvID: conversation, Host: host, Port: port, Project: project})
}

// AskManyHosts shows the folded card (HostApprovalRequested.Many) for hosts, the first of
// which asked for port, and waits as AskHost does.
func (r *Runtime) AskManyHosts(ctx context.Context, project, conversation string, hosts []string, port int) (HostDecision, error) {
	if len(hosts) == 0 {
		return HostDeny, errors.New("AskManyHosts: no hosts")
	}
	return r.askHost(ctx, HostApprovalRequested{ConvID: conversation, Host: hosts[0], Port: port, Project: project, Many: hosts})
}

func (r *Runtime) askHost(ctx context.Context, req HostApprovalRequested) (HostDecision, error) {
	if r.stopped.Load() {
		return HostDeny, ErrStopped
	}
	id := newID()
	conversation := req.ConvID
	req.RequestID = id
	ask := hostAsk{conv: conversation, answer: make(chan HostDecision, 1)}
	r.hosts.mu.Lock()
	if r.hosts.pending == nil {
		r.hosts.pending = map[string]hostAsk{}
	}
	r.hosts.pending[id] = ask
	r.hosts.mu.Unlock()
	r.publish(req)
	select {
	case d := <-ask.answer:
		return d, nil
	case <-ctx.Done():
		if r.takeHostAsk(id) {
			r.publish(HostApprovalAnswered{ConvID: conversation, RequestID: id, Decision: HostDeny, Withdrawn: true})
			return HostDeny, ctx.Err()
		}
		// Answered at the same moment: the answer stands.
		return <-ask.answer, nil
	}
}

// AnswerHost answers a host card (HostApprovalRequested). A second answer, or one after the
// connection ended, is ErrNoHostRequest.
func (r *Runtime) AnswerHost(requestID string, d HostDecision) error {
	r.hosts.mu.Lock()
	ask, ok := r.hosts.pending[requestID]
	delete(r.hosts.pending, requestID)
	r.hosts.mu.Unlock()
	if !ok {
		return ErrNoHostRequest
	}
	ask.answer <- d
	r.publish(HostApprovalAnswered{ConvID: ask.conv, RequestID: requestID, Decision: d})
	return nil
}

// takeHostAsk removes an open request and reports whether it was still open.
func (r *Runtime) takeHostAsk(id string) bool {
	r.hosts.mu.Lock()
	defer r.hosts.mu.Unlock()
	_, ok := r.hosts.pending[id]
	delete(r.hosts.pending, id)
	return ok
}

// ErrNoHostRules says the runtime has no proxy whose allowed hosts could be shown or changed.
var ErrNoHostRules = errors.New("the network proxy is not running in this session, so there are no allowed hosts to change")

func (r *Runtime) hostRules() (HostRules, bool) {
	hr, ok := r.cfg.HostProxy.(HostRules)
	if !ok {
		return nil, false
	}
	// A proxy started on first use says here whether it runs.
	if lazy, isLazy := hr.(interface{ Available() bool }); isLazy && !lazy.Available() {
		return nil, false
	}
	return hr, true
}

// HostRulesAvailable reports whether Settings can show and edit the allowed hosts.
func (r *Runtime) HostRulesAvailable() bool {
	_, ok := r.hostRules()
	return ok
}

// AllowedHosts lists the hosts a project's commands may reach in Project mode.
func (r *Runtime) AllowedHosts(project string) []string {
	if hr, ok := r.hostRules(); ok {
		return hr.AllowedHosts(project)
	}
	return nil
}

// AddHost allows a host (or pattern) for a project's commands in Project mode (Settings →
// Allowed hosts).
func (r *Runtime) AddHost(project, pattern string) error {
	hr, ok := r.hostRules()
	if !ok {
		return ErrNoHostRules
	}
	return hr.AddHost(project, pattern)
}

// RemoveHost takes a host (or pattern) off a project's allowed list.
func (r *Runtime) RemoveHost(project, pattern string) error {
	hr, ok := r.hostRules()
	if !ok {
		return ErrNoHostRules
	}
	return hr.RemoveHost(project, pattern)
}

// Registries reports whether a project allows this machine's package registries.
func (r *Runtime) Registries(project string) bool {
	hr, ok := r.hostRules()
	return ok && hr.Registries(project)
}

// SetRegistries allows (or stops allowing) this machine's package registries for a project.
func (r *Runtime) SetRegistries(project string, on bool) error {
	hr, ok := r.hostRules()
	if !ok {
		return ErrNoHostRules
	}
	return hr.SetRegistries(project, on)
}

// withProxy gives a Project-mode environment the proxy's socket for the conversation. It may
// do I/O (the proxy starts listening), so workers call it, never the mailbox. Without a proxy,
// or when it cannot listen, the command runs with no network at all and the person is told.
func (r *Runtime) withProxy(convID string, env tools.Env) tools.Env {
	if env.Mode != domain.ModeProject || r.cfg.HostProxy == nil {
		return env
	}
	sock, err := r.cfg.HostProxy.Listen(env.Cwd, convID)
	if err != nil {
		r.publish(Notice{ConvID: convID, Level: NoticeWarning,
			Text: "The network proxy could not listen for this conversation, so its commands run without network: " + err.Error()})
		return env
	}
	env.ProxySocket = sock
	return env
}

// withRefusals appends what the proxy refused during a bash or fetch_url run to its result,
// so that the model learns why a connection failed instead of guessing from a tool's error
// message. fetch_url's result usually quotes the proxy's line already; it is not repeated,
// but it is taken, so that a later command's result does not report it again.
func (r *Runtime) withRefusals(convID string, env tools.Env, res domain.ToolResult) domain.ToolResult {
	if env.Mode != domain.ModeProject || r.cfg.HostProxy == nil || (res.Name != domain.ToolBash && res.Name != domain.ToolFetchURL) {
		return res
	}
	res.Content = tools.WithRefusals(res.Content, r.cfg.HostProxy.TakeRefusals(convID))
	return res
}
