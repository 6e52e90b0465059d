package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Client is one live connection to a remote machine and the agent running there.
type Client struct {
	opts    Options
	sshPath string
	ctlPath string
	info    Info

	agent     *exec.Cmd
	agentDone chan struct{}
	agentErr  boundedBuffer
	rpc       *rpc.Client

	// askCtx ends with the connection: the cards it showed are taken away; asking is the
	// question loop and its cards (proxy.go), waited for by Close.
	askCtx    context.Context
	askCancel context.CancelFunc
	asking    sync.WaitGroup
	// langs is the language servers' states the agent reports (lsp.go's watchLoop, also
	// waited for by Close through asking).
	langs languageStates

	lostOnce sync.Once
	lost     chan struct{}
	closed   atomic.Bool
	nextID   atomic.Uint64
}

// ErrConnectionLost is the error of a call whose connection dropped: retryable, after a new Dial.
var ErrConnectionLost = errors.New("the connection to the remote machine was lost")

// rpcStream is the agent's standard output and input as one connection.
type rpcStream struct {
	io.Reader
	io.WriteCloser
}

func newRPCClient(r io.Reader, w io.WriteCloser) *rpc.Client {
	return rpc.NewClient(rpcStream{r, w})
}

// Info is what Dial found on the remote side.
func (c *Client) Info() Info { return c.info }

// Destination is the host as the person named it.
func (c *Client) Destination() string { return c.opts.Destination }

// Lost is closed when the connection has dropped (or was closed).
func (c *Client) Lost() <-chan struct{} { return c.lost }

func (c *Client) markLost() {
	c.lostOnce.Do(func() {
		close(c.lost)
		if c.askCancel != nil {
			c.askCancel()
		}
	})
}

// Ping makes one round trip to the agent and back: the connection's own latency, which the
// bench compares a remote tool round with.
func (c *Client) Ping(ctx context.Context) error {
	call := c.rpc.Go(agentService+".Ping", Empty{}, &Empty{}, make(chan *rpc.Call, 1))
	select {
	case <-call.Done:
		if call.Error != nil {
			return fmt.Errorf("%w: %w", ErrConnectionLost, call.Error)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Call is where a tool call runs on the remote side.
type Call struct {
	// Conversation keys the call's private temp dir there.
	Conversation string
	// Cwd is the working directory on the remote machine.
	Cwd         string
	Mode        domain.Mode
	ImageLimits imaging.Limits
	// LanguageServers configures the conversation's language servers there (lsp.go); nil
	// when they are off.
	LanguageServers *LanguageServers
}

// cancelGrace bounds the wait for the agent's answer after a cancel was sent: the agent's tool
// answers as soon as the command's group is dead, one round trip; past this the connection is
// treated as broken and closed, so the agent kills what runs there when its input ends.
const cancelGrace = 3 * time.Second

// Run runs one tool call on the remote machine and returns its output. Cancelling ctx sends a
// cancel to the agent at once — one round trip to the command's process group — and Run
// returns when the agent confirms, or after cancelGrace with the connection closed. A dropped
// connection is an error output wrapping ErrConnectionLost (see LostOutput); Run never waits
// past the loss of the connection.
func (c *Client) Run(ctx context.Context, where Call, call domain.ToolCall) (tools.Output, error) {
	select {
	case <-c.lost:
		return LostOutput(c.opts.Destination, false), ErrConnectionLost
	default:
	}
	id := strconv.FormatUint(c.nextID.Add(1), 10)
	args := RunArgs{ID: id, Conversation: where.Conversation, Tool: call.Name, Arguments: call.Arguments,
		Cwd: where.Cwd, Mode: string(where.Mode), ImageLimits: where.ImageLimits, LanguageServers: where.LanguageServers}
	var reply RunReply
	pending := c.rpc.Go(agentService+".Run", args, &reply, make(chan *rpc.Call, 1))
	select {
	case <-pending.Done:
		return c.answer(pending, reply, false)
	case <-ctx.Done():
	}
	c.rpc.Go(agentService+".Cancel", CancelArgs{ID: id}, &Empty{}, make(chan *rpc.Call, 1))
	t := time.NewTimer(cancelGrace)
	defer t.Stop()
	select {
	case <-pending.Done:
		return c.answer(pending, reply, true)
	case <-t.C:
		c.Close()
		return tools.Output{Outcome: domain.OutcomeCancelled,
			Content: "Cancelled; " + c.opts.Destination + " did not confirm in time, so Phoenix closed the connection, which stops the command there."}, nil
	}
}

// answer turns a finished call into the tool's output.
func (c *Client) answer(call *rpc.Call, reply RunReply, cancelled bool) (tools.Output, error) {
	var serverErr rpc.ServerError
	switch {
	case call.Error == nil:
		return reply.Output, nil
	case errors.As(call.Error, &serverErr):
		return tools.Output{Outcome: domain.OutcomeError, Content: fmt.Sprintf("On %s: %s.", c.opts.Destination, string(serverErr))}, nil
	}
	// Anything else is the stream ending: the connection or the agent is gone.
	c.markLost()
	return LostOutput(c.opts.Destination, cancelled), ErrConnectionLost
}

// LostOutput is the tool output of a call whose connection dropped while it ran.
func LostOutput(dest string, cancelled bool) tools.Output {
	if cancelled {
		return tools.Output{Outcome: domain.OutcomeCancelled, Content: "Cancelled; the connection to " + dest + " dropped at the same time, which stops the command there."}
	}
	return tools.Output{Outcome: domain.OutcomeError,
		Content: "The connection to " + dest + " was lost while this ran, so the command was stopped there and its result is lost. Phoenix reconnects on the next call; run it again if it is still needed."}
}

// closeWait bounds how long Close waits for each ssh process after asking it to end.
const closeWait = 2 * time.Second

// Close ends the agent's session (its input ends, so it stops what it runs and exits) and waits
// for it. The host's master connection stays for later connections (EndMaster ends it).
func (c *Client) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	if c.rpc != nil {
		_ = c.rpc.Close() // closes the agent's input
	}
	if c.agent != nil {
		endProcess(c.agent, c.agentDone)
	}
	c.markLost()
	c.asking.Wait()
	return nil
}

// endProcess waits for a process that was asked to end, then terminates and at last kills it.
func endProcess(cmd *exec.Cmd, done <-chan struct{}) {
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			_ = cmd.Process.Signal(sig)
		}
		t := time.NewTimer(closeWait)
		select {
		case <-done:
			t.Stop()
			return
		case <-t.C:
		}
	}
	<-done
}
