package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/actors/rig"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/tools"
)

func measurements() []measurement {
	return []measurement{
		{name: calibrationRowName, unit: "ms", run: calibration,
			note: "no target: bench --baseline scales the baseline's time rows by this row's ratio, so a slower machine is not taken for slower code"},
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
		{name: "Restricted command start ÷ plain bash -c true", unit: "×", target: 1.5,
			note: "each sample pairs a Restricted bash tool run on a warm supervisor with a plain `bash -c true` run just before it, so that load changes hit both alike",
			run:  sandboxRatio},
		{name: projectRowName, unit: "ms", rows: projectRows, count: 3},
		{name: cliRoundRowName, unit: "ms", rows: cliRoundRows, count: 2*len(cliRoundModes) + 1},
		{name: windowRoundRowName, unit: "ms", rows: windowRoundRows, count: len(cliRoundModes) + 1},
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
		{name: "soak: resident memory after 2000 turns", unit: "MiB", rows: soakRows, count: 2},
		{name: windowSoakRowName, unit: "MiB", rows: windowSoakRows, count: 3},
		{name: "MCP tool round (stdio echo server)", unit: "ms", target: 3,
			note: "model reply received → MCP call sent over stdio to a running server (sandboxed where Landlock works) → answer → result committed → tools fixed for the next request → request sent; the server's echo does no work of its own",
			run:  mcpRound},
		{name: "MCP server start (stdio echo server)", unit: "ms",
			note: "a conversation's first need → the app binary started as the server through the sandbox supervisor → MCP handshake → tools listed and checked",
			run:  mcpStart},
		{name: nodeServerStartRow, unit: "ms", rows: mcpNodeRows, count: 2},
		{name: "first request with an MCP server that never starts", unit: "ms", rows: mcpSilentRows, count: 2},
		{name: checkpointRowName, unit: "ms", rows: checkpointSnapshot, count: 2},
		{name: worktreeRowName, unit: "×", rows: worktreeRows, count: 3},
		{name: worktree3RowName, unit: "×", rows: worktree3Rows, count: 3},
		{name: proxyRowName, unit: "ms", rows: proxyRows, count: 3},
		{name: coldStartRowName, unit: "ms", rows: coldStartRows, count: 10},
		{name: idleRowName, unit: "×", rows: idleRows, count: 3},
		{name: lspRowName, unit: "ms", rows: lspRows, count: 4},
		{name: "a conversation that touches no language, language servers on ÷ off", unit: "×", rows: noLanguageRows, count: 2},
		{name: windowMapRowName, unit: "ms", rows: windowMapRows, count: 3},
		{name: changesRowName, unit: "ms", rows: changesRows, count: 4},
		{name: openLongRowName, unit: "ms", rows: openLongRows, count: 4},
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

// firstRequestAfterTurn sends one turn and returns the time from sending it to the start of
// its first model request: what a conversation pays before the model is asked.
func (e *env) firstRequestAfterTurn(ctx context.Context, id string) (float64, error) {
	start := time.Now()
	if _, err := e.turn(ctx, id, "echo: hello"); err != nil {
		return 0, err
	}
	e.client.mu.Lock()
	defer e.client.mu.Unlock()
	if len(e.client.starts) == 0 {
		return 0, errors.New("no model request was sent")
	}
	return ms(e.client.starts[0].Sub(start)), nil
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
