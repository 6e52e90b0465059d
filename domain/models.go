package domain

import "strings"

// Context thresholds as fractions of the model's window (REQ-BED-019, REQ-BED-023).
const (
	WarningThresholdPercent      = 80
	ContinuationThresholdPercent = 90
)

// DemoModel is the offline model served by the built-in fake server.
const DemoModel = "demo"

// modelWindows maps a model name prefix to its context window in tokens (REQ-BED-022). The
// longest matching prefix wins, so "gpt-4o-mini" can differ from "gpt-4o".
var modelWindows = []struct {
	prefix string
	window int
}{
	{DemoModel, 100_000},
	{"gpt-5", 400_000},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-4-turbo", 128_000},
	{"o1", 200_000},
	{"o3", 200_000},
	{"o4-mini", 200_000},
	{"claude", 200_000},
	{"anthropic/claude", 200_000},
	{"openai/gpt-4o", 128_000},
	{"google/gemini", 1_000_000},
	{"gemini", 1_000_000},
	{"deepseek", 128_000},
	{"qwen2.5-coder", 32_768},
	{"qwen3", 40_960},
	{"llama3.1", 131_072},
	{"llama3.2", 131_072},
	{"mistral", 32_768},
}

// SmallestKnownWindow is used for models the table does not know (REQ-BED-022): a
// conservative default triggers continuation early rather than overflowing.
var SmallestKnownWindow = func() int {
	smallest := 0
	for _, m := range modelWindows {
		if smallest == 0 || m.window < smallest {
			smallest = m.window
		}
	}
	return smallest
}()

// ContextWindowFor returns the context window of a model by name, case-insensitively.
func ContextWindowFor(model string) int {
	model = strings.ToLower(strings.TrimSpace(model))
	best, bestLen := SmallestKnownWindow, 0
	for _, m := range modelWindows {
		if strings.HasPrefix(model, m.prefix) && len(m.prefix) > bestLen {
			best, bestLen = m.window, len(m.prefix)
		}
	}
	return best
}

// UsagePercent is the share of the window used, in whole percent, rounded down.
func UsagePercent(u Usage, window int) int {
	if window <= 0 {
		return 100
	}
	return u.Total() * 100 / window
}

// AtWarning reports whether usage has reached the 80% warning (REQ-BED-023).
func AtWarning(u Usage, window int) bool {
	return u.Total()*100 >= window*WarningThresholdPercent
}

// AtContinuation reports whether usage has reached the 90% threshold (REQ-BED-019).
func AtContinuation(u Usage, window int) bool {
	return u.Total()*100 >= window*ContinuationThresholdPercent
}
