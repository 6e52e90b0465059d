package domain

import "math"

// CostSource says where a response's cost came from (issue 27).
type CostSource string

const (
	// CostFromProvider is the cost the provider reported with the usage (OpenRouter's and
	// Vercel's usage.cost, xAI's cost_in_usd_ticks): what the person is billed.
	CostFromProvider CostSource = "provider"
	// CostFromPrices is the usage priced with the model's Price.
	CostFromPrices CostSource = "prices"
)

// CostOf prices token counts: uncached input, cached input, cache writes and output, each at
// its rate, in billionths of a US dollar, rounded to the nearest.
func CostOf(u Usage, p Price) int64 {
	write := p.CacheWrite
	if write == 0 {
		write = p.Input
	}
	uncached := max(0, u.InputTokens-u.CachedTokens-u.CacheWriteTokens)
	// A price per million tokens is that many thousandths of a nano-dollar per token.
	usd := float64(uncached)*p.Input + float64(u.CachedTokens)*p.CachedInput +
		float64(u.CacheWriteTokens)*write + float64(u.OutputTokens)*p.Output
	return int64(math.Round(usd * 1000))
}

// Spend is what a conversation's model requests cost in all, kept on the conversation so
// that lists and totals need no pass over the history (issue 27). Sub-agents keep their
// own.
type Spend struct {
	// Responses counts the model's answers, Unpriced those of them without a known cost:
	// while it is above zero, CostNanoUSD is a lower bound.
	Responses        int   `json:"responses,omitempty"`
	Unpriced         int   `json:"unpriced,omitempty"`
	InputTokens      int   `json:"input_tokens,omitempty"`
	CachedTokens     int   `json:"cached_tokens,omitempty"`
	CacheWriteTokens int   `json:"cache_write_tokens,omitempty"`
	OutputTokens     int   `json:"output_tokens,omitempty"`
	CostNanoUSD      int64 `json:"cost_nano_usd,omitempty"`
}

// Add counts one response's usage.
func (s Spend) Add(u Usage) Spend {
	s.Responses++
	s.InputTokens += u.InputTokens
	s.CachedTokens += u.CachedTokens
	s.CacheWriteTokens += u.CacheWriteTokens
	s.OutputTokens += u.OutputTokens
	if u.CostFrom == "" {
		s.Unpriced++
	} else {
		s.CostNanoUSD += u.CostNanoUSD
	}
	return s
}

// Plus adds two spends (a day's conversations).
func (s Spend) Plus(o Spend) Spend {
	return Spend{Responses: s.Responses + o.Responses, Unpriced: s.Unpriced + o.Unpriced,
		InputTokens: s.InputTokens + o.InputTokens, CachedTokens: s.CachedTokens + o.CachedTokens,
		CacheWriteTokens: s.CacheWriteTokens + o.CacheWriteTokens, OutputTokens: s.OutputTokens + o.OutputTokens,
		CostNanoUSD: s.CostNanoUSD + o.CostNanoUSD}
}

// Priced reports whether every response has a known cost.
func (s Spend) Priced() bool { return s.Responses > 0 && s.Unpriced == 0 }

// CachedShare is the part of the input read from the cache, in whole percent.
func (s Spend) CachedShare() int {
	if s.InputTokens == 0 {
		return 0
	}
	return s.CachedTokens * 100 / s.InputTokens
}
