package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestWindowCollectsAtHalfTheHeadroom (issue 43): the window runs at GOGC 50 unless the
// person set GOGC.
func TestWindowCollectsAtHalfTheHeadroom(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	if p, set := windowGC(env("")); !set || p != 50 {
		t.Errorf("GOGC unset: %d, %v; want 50, set", p, set)
	}
	if _, set := windowGC(env("200")); set {
		t.Error("GOGC=200 set by the person was overridden")
	}
}

// gcPercent reads the collector's GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestQuietGCTurnsTheCollectorOffUntilRestored (issue 39): quietGC turns the collector off
// under a memory limit and puts both back once, however often it is asked; GOGC or
// GOMEMLIMIT set by the person leaves them alone.
func TestQuietGCTurnsTheCollectorOffUntilRestored(t *testing.T) {
	before, limit := gcPercent(), debug.SetMemoryLimit(-1)
	restore := quietGC(func(string) string { return "" })
	if p := gcPercent(); p != -1 {
		t.Errorf("the collector runs at GOGC %d; want off", p)
	}
	if l := debug.SetMemoryLimit(-1); l != quietGCLimit {
		t.Errorf("the memory limit is %d; want %d", l, quietGCLimit)
	}
	restore()
	debug.SetGCPercent(7)
	restore()
	if p := gcPercent(); p != 7 {
		t.Errorf("a second restore changed GOGC again (%d)", p)
	}
	debug.SetGCPercent(before)
	if l := debug.SetMemoryLimit(-1); l != limit {
		t.Errorf("the memory limit is %d after restoring; want %d", l, limit)
	}
	for _, name := range []string{"GOGC", "GOMEMLIMIT"} {
		restore := quietGC(func(k string) string {
			if k == name {
				return "200"
			}
			return ""
		})
		if p := gcPercent(); p != before {
			t.Errorf("%s set by the person: GOGC changed to %d", name, p)
		}
		restore()
	}
}

// TestColdChatCollectsNoGarbage (issue 39): a headless one-turn chat in a process of its own
// runs without a collection (opening the store used to start three, for nothing to free),
// and leaves the collector as it found it.
func TestColdChatCollectsNoGarbage(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	cycles := []metrics.Sample{{Name: "/gc/cycles/automatic:gc-cycles"}}
	before := gcPercent()
	// A collection now sets the heap's goal from what this test process holds, so that
	// the chat's allocations would reach it.
	runtime.GC()
	metrics.Read(cycles)
	n := cycles[0].Value.Uint64()
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--cwd", cwd, "echo: hello")
	metrics.Read(cycles)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if got := cycles[0].Value.Uint64() - n; got != 0 {
		t.Errorf("the chat ran %d collections; want none", got)
	}
	if p := gcPercent(); p != before {
		t.Errorf("the chat left the collector at GOGC %d; it was %d", p, before)
	}
}

// TestCollectAgainOncePastTheFirstRequest (issue 39): a headless chat's collector comes back
// at the first state past its first model request (a tool runs, an approval, sub-agents, a
// continuation), so that a turn that reads a large file never runs at quietGCLimit; a turn
// that only asks the model and rests keeps it off.
func TestCollectAgainOncePastTheFirstRequest(t *testing.T) {
	for _, c := range []struct {
		state domain.State
		want  bool
	}{
		{domain.Idle{}, false},
		{domain.LLMRequesting{}, false},
		{domain.ToolExecuting{}, true},
		{domain.AwaitingModeApproval{}, true},
		{domain.AwaitingSubAgents{}, true},
		{domain.AwaitingContinuation{}, true},
		{domain.ContextExhausted{}, false},
		{domain.Error{}, false},
		{domain.Completed{}, false},
		{domain.Failed{}, false},
	} {
		if got := collectAgain(c.state); got != c.want {
			t.Errorf("collectAgain(%s) = %v; want %v", c.state.Kind(), got, c.want)
		}
	}
}
