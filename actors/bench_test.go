package actors

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/tools"
)

// stampedLLM records when each request starts and when its answer arrives.
type stampedLLM struct {
	inner        LLMClient
	mu           sync.Mutex
	starts, ends []time.Time
}

func (s *stampedLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	s.mu.Lock()
	s.starts = append(s.starts, time.Now())
	s.mu.Unlock()
	resp, err := s.inner.Stream(ctx, req, onDelta)
	s.mu.Lock()
	s.ends = append(s.ends, time.Now())
	s.mu.Unlock()
	return resp, err
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[int(p*float64(len(s)-1)+0.5)]
}

func report(b *testing.B, d []time.Duration, name string) {
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(percentile(d, 0.5))/1e6, name+"-p50-ms")
	b.ReportMetric(float64(percentile(d, 0.99))/1e6, name+"-p99-ms")
}

// timedRunner records how long each tool run takes.
type timedRunner struct {
	inner ToolRunner
	mu    sync.Mutex
	took  []time.Duration
}

func (t *timedRunner) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	start := time.Now()
	out := t.inner.Run(ctx, env, call)
	t.mu.Lock()
	t.took = append(t.took, time.Since(start))
	t.mu.Unlock()
	return out
}

// BenchmarkToolRound measures the runtime's overhead per tool round: model reply received →
// tool started, and tool finished → result committed → next request sent, with the tool
// `true` (target ≤ 2 ms median). The tool's own run time (starting the supervised bash) is
// reported apart, as tool-p50-ms.
func BenchmarkToolRound(b *testing.B) {
	h := newHarness(b)
	h.close()
	stamps := &stampedLLM{}
	timed := &timedRunner{}
	h.open(func(c *Config) {
		stamps.inner, c.LLM = c.LLM, stamps
		timed.inner, c.Tools = c.Tools, timed
	})
	c, err := h.rt.Create(context.Background(), NewConversation{Cwd: h.cwd, Unrestricted: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := h.rt.Send(context.Background(), c.ID, strings.Repeat("bash: true\n", b.N), nil); err != nil {
		b.Fatal(err)
	}
	h.waitRest(c.ID)
	b.StopTimer()
	var gaps []time.Duration
	for i := 1; i < len(stamps.starts) && i-1 < len(timed.took); i++ {
		gaps = append(gaps, stamps.starts[i].Sub(stamps.ends[i-1])-timed.took[i-1])
	}
	report(b, gaps, "round")
	report(b, timed.took, "tool")
}

// BenchmarkCancelDuringTool measures Stop during `sleep 100 & sleep 100; wait` in Restricted
// mode: from the Cancel call to the idle state committed (REQ-BED-005, target 100 ms).
func BenchmarkCancelDuringTool(b *testing.B) {
	h := newHarness(b)
	c, err := h.rt.Create(context.Background(), NewConversation{Cwd: h.cwd})
	if err != nil {
		b.Fatal(err)
	}
	var took []time.Duration
	for i := 0; i < b.N; i++ {
		if err := h.rt.Send(context.Background(), c.ID, "bash: sleep 100 & sleep 100; wait", nil); err != nil {
			b.Fatal(err)
		}
		h.waitState(c.ID, domain.StateToolExecuting)
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	report(b, took, "cancel")
}

// BenchmarkTenSubAgents runs ten sub-agents with ten tool calls each.
func BenchmarkTenSubAgents(b *testing.B) {
	h := newHarness(b)
	task := strings.TrimSpace(strings.Repeat("bash: true\n", 10))
	tasks := make([]string, 10)
	for i := range tasks {
		tasks[i] = strings.ReplaceAll(task, "\n", "\\n")
	}
	prompt := "agents: " + strings.Join(tasks, " | ")
	for i := 0; i < b.N; i++ {
		c, err := h.rt.Create(context.Background(), NewConversation{Cwd: h.cwd})
		if err != nil {
			b.Fatal(err)
		}
		end := h.turn(c.ID, prompt)
		if end.State.Kind() != domain.StateIdle {
			b.Fatalf("state %s", end.State.Kind())
		}
	}
}
