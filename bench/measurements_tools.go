package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

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
