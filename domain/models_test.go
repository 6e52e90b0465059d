package domain

import (
	"strings"
	"testing"
	"time"
)

// REQ-BED-022: windows by model, longest prefix first, case-insensitive; unknown models get the
// smallest known window.
func TestContextWindowFor_REQ_BED_022(t *testing.T) {
	smallest := modelWindows[0].window
	for _, m := range modelWindows {
		smallest = min(smallest, m.window)
	}
	if SmallestKnownWindow != smallest || smallest != 32_768 {
		t.Fatalf("SmallestKnownWindow = %d; want the table's smallest, %d", SmallestKnownWindow, smallest)
	}
	tests := map[string]int{
		"gpt-4o":                      128_000,
		"gpt-4o-2024-08-06":           128_000,
		"GPT-4o-mini":                 128_000,
		"gpt-4.1-mini":                1_047_576,
		"gpt-5":                       400_000,
		"claude-sonnet-4":             200_000,
		"anthropic/claude-3.5-sonnet": 200_000,
		"  qwen2.5-coder:7b ":         32_768,
		"demo":                        100_000,
		"mystery-model":               SmallestKnownWindow,
		"":                            SmallestKnownWindow,
		"my-gpt-4o":                   SmallestKnownWindow, // a prefix, not a substring
	}
	for model, want := range tests {
		if got := ContextWindowFor(model); got != want {
			t.Errorf("ContextWindowFor(%q) = %d; want %d", model, got, want)
		}
	}
}

// REQ-BED-019, REQ-BED-023: warning at 80%, continuation at 90%, inclusive.
func TestThresholds_REQ_BED_019_023(t *testing.T) {
	tests := []struct {
		total               int
		warning, continuing bool
		percent             int
	}{
		{0, false, false, 0},
		{7_999, false, false, 79},
		{8_000, true, false, 80},
		{8_999, true, false, 89},
		{9_000, true, true, 90},
		{12_000, true, true, 120},
	}
	for _, tt := range tests {
		u := Usage{InputTokens: tt.total / 2, OutputTokens: tt.total - tt.total/2}
		if AtWarning(u, 10_000) != tt.warning || AtContinuation(u, 10_000) != tt.continuing || UsagePercent(u, 10_000) != tt.percent {
			t.Errorf("total %d: warning %v continuation %v percent %d; want %v %v %d", tt.total,
				AtWarning(u, 10_000), AtContinuation(u, 10_000), UsagePercent(u, 10_000), tt.warning, tt.continuing, tt.percent)
		}
	}
	if UsagePercent(Usage{}, 0) != 100 {
		t.Errorf("an unknown window must read as full")
	}
}

// REQ-BED-006: exponential backoff from 1 s, or the server's Retry-After up to MaxRetryDelay.
func TestRetryDelay_REQ_BED_006(t *testing.T) {
	tests := []struct {
		name       string
		attempt    int
		retryAfter time.Duration
		want       time.Duration
		ok         bool
	}{
		{"first failure", 1, 0, time.Second, true},
		{"second failure", 2, 0, 2 * time.Second, true},
		{"third failure", 3, 0, 4 * time.Second, true},
		{"server asks 5s", 1, 5 * time.Second, 5 * time.Second, true},
		{"server asks the cap", 2, MaxRetryDelay, MaxRetryDelay, true},
		{"server asks too long", 1, MaxRetryDelay + time.Second, MaxRetryDelay + time.Second, false},
		// Out-of-range attempts come from records written by other code; they must not
		// panic (a negative shift) or overflow into a negative delay.
		{"attempt zero", 0, 0, time.Second, true},
		{"negative attempt", -3, 0, time.Second, true},
		{"huge attempt", 200, 0, MaxRetryDelay, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := RetryDelay(tt.attempt, tt.retryAfter)
			if got != tt.want || ok != tt.ok {
				t.Fatalf("RetryDelay(%d, %v) = %v, %v; want %v, %v", tt.attempt, tt.retryAfter, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestErrorKind_RetryableAndDescribed(t *testing.T) {
	retryable := map[ErrorKind]bool{
		ErrorRateLimit: true, ErrorNetwork: true, ErrorServer: true, ErrorTimeout: true, ErrorIncompleteResponse: true,
		ErrorAuth: false, ErrorInvalidRequest: false, ErrorContextLength: false, ErrorUnknown: false,
		ErrorContextExhausted: false, ErrorCancelled: false, ErrorInterrupted: false, ErrorDeadline: false, ErrorNoResult: false,
	}
	fallback := ErrorKind("something-new").Describe()
	for kind, want := range retryable {
		if kind.Retryable() != want {
			t.Errorf("%s.Retryable() = %v; want %v", kind, !want, want)
		}
		if kind != ErrorUnknown && kind.Describe() == fallback {
			t.Errorf("%s has no specific description", kind)
		}
	}
}

func TestContinuationPrompt_REQ_BED_020(t *testing.T) {
	plain := ContinuationPrompt(nil)
	named := ContinuationPrompt([]ToolCall{bashCall("a"), patchCall("b")})
	if len(named) <= len(plain) || named[:len(plain)] != plain {
		t.Fatalf("the named prompt must extend the plain one")
	}
	for _, want := range []string{"- bash\n", "- patch\n", "not executed"} {
		if !strings.Contains(named, want) {
			t.Errorf("prompt lacks %q:\n%s", want, named)
		}
	}
}

// Issue 13: the model table is the one home of a model's output limit (sent as max_tokens)
// and of which field carries it. Every row's limit fits in its window, and unknown models get
// the smallest known limit, as they get the smallest window (REQ-BED-022).
func TestMaxOutputFor(t *testing.T) {
	for _, m := range modelWindows {
		if m.output <= 0 || m.output >= m.window {
			t.Errorf("%s: output limit %d must be positive and below the window %d", m.prefix, m.output, m.window)
		}
		if m.output < SmallestKnownOutput {
			t.Errorf("%s: output %d below SmallestKnownOutput %d", m.prefix, m.output, SmallestKnownOutput)
		}
	}
	tests := []struct {
		model      string
		output     int
		completion bool
	}{
		{"gpt-4o-mini", 16_384, true},
		{"GPT-5-codex", 128_000, true},
		{"o3-mini", 100_000, true},
		{"openai/gpt-4o", 16_384, false}, // OpenRouter reads max_tokens
		{"claude-sonnet-4-5", 8192, false},
		{"demo", 4096, false},
		{"mystery-model", SmallestKnownOutput, false},
	}
	for _, tt := range tests {
		if got := MaxOutputFor(tt.model); got != tt.output {
			t.Errorf("MaxOutputFor(%q) = %d; want %d", tt.model, got, tt.output)
		}
		if got := UsesMaxCompletionTokens(tt.model); got != tt.completion {
			t.Errorf("UsesMaxCompletionTokens(%q) = %v; want %v", tt.model, got, tt.completion)
		}
	}
}

// TestThinkingModels (issue 28): Settings offers a reasoning effort only for the models of the
// table that think; a model the table does not know gets none.
func TestThinkingModels(t *testing.T) {
	for model, want := range map[string]bool{"o3": true, "o4-mini-high": true, "gpt-5-mini": true, "O1-preview": true,
		"gpt-4o": false, "gpt-4.1": false, DemoModel: false, "claude-sonnet-4-5": false, "my-local-model": false} {
		if got := Thinks(model); got != want {
			t.Errorf("Thinks(%q) = %v; want %v", model, got, want)
		}
	}
	if len(ReasoningEfforts) == 0 || ReasoningEfforts[0] != "low" || ReasoningEfforts[len(ReasoningEfforts)-1] != "high" {
		t.Errorf("ReasoningEfforts = %v", ReasoningEfforts)
	}
}
