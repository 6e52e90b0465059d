package llm

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/phoenix-desktop/phoenix/domain"
)

// This file reads what go-openai's Usage does not decode: the cache and cost figures
// providers add to the usage object (issue 27). The shapes are those of recorded traffic
// (llm/testdata/usage):
//   - prompt_tokens_details.cached_tokens: the part of the prompt read from the cache
//     (OpenAI, xAI, OpenRouter, Vercel, Z.ai); prompt_cache_hit_tokens is DeepSeek's word;
//   - prompt_tokens_details.cache_write_tokens (OpenRouter) and cache_creation_input_tokens
//     (Vercel's gateway, Anthropic's own word): the part written to the cache;
//   - cost in US dollars (OpenRouter, Vercel), plus cost_details.upstream_inference_cost
//     when OpenRouter's is_byok says the person's own key paid the provider;
//     cost_in_usd_ticks in ten-billionths of a dollar (xAI).

// usageExtra is the usage object's fields beyond go-openai's.
type usageExtra struct {
	Usage *struct {
		Cost             *float64 `json:"cost"`
		CostInUSDTicks   *int64   `json:"cost_in_usd_ticks"`
		IsBYOK           bool     `json:"is_byok"`
		CacheCreation    int      `json:"cache_creation_input_tokens"`
		PromptCacheHit   int      `json:"prompt_cache_hit_tokens"`
		PromptTokensInfo *struct {
			CachedTokens     int `json:"cached_tokens"`
			CacheWriteTokens int `json:"cache_write_tokens"`
		} `json:"prompt_tokens_details"`
		CostDetails *struct {
			Upstream *float64 `json:"upstream_inference_cost"`
		} `json:"cost_details"`
	} `json:"usage"`
}

// mayCarryUsage is a cheap test that spares the second decode of chunks without usage.
func mayCarryUsage(raw []byte) bool { return bytes.Contains(raw, []byte(`"usage":{`)) }

// usageFigures are the cache and cost figures of one response.
type usageFigures struct {
	cached, cacheWrite int
	// costNano is the provider's cost in billionths of a dollar when hasCost.
	costNano int64
	hasCost  bool
}

// readUsageExtra decodes a chunk's extra usage fields; ok is false when it has no usage.
func readUsageExtra(raw []byte) (usageFigures, bool) {
	var x usageExtra
	if json.Unmarshal(raw, &x) != nil || x.Usage == nil {
		return usageFigures{}, false
	}
	u := x.Usage
	var f usageFigures
	if d := u.PromptTokensInfo; d != nil {
		f.cached, f.cacheWrite = d.CachedTokens, d.CacheWriteTokens
	}
	f.cached = max(f.cached, u.PromptCacheHit)
	f.cacheWrite = max(f.cacheWrite, u.CacheCreation)
	switch {
	case u.Cost != nil:
		usd := *u.Cost
		if u.IsBYOK && u.CostDetails != nil && u.CostDetails.Upstream != nil {
			usd += *u.CostDetails.Upstream
		}
		f.costNano, f.hasCost = int64(math.Round(usd*1e9)), true
	case u.CostInUSDTicks != nil:
		f.costNano, f.hasCost = (*u.CostInUSDTicks+5)/10, true
	}
	return f, true
}

// apply adds the figures to a usage: the cache counts bounded by the input they are part
// of, and the provider's cost.
func (f usageFigures) apply(u domain.Usage) domain.Usage {
	u.CachedTokens = min(f.cached, u.InputTokens)
	u.CacheWriteTokens = min(f.cacheWrite, u.InputTokens-u.CachedTokens)
	if f.hasCost {
		u.CostNanoUSD, u.CostFrom = f.costNano, domain.CostFromProvider
	}
	return u
}

// Priced gives a response's usage its cost from prices when the provider sent none: the
// model's price (the person's own in overrides, else the table's), and none when the
// model has no price or the usage was estimated, since a cost is never guessed.
func Priced(resp Response, overrides map[string]domain.Price) domain.Usage {
	u := resp.Usage
	if u.CostFrom != "" || resp.UsageEstimated {
		return u
	}
	if p, ok := domain.PriceFor(u.Model, overrides); ok {
		u.CostNanoUSD, u.CostFrom = domain.CostOf(u, p), domain.CostFromPrices
	}
	return u
}
