package domain

import "strings"

// Context thresholds as fractions of the model's window (REQ-BED-019, REQ-BED-023).
const (
	WarningThresholdPercent      = 80
	ContinuationThresholdPercent = 90
)

// DemoModel is the offline model served by the built-in fake server.
const DemoModel = "demo"

// DemoModelLabel is how the demo model is named for people: in the window's model chips and
// dialogs, and in the headless commands' output.
const DemoModelLabel = "Demo (offline)"

// modelWindows is the one table of a model's limits, keyed by a model name prefix; the longest
// matching prefix wins, so "gpt-4o-mini" can differ from "gpt-4o".
//
//   - window is the context window in tokens (REQ-BED-022).
//   - output is the most tokens one reply may have: it is sent as the request's max_tokens, so
//     the limit a reply can be cut off at is known and shown (issue 13). The values are the
//     provider's documented maximum where the model has one that every variant of the prefix
//     supports, else a conservative 8192.
//   - completionField says the provider wants max_completion_tokens instead of max_tokens
//     (OpenAI's own API; its reasoning models reject max_tokens). Compatible servers (Ollama,
//     OpenRouter, llama.cpp) read max_tokens.
//   - thinks says the model reasons before it answers and takes the request's
//     reasoning_effort (one of ReasoningEfforts), which Settings offers for it (issue 28).
var modelWindows = []struct {
	prefix          string
	window          int
	output          int
	completionField bool
	thinks          bool
}{
	{DemoModel, 100_000, 4096, false, false},
	{"gpt-5", 400_000, 128_000, true, true},
	{"gpt-4.1", 1_047_576, 32_768, true, false},
	{"gpt-4o", 128_000, 16_384, true, false},
	{"gpt-4-turbo", 128_000, 4096, true, false},
	{"o1", 200_000, 100_000, true, true},
	{"o3", 200_000, 100_000, true, true},
	{"o4-mini", 200_000, 100_000, true, true},
	{"claude", 200_000, 8192, false, false},
	{"anthropic/claude", 200_000, 8192, false, false},
	{"openai/gpt-4o", 128_000, 16_384, false, false},
	{"google/gemini", 1_000_000, 8192, false, false},
	{"gemini", 1_000_000, 8192, false, false},
	{"deepseek", 128_000, 8192, false, false},
	{"qwen2.5-coder", 32_768, 8192, false, false},
	{"qwen3", 40_960, 8192, false, false},
	{"llama3.1", 131_072, 8192, false, false},
	{"llama3.2", 131_072, 8192, false, false},
	{"mistral", 32_768, 8192, false, false},
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

// SmallestKnownOutput is the output limit of models the table does not know: like the window,
// the conservative choice, so that an unknown model is never asked for more than it can give.
// A person who knows better sets the model's limit (actors.Config.OutputLimits).
var SmallestKnownOutput = func() int {
	smallest := 0
	for _, m := range modelWindows {
		if smallest == 0 || m.output < smallest {
			smallest = m.output
		}
	}
	return smallest
}()

// modelRow returns the table row of a model by name, case-insensitively; ok is false for a
// model the table does not know.
func modelRow(model string) (row int, ok bool) {
	model = strings.ToLower(strings.TrimSpace(model))
	best, bestLen := -1, 0
	for i, m := range modelWindows {
		if strings.HasPrefix(model, m.prefix) && len(m.prefix) > bestLen {
			best, bestLen = i, len(m.prefix)
		}
	}
	return best, best >= 0
}

// ContextWindowFor returns the context window of a model by name, case-insensitively.
func ContextWindowFor(model string) int {
	if i, ok := modelRow(model); ok {
		return modelWindows[i].window
	}
	return SmallestKnownWindow
}

// MaxOutputFor returns the most tokens one reply of a model may have (its max_tokens).
func MaxOutputFor(model string) int {
	if i, ok := modelRow(model); ok {
		return modelWindows[i].output
	}
	return SmallestKnownOutput
}

// UsesMaxCompletionTokens reports whether the output limit is sent as max_completion_tokens
// rather than max_tokens for this model.
func UsesMaxCompletionTokens(model string) bool {
	i, ok := modelRow(model)
	return ok && modelWindows[i].completionField
}

// ReasoningEfforts are the values of a request's reasoning_effort that every thinking model
// of the table takes, least effort first; no value leaves the provider's default.
var ReasoningEfforts = []string{"low", "medium", "high"}

// Thinks reports whether a model reasons before it answers and takes reasoning_effort.
func Thinks(model string) bool {
	i, ok := modelRow(model)
	return ok && modelWindows[i].thinks
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

// Price is what a model charges, in US dollars per million tokens (issue 27). CachedInput is
// the price of input read from the provider's prompt cache and CacheWrite of input written
// to it; a CacheWrite of zero means writes cost what other input costs (providers that
// cache by themselves charge nothing extra for it).
type Price struct {
	Input       float64 `json:"input"`
	CachedInput float64 `json:"cached_input"`
	CacheWrite  float64 `json:"cache_write,omitempty"`
	Output      float64 `json:"output"`
}

// modelPrices is the one table of list prices, from the providers' pricing pages; a person
// whose prices differ (a contract, a newer list) sets theirs per model
// (actors.Config.Prices), and a model found in neither has no price: its turns show tokens
// only, never a guessed cost. A row names a model exactly, or followed by a dated snapshot
// suffix ("gpt-4o-2024-08-06", "claude-sonnet-4-20250514"): unlike the limits above, a
// price is never inherited by a longer name, since "gpt-4o-mini" and "claude-opus-4-5"
// cost a fraction of "gpt-4o" and "claude-opus-4". Where a provider charges more above a
// prompt size (grok-4-fast above 128k tokens), the row is the lower tier. The demo model
// costs nothing. A provider that reports the cost itself (OpenRouter, Vercel's gateway,
// xAI) is believed over this table.
var modelPrices = []struct {
	model string
	price Price
}{
	{DemoModel, Price{}},
	{"gpt-5", Price{Input: 1.25, CachedInput: 0.125, Output: 10}},
	{"gpt-5-mini", Price{Input: 0.25, CachedInput: 0.025, Output: 2}},
	{"gpt-5-nano", Price{Input: 0.05, CachedInput: 0.005, Output: 0.40}},
	{"gpt-4.1", Price{Input: 2, CachedInput: 0.50, Output: 8}},
	{"gpt-4.1-mini", Price{Input: 0.40, CachedInput: 0.10, Output: 1.60}},
	{"gpt-4.1-nano", Price{Input: 0.10, CachedInput: 0.025, Output: 0.40}},
	{"gpt-4o", Price{Input: 2.50, CachedInput: 1.25, Output: 10}},
	{"gpt-4o-mini", Price{Input: 0.15, CachedInput: 0.075, Output: 0.60}},
	{"o3", Price{Input: 2, CachedInput: 0.50, Output: 8}},
	{"o3-mini", Price{Input: 1.10, CachedInput: 0.55, Output: 4.40}},
	{"o4-mini", Price{Input: 1.10, CachedInput: 0.275, Output: 4.40}},
	{"claude-sonnet-4", Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}},
	{"claude-sonnet-4-5", Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}},
	{"anthropic/claude-sonnet-4", Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}},
	{"anthropic/claude-sonnet-4.5", Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}},
	{"claude-haiku-4-5", Price{Input: 1, CachedInput: 0.10, CacheWrite: 1.25, Output: 5}},
	{"anthropic/claude-haiku-4.5", Price{Input: 1, CachedInput: 0.10, CacheWrite: 1.25, Output: 5}},
	{"claude-opus-4-1", Price{Input: 15, CachedInput: 1.50, CacheWrite: 18.75, Output: 75}},
	{"anthropic/claude-opus-4.1", Price{Input: 15, CachedInput: 1.50, CacheWrite: 18.75, Output: 75}},
	{"claude-opus-4-5", Price{Input: 5, CachedInput: 0.50, CacheWrite: 6.25, Output: 25}},
	{"anthropic/claude-opus-4.5", Price{Input: 5, CachedInput: 0.50, CacheWrite: 6.25, Output: 25}},
	{"grok-4-fast", Price{Input: 0.20, CachedInput: 0.05, Output: 0.50}},
	{"x-ai/grok-4-fast", Price{Input: 0.20, CachedInput: 0.05, Output: 0.50}},
}

// PriceFor returns a model's price: the person's own for that model name (overrides, keyed
// by the lower-case name), else the table's; ok is false when neither knows it.
func PriceFor(model string, overrides map[string]Price) (p Price, ok bool) {
	model = strings.ToLower(strings.TrimSpace(model))
	if p, ok := overrides[model]; ok {
		return p, true
	}
	for _, row := range modelPrices {
		if model == row.model || strings.HasPrefix(model, row.model+"-20") {
			return row.price, true
		}
	}
	return Price{}, false
}

// sameModels are the ids under which providers serve one model, where the rules of
// modelKey alone cannot tell: Anthropic's aliases and dated snapshots. Each row is written
// as modelKey leaves an id (no "vendor/" prefix, dashes for the dots of version numbers),
// its first entry standing for the row. Only ids known to name the very same weights are
// here: an alias that moves to newer snapshots ("claude-3-5-sonnet-latest", "sonnet") is
// not, so it is never mapped.
var sameModels = [][]string{
	{"claude-sonnet-4-0", "claude-sonnet-4", "claude-sonnet-4-20250514"},
	{"claude-opus-4-0", "claude-opus-4", "claude-opus-4-20250514"},
	{"claude-opus-4-1", "claude-opus-4-1-20250805"},
	{"claude-sonnet-4-5", "claude-sonnet-4-5-20250929"},
	{"claude-haiku-4-5", "claude-haiku-4-5-20251001"},
	{"claude-opus-4-5", "claude-opus-4-5-20251101"},
	{"claude-3-7-sonnet-latest", "claude-3-7-sonnet", "claude-3-7-sonnet-20250219"},
	{"claude-3-5-haiku-latest", "claude-3-5-haiku", "claude-3-5-haiku-20241022"},
}

// versionDots turns each dot between two digits into a dash: OpenRouter writes "claude-sonnet-4.5" where
// Anthropic writes "claude-sonnet-4-5".
func versionDots(s string) string {
	b := []byte(s)
	for i := 1; i+1 < len(b); i++ {
		if b[i] == '.' && isDigit(b[i-1]) && isDigit(b[i+1]) {
			b[i] = '-'
		}
	}
	return string(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// modelKey is what two ids of one model have in common: the id in lower case without the
// "vendor/" prefix a gateway adds ("anthropic/claude-sonnet-4" is Anthropic's
// "claude-sonnet-4" behind OpenRouter), dots between digits as dashes, and, for an id of a
// sameModels row, the row's first entry. Anything else (":free", "-thinking") stays, so
// that variants never pass for the model.
func modelKey(id string) string {
	k := strings.ToLower(strings.TrimSpace(id))
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		k = k[i+1:]
	}
	k = versionDots(k)
	for _, row := range sameModels {
		for _, alias := range row {
			if k == alias {
				return row[0]
			}
		}
	}
	return k
}

// SameModel reports whether two ids certainly name the same model (modelKey).
func SameModel(a, b string) bool { return modelKey(a) != "" && modelKey(a) == modelKey(b) }

// OfferedAs finds the id under which a provider that offers the models offered serves
// model: model itself when it is offered, else the first offered id that names the same
// model (SameModel); ok is false when none does, and then there is no certain mapping.
func OfferedAs(model string, offered []string) (id string, ok bool) {
	for _, o := range offered {
		if o == model {
			return o, true
		}
	}
	for _, o := range offered {
		if SameModel(o, model) {
			return o, true
		}
	}
	return "", false
}
