package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// benchMCPServer is the echo server (this binary started again) as a conversation sees it.
func benchMCPServer() (mcp.Config, error) {
	exe, err := os.Executable()
	if err != nil {
		return mcp.Config{}, err
	}
	return mcp.Config{Servers: map[string]mcp.ServerConfig{"bench": {Command: exe, Args: []string{EchoServerArg}}}}, nil
}

// mcpRound measures rounds of MCP calls through the whole runtime, as toolRound does for bash:
// the gap between a model answer and the next request holds the call and everything around it.
func mcpRound(ctx context.Context, o Options) ([]float64, error) {
	cfg, err := benchMCPServer()
	if err != nil {
		return nil, err
	}
	return mcpRoundWith(ctx, o, cfg, `mcp: bench echo {"text":"x"}`)
}

// mcpRoundWith measures rounds of call, one model step each calling the server with line
// (a demo-model line: "mcp: SERVER TOOL {JSON}").
func mcpRoundWith(ctx context.Context, o Options, cfg mcp.Config, call string) ([]float64, error) {
	e := &env{}
	inner, err := rig.Start(rig.Options{Runtime: func(c *actors.Config) {
		e.client = &timedClient{inner: c.LLM}
		c.LLM = e.client
		c.MCP = mcp.FixedHub(cfg, mcp.Options{})
	}})
	if err != nil {
		return nil, err
	}
	e.Env = inner
	defer e.close()
	conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: !sandbox.Probe().Available})
	if err != nil {
		return nil, err
	}
	rounds := samplesOf(o, 60, 8) + 1
	if _, err := e.turn(ctx, conv.ID, strings.Repeat(call+"\n", rounds)); err != nil {
		return nil, err
	}
	_, msgs, err := e.Store.Load(conv.ID)
	if err != nil {
		return nil, err
	}
	for _, m := range msgs {
		if m.Kind == domain.KindToolResult && m.ToolResult.Outcome != domain.OutcomeSuccess {
			return nil, fmt.Errorf("an MCP call failed: %s", m.ToolResult.Content)
		}
	}
	e.client.mu.Lock()
	defer e.client.mu.Unlock()
	var out []float64
	// The first round also waits for the server to start (servers start in the background
	// when the conversation opens): the rows measure a running server, so it is left out.
	for i := 2; i < len(e.client.starts) && i-1 < len(e.client.ends); i++ {
		out = append(out, ms(e.client.starts[i].Sub(e.client.ends[i-1])))
	}
	return out, nil
}

// mcpStart measures starting the echo server for a conversation until its tools are listed.
func mcpStart(ctx context.Context, o Options) ([]float64, error) {
	cfg, err := benchMCPServer()
	if err != nil {
		return nil, err
	}
	return mcpStartWith(ctx, o, cfg)
}

// mcpStartWith measures starting cfg's one server for a new conversation until its tools are
// listed.
func mcpStartWith(ctx context.Context, o Options, cfg mcp.Config) ([]float64, error) {
	cwd, err := os.MkdirTemp("", "phoenix-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cwd)
	mode := domain.ModeRestricted
	if !sandbox.Probe().Available {
		mode = domain.ModeUnrestricted
	}
	hub := mcp.FixedHub(cfg, mcp.Options{})
	var out []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		set := hub.NewSet(cwd)
		start := time.Now()
		env := tools.Env{Cwd: cwd, Mode: mode, TempDir: cwd}
		set.Start(env)
		set.WaitStarted(ctx)
		specs, notes, _ := set.Tools(ctx, env)
		took := time.Since(start)
		set.Close()
		if len(specs) == 0 {
			return out, fmt.Errorf("the MCP server did not start: %v", notes)
		}
		out = append(out, ms(took))
	}
	return out, nil
}

// mcpSilentRows measures a new conversation's first request (Send → request sent) with no MCP
// server and, in turn within the same run, with one configured server that never answers its
// handshake (`sleep`): a server that is starting must not delay a request.
func mcpSilentRows(ctx context.Context, o Options) ([]Row, error) {
	first := func(cfg *mcp.Config) (float64, error) {
		e := &env{}
		inner, err := rig.Start(rig.Options{Runtime: func(c *actors.Config) {
			e.client = &timedClient{inner: c.LLM}
			c.LLM = e.client
			if cfg != nil {
				c.MCP = mcp.FixedHub(*cfg, mcp.Options{})
			}
		}})
		if err != nil {
			return 0, err
		}
		e.Env = inner
		defer e.close()
		conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: !sandbox.Probe().Available})
		if err != nil {
			return 0, err
		}
		return e.firstRequestAfterTurn(ctx, conv.ID)
	}
	silent := mcp.Config{Servers: map[string]mcp.ServerConfig{"mute": {Command: "sleep", Args: []string{"3600"}}}}
	var without, with []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		a, err := first(nil)
		if err != nil {
			return nil, err
		}
		b, err := first(&silent)
		if err != nil {
			return nil, err
		}
		without, with = append(without, a), append(with, b)
	}
	r1 := summarise("first request, no MCP server", "ms", 0, without)
	r1.Note = "a new conversation: Send pressed → its first model request sent"
	r2 := summarise("first request, one MCP server that never starts", "ms", 0, with)
	r2.Note = "the same with a configured server that never answers its handshake: it starts in the background and the request goes without it"
	return []Row{r1, r2}, nil
}
