package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

func measurements() []measurement {
	return []measurement{
		// Peak RSS is the process's high-water mark, so it is measured first, before the
		// store benchmarks raise it.
		{name: "peak RSS after a 100-turn conversation", unit: "MiB", target: 200,
			note: "VmHWM of the bench process: start-up, store, actors, fake server and 100 turns", run: peakRSS},
		{name: "tool round, runtime overhead (bash true)", unit: "ms", target: 2,
			note: "model reply received → tool started, and tool finished → result committed → next request sent; the tool's own run time is excluded (next rows)",
			run:  toolRound(domain.ModeUnrestricted, false)},
		{name: "tool round, total (bash true), Unrestricted", unit: "ms", target: 4,
			note: "the same rounds including the tool: a warm supervisor runs bash `true`",
			run:  toolRound(domain.ModeUnrestricted, true)},
		{name: "tool round, total (bash true), Restricted", unit: "ms", target: 6,
			note: "the same in a Restricted conversation: Landlock, seccomp and dropped capabilities on each command",
			run:  toolRound(domain.ModeRestricted, true)},
		{name: "cancel to idle (running process group)", unit: "ms", target: 100,
			note: "Stop pressed → kill sent to the process group, cancelled and skipped results committed, state idle (sandbox's BenchmarkCancelToGroupGone measures the group's death)",
			run:  cancelLatency},
		{name: "bash -c true, plain (no supervisor)", unit: "ms", run: plainBashTrue},
		{name: "bash tool true, Unrestricted (warm supervisor)", unit: "ms", run: bashTrue(domain.ModeUnrestricted)},
		{name: "bash tool true, Restricted (warm supervisor)", unit: "ms", run: bashTrue(domain.ModeRestricted)},
		{name: "bash tool true, Restricted, first command (cold supervisor)", unit: "ms",
			note: "no supervisor waiting: the app binary is started as one first (the app starts one ahead, so a person rarely meets this)",
			run:  coldBashTrue},
		{name: "Restricted command start ÷ plain bash -c true", unit: "×", target: 2.0,
			note: "each sample pairs a Restricted bash tool run on a warm supervisor with a plain `bash -c true` run just before it, so that load changes hit both alike",
			run:  sandboxRatio},
		{name: projectRowName, unit: "ms", rows: projectRows, count: 3},
		{name: "first go build in a new Restricted conversation ÷ the same build outside", unit: "×", target: 2,
			note: "a new conversation's temp dir (a new copy-on-write layer over your Go caches) builds a changed hello-world module; the same change is then built outside; the standard library comes from your cache both times",
			run:  firstGoBuild},
		{name: "store open + list (1,000 conversations × 100 messages)", unit: "ms", target: 100, run: openAndList},
		{name: "load a 10,000-message conversation", unit: "ms", target: 50, run: loadLarge},
		{name: "time to first delta (local fake server)", unit: "ms", target: 20,
			note: "Send pressed → message committed → request sent → first streamed text published", run: firstDelta},
		{name: "event queue high-water mark (streamed turns)", unit: "events", target: 64,
			note: "the most events that waited at once in a subscription's queue (beyond its channel of 64) while a consumer read a turn's 200 streamed tokens as the window does; one sample per turn",
			run:  eventBacklog},
		{name: "search", unit: "ms", rows: searchRows, count: 3},
		{name: "commit with and without search indexing", unit: "ms", rows: commitRows, count: 3},
		{name: "heap after opening 1,000 conversations", unit: "×", rows: heapRows, count: 3},
		{name: "MCP tool round (stdio echo server)", unit: "ms", target: 3,
			note: "model reply received → MCP call sent over stdio to a running server (sandboxed where Landlock works) → answer → result committed → tools fixed for the next request → request sent; the server's echo does no work of its own",
			run:  mcpRound},
		{name: "MCP server start (stdio echo server)", unit: "ms",
			note: "a conversation's first need → the app binary started as the server through the sandbox supervisor → MCP handshake → tools listed and checked",
			run:  mcpStart},
		{name: nodeServerStartRow, unit: "ms", rows: mcpNodeRows, count: 2},
		{name: "first request with an MCP server that never starts", unit: "ms", rows: mcpSilentRows, count: 2},
		{name: checkpointRowName, unit: "ms", rows: checkpointSnapshot, count: 2},
		{name: proxyRowName, unit: "ms", rows: proxyRows, count: 3},
		{name: coldStartRowName, unit: "ms", rows: coldStartRows, count: 5},
		{name: idleRowName, unit: "×", rows: idleRows, count: 3},
		{name: cacheRowName, unit: "%", target: 10, run: uncachedShare,
			note: "100 − the cached share of all input tokens; the fake server caches as providers that cache prefixes by themselves do"},
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// env is a complete runtime whose model client and tools are timed.
type env struct {
	*rig.Env
	client *timedClient
	tools  *timedTools
}

func newEnv() (*env, error) {
	e := &env{}
	inner, err := rig.Start(rig.Options{Runtime: func(c *actors.Config) {
		e.client = &timedClient{inner: c.LLM}
		e.tools = &timedTools{inner: c.Tools}
		c.LLM, c.Tools = e.client, e.tools
	}})
	if err != nil {
		return nil, err
	}
	e.Env = inner
	return e, nil
}

func (e *env) close() { e.Close() }

// newConversation starts an environment with one conversation in it.
func newConversation(ctx context.Context, unrestricted bool) (*env, domain.Conversation, error) {
	e, err := newEnv()
	if err != nil {
		return nil, domain.Conversation{}, err
	}
	conv, err := e.Runtime.Create(ctx, actors.NewConversation{Cwd: e.Cwd, Unrestricted: unrestricted})
	if err != nil {
		e.close()
		return nil, domain.Conversation{}, err
	}
	return e, conv, nil
}

func (e *env) waitFor(ctx context.Context, id string, ok func(domain.Conversation) bool) (domain.Conversation, error) {
	return e.WaitFor(ctx, id, 2*time.Minute, ok)
}

func (e *env) turn(ctx context.Context, id, text string) (domain.Conversation, error) {
	return e.Turn(ctx, id, text, 2*time.Minute)
}

// timedClient records when each model request starts and when its answer arrives, so the
// time between an answer and the next request is the runtime's own overhead.
type timedClient struct {
	inner  actors.LLMClient
	mu     sync.Mutex
	starts []time.Time
	ends   []time.Time
}

func (c *timedClient) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	c.mu.Lock()
	c.starts = append(c.starts, time.Now())
	c.mu.Unlock()
	resp, err := c.inner.Stream(ctx, req, onDelta)
	c.mu.Lock()
	c.ends = append(c.ends, time.Now())
	c.mu.Unlock()
	return resp, err
}

func (c *timedClient) reset() {
	c.mu.Lock()
	c.starts, c.ends = nil, nil
	c.mu.Unlock()
}

// timedTools records how long each tool run takes, so that it can be told apart from the
// runtime's own overhead.
type timedTools struct {
	inner actors.ToolRunner
	mu    sync.Mutex
	took  []time.Duration
}

func (t *timedTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	start := time.Now()
	out := t.inner.Run(ctx, env, call)
	t.mu.Lock()
	t.took = append(t.took, time.Since(start))
	t.mu.Unlock()
	return out
}

func samplesOf(o Options, full, quick int) int {
	if o.Quick {
		return quick
	}
	return full
}

func toolRound(mode domain.Mode, includeTool bool) func(context.Context, Options) ([]float64, error) {
	return func(ctx context.Context, o Options) ([]float64, error) {
		if mode == domain.ModeRestricted && !sandbox.Probe().Available {
			return nil, fmt.Errorf("the sandbox is unavailable: %s", sandbox.Probe().Reason)
		}
		e, conv, err := newConversation(ctx, mode == domain.ModeUnrestricted)
		if err != nil {
			return nil, err
		}
		defer e.close()
		rounds := samplesOf(o, 60, 8)
		e.client.reset()
		if _, err := e.turn(ctx, conv.ID, strings.Repeat("bash: true\n", rounds)); err != nil {
			return nil, err
		}
		e.client.mu.Lock()
		defer e.client.mu.Unlock()
		e.tools.mu.Lock()
		defer e.tools.mu.Unlock()
		var out []float64
		// Round i sits between answer i-1 and request i, and ran tool i-1.
		for i := 1; i < len(e.client.starts) && i-1 < len(e.client.ends) && i-1 < len(e.tools.took); i++ {
			gap := e.client.starts[i].Sub(e.client.ends[i-1])
			if !includeTool {
				gap -= e.tools.took[i-1]
			}
			out = append(out, ms(gap))
		}
		return out, nil
	}
}

func cancelLatency(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, false)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var out []float64
	for i := 0; i < samplesOf(o, 25, 3); i++ {
		if err := e.Runtime.Send(ctx, conv.ID, "bash: sleep 100 & sleep 100; wait", nil); err != nil {
			return out, err
		}
		if _, err := e.waitFor(ctx, conv.ID, func(c domain.Conversation) bool {
			return c.State.Kind() == domain.StateToolExecuting
		}); err != nil {
			return out, err
		}
		time.Sleep(20 * time.Millisecond) // let bash start its children
		start := time.Now()
		if err := e.Runtime.Cancel(ctx, conv.ID); err != nil {
			return out, err
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

// bashTool runs the bash tool's `true` in a fresh working directory and temp dir, n times,
// calling before ahead of each run, and returns each run's time.
func bashTool(ctx context.Context, mode domain.Mode, n int, before func() error) ([]float64, error) {
	if mode == domain.ModeRestricted && !sandbox.Probe().Available {
		return nil, fmt.Errorf("the sandbox is unavailable: %s", sandbox.Probe().Reason)
	}
	cwd, err := os.MkdirTemp("", "phoenix-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cwd)
	tmp, err := os.MkdirTemp("", "phoenix-bench-tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	reg := tools.NewRegistry()
	env := tools.Env{Cwd: cwd, Mode: mode, TempDir: tmp}
	call := domain.ToolCall{ID: "b", Name: domain.ToolBash, Arguments: `{"command":"true"}`}
	// One run first, so that a supervisor is waiting (the app starts one ahead).
	if res := reg.Run(ctx, env, call); res.Outcome != domain.OutcomeSuccess {
		return nil, fmt.Errorf("bash true failed: %s", res.Content)
	}
	var out []float64
	for range n {
		if err := before(); err != nil {
			return out, err
		}
		start := time.Now()
		res := reg.Run(ctx, env, call)
		if res.Outcome != domain.OutcomeSuccess {
			return out, fmt.Errorf("bash true failed: %s", res.Content)
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

func bashTrue(mode domain.Mode) func(context.Context, Options) ([]float64, error) {
	return func(ctx context.Context, o Options) ([]float64, error) {
		return bashTool(ctx, mode, samplesOf(o, 40, 5), func() error { return nil })
	}
}

// coldBashTrue ends every waiting supervisor before each run.
func coldBashTrue(ctx context.Context, o Options) ([]float64, error) {
	return bashTool(ctx, domain.ModeRestricted, samplesOf(o, 10, 2), func() error {
		sandbox.Shutdown()
		return nil
	})
}

// plainBashTrue runs `bash -c true` directly, the baseline of the sandbox's cost.
func plainBashTrue(ctx context.Context, o Options) ([]float64, error) {
	var out []float64
	for i := 0; i < samplesOf(o, 40, 5); i++ {
		d, err := plainOnce(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
	return out, nil
}

func plainOnce(ctx context.Context) (float64, error) {
	start := time.Now()
	if err := exec.CommandContext(ctx, "bash", "-c", "true").Run(); err != nil {
		return 0, fmt.Errorf("bash -c true: %w", err)
	}
	return ms(time.Since(start)), nil
}

// sandboxRatio pairs each Restricted run with a plain one taken just before it.
func sandboxRatio(ctx context.Context, o Options) ([]float64, error) {
	var plain []float64
	sandboxed, err := bashTool(ctx, domain.ModeRestricted, samplesOf(o, 40, 5), func() error {
		d, err := plainOnce(ctx)
		plain = append(plain, d)
		return err
	})
	var out []float64
	for i := range min(len(sandboxed), len(plain)) {
		out = append(out, sandboxed[i]/plain[i])
	}
	return out, err
}

// fillStore writes conversations of alternating user and assistant messages directly
// through the store, a hundred messages a commit.
func fillStore(store *persistence.Store, cwd string, convs, msgsEach int) (string, error) {
	var last string
	for i := 0; i < convs; i++ {
		c, err := domain.NewConversation(domain.NewConversationParams{
			ID: fmt.Sprintf("bench-%05d", i), Title: fmt.Sprintf("Benchmark conversation %d", i),
			Cwd: cwd, Model: domain.DemoModel, CreatedAt: time.Now()})
		if err != nil {
			return "", err
		}
		if c, err = store.Create(c); err != nil {
			return "", err
		}
		for done := 0; done < msgsEach; {
			n := min(100, msgsEach-done)
			batch := make([]domain.Message, n)
			for j := range batch {
				seq := c.NextSeq + uint64(j)
				if seq%2 == 0 {
					batch[j] = domain.Message{Seq: seq, Kind: domain.KindUser, Text: "Please look at the build output and tell me what failed."}
				} else {
					batch[j] = domain.Message{Seq: seq, Kind: domain.KindAssistant, Text: strings.Repeat("The build failed because a test timed out. ", 6)}
				}
			}
			c.NextSeq += uint64(n)
			if c, _, err = store.Commit(c, batch); err != nil {
				return "", err
			}
			done += n
		}
		last = c.ID
	}
	return last, nil
}

func openAndList(ctx context.Context, o Options) ([]float64, error) {
	dir, err := os.MkdirTemp("", "phoenix-bench-store-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	store, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		return nil, err
	}
	convs := 1000
	if o.Quick {
		convs = 50
	}
	if _, err := fillStore(store, dir, convs, 100); err != nil {
		store.Close()
		return nil, err
	}
	if err := store.Close(); err != nil {
		return nil, err
	}
	var out []float64
	for i := 0; i < samplesOf(o, 10, 2); i++ {
		start := time.Now()
		s, err := persistence.Open(dir, persistence.Options{Logger: quietLogger()})
		if err != nil {
			return out, err
		}
		list, err := s.List(false)
		took := time.Since(start)
		s.Close()
		if err != nil {
			return out, err
		}
		if len(list) != convs {
			return out, fmt.Errorf("listed %d conversations, want %d", len(list), convs)
		}
		out = append(out, ms(took))
	}
	return out, nil
}

func loadLarge(ctx context.Context, o Options) ([]float64, error) {
	store, err := persistence.OpenInMemory()
	if err != nil {
		return nil, err
	}
	defer store.Close()
	n := 10000
	if o.Quick {
		n = 1000
	}
	id, err := fillStore(store, os.TempDir(), 1, n)
	if err != nil {
		return nil, err
	}
	var out []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		start := time.Now()
		_, msgs, err := store.Load(id)
		if err != nil {
			return out, err
		}
		if len(msgs) != n {
			return out, fmt.Errorf("loaded %d messages, want %d", len(msgs), n)
		}
		out = append(out, ms(time.Since(start)))
	}
	return out, nil
}

func firstDelta(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, false)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var out []float64
	for i := 0; i < samplesOf(o, 50, 5); i++ {
		start := time.Now()
		if err := e.Runtime.Send(ctx, conv.ID, "echo: "+strings.Repeat("token ", 200), nil); err != nil {
			return out, err
		}
		var first time.Duration
		timeout := time.After(time.Minute)
		for first == 0 {
			select {
			case ev := <-e.Events.Events():
				if d, ok := ev.(actors.TextDelta); ok && d.ConvID == conv.ID {
					first = time.Since(start)
				}
			case <-timeout:
				return out, fmt.Errorf("no streamed text within a minute")
			}
		}
		out = append(out, ms(first))
		if _, err := e.waitFor(ctx, conv.ID, func(c domain.Conversation) bool { return !domain.Busy(c.State) }); err != nil {
			return out, err
		}
	}
	return out, nil
}

// eventBacklog follows each streamed turn with a subscription of its own, read at once as the
// window's event pump reads it, and reports the subscription's high-water mark.
func eventBacklog(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, false)
	if err != nil {
		return nil, err
	}
	defer e.close()
	var out []float64
	for i := 0; i < samplesOf(o, 20, 3); i++ {
		sub := e.Runtime.Subscribe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range sub.Events() {
			}
		}()
		_, err := e.turn(ctx, conv.ID, "echo: "+strings.Repeat("token ", 200))
		out = append(out, float64(sub.HighWater()))
		sub.Close()
		<-done
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func peakRSS(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, true)
	if err != nil {
		return nil, err
	}
	defer e.close()
	turns := samplesOf(o, 100, 5)
	for i := 0; i < turns; i++ {
		if _, err := e.turn(ctx, conv.ID, fmt.Sprintf("echo: turn %d %s", i, strings.Repeat("lorem ipsum ", 50))); err != nil {
			return nil, err
		}
	}
	kib, err := statusField("VmHWM")
	if err != nil {
		return nil, err
	}
	return []float64{float64(kib) / 1024}, nil
}

// statusField reads a "kB" field of /proc/self/status.
func statusField(name string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read peak memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", name)
}

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
		start := time.Now()
		if _, err := e.turn(ctx, conv.ID, "echo: hello"); err != nil {
			return 0, err
		}
		e.client.mu.Lock()
		defer e.client.mu.Unlock()
		if len(e.client.starts) == 0 {
			return 0, errors.New("no model request was sent")
		}
		return ms(e.client.starts[0].Sub(start)), nil
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
