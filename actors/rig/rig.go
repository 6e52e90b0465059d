package rig

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Options adjust the environment; the zero value is the standard one.
type Options struct {
	// Logger receives the runtime's and the store's logs; nil discards them.
	Logger *slog.Logger
	// LLM adjusts the client's configuration (timeouts, for example) before it is built.
	LLM func(*llm.Config)
	// Runtime adjusts the runtime's configuration (wrap the client or the tools, set a
	// deadline) before it starts.
	Runtime func(*actors.Config)
	// DemoServer starts the fake server as the app's offline demo, which records no request,
	// for measurements of memory over many turns.
	DemoServer bool
}

// Env is a running runtime with everything it stands on.
type Env struct {
	// DataDir holds the store; Cwd is an empty directory for conversations to work in.
	DataDir, Cwd string
	Store        *persistence.Store
	Server       *fakellm.Server
	Client       *llm.Client
	Runtime      *actors.Runtime
	// Events follows every event of the runtime from its start.
	Events *actors.Subscription
}

// Start builds and starts an environment in fresh temporary directories. Close it when done.
func Start(o Options) (*Env, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	e := &Env{}
	var err error
	if e.DataDir, err = os.MkdirTemp("", "phoenix-test-data-"); err != nil {
		return nil, err
	}
	if e.Cwd, err = os.MkdirTemp("", "phoenix-test-cwd-"); err != nil {
		e.Close()
		return nil, err
	}
	if e.Store, err = persistence.Open(e.DataDir, persistence.Options{Logger: log}); err != nil {
		e.Close()
		return nil, err
	}
	start := fakellm.Start
	if o.DemoServer {
		start = fakellm.StartDemo
	}
	if e.Server, err = start(); err != nil {
		e.Close()
		return nil, err
	}
	cfg := llm.Config{BaseURL: e.Server.URL(), APIKey: "test", Model: domain.DemoModel}
	if o.LLM != nil {
		o.LLM(&cfg)
	}
	if e.Client, err = llm.New(cfg, e.Store); err != nil {
		e.Close()
		return nil, err
	}
	rc := actors.Config{Store: e.Store, LLM: e.Client, Tools: tools.NewRegistry(), Sandbox: sandbox.Describe(),
		Logger: log, DefaultModel: domain.DemoModel, TempRoot: filepath.Join(e.DataDir, "sandbox-tmp")}
	if o.Runtime != nil {
		o.Runtime(&rc)
	}
	if e.Runtime, err = actors.Start(rc); err != nil {
		e.Close()
		return nil, err
	}
	e.Events = e.Runtime.Subscribe()
	return e, nil
}

// Close stops the runtime, the server and the store, and removes the directories.
func (e *Env) Close() {
	if e.Events != nil {
		e.Events.Close()
	}
	if e.Runtime != nil {
		e.Runtime.Shutdown()
	}
	if e.Server != nil {
		e.Server.Close()
	}
	if e.Store != nil {
		_ = e.Store.Close() // a test that cares checks the store itself before closing
	}
	for _, d := range []string{e.DataDir, e.Cwd} {
		if d != "" {
			_ = os.RemoveAll(d)
		}
	}
}

// WaitFor waits, at most the timeout, for a state change of the conversation that
// satisfies ok, reading Events.
func (e *Env) WaitFor(ctx context.Context, id string, timeout time.Duration, ok func(domain.Conversation) bool) (domain.Conversation, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case ev, open := <-e.Events.Events():
			if !open {
				return domain.Conversation{}, fmt.Errorf("the event stream closed while waiting for %s", id)
			}
			if sc, is := ev.(actors.StateChanged); is && sc.Conv.ID == id && ok(sc.Conv) {
				return sc.Conv, nil
			}
		case <-t.C:
			return domain.Conversation{}, fmt.Errorf("conversation %s did not reach the awaited state within %s", id, timeout)
		case <-ctx.Done():
			return domain.Conversation{}, ctx.Err()
		}
	}
}

// Turn sends a message and waits until the conversation rests in Idle.
func (e *Env) Turn(ctx context.Context, id, text string, timeout time.Duration) (domain.Conversation, error) {
	if err := e.Runtime.Send(ctx, id, text, nil); err != nil {
		return domain.Conversation{}, err
	}
	c, err := e.WaitFor(ctx, id, timeout, func(c domain.Conversation) bool { return !domain.Busy(c.State) })
	if err == nil && c.State.Kind() != domain.StateIdle {
		err = fmt.Errorf("the turn ended in %s", c.State.Kind())
	}
	return c, err
}
