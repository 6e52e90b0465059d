package domain

import (
	"strings"
	"testing"
)

// Issue 27: a price row names a model exactly or with a dated snapshot suffix, never a longer
// name, and the person's price wins over the table's.
func TestPriceFor(t *testing.T) {
	gpt4o, _ := PriceFor("gpt-4o", nil)
	mini, _ := PriceFor("gpt-4o-mini", nil)
	if gpt4o.Input != 2.50 || mini.Input != 0.15 {
		t.Fatalf("gpt-4o %+v, gpt-4o-mini %+v; want their own rows", gpt4o, mini)
	}
	for _, model := range []string{"GPT-4o-2024-08-06", " claude-sonnet-4-20250514 ", "demo"} {
		if _, ok := PriceFor(model, nil); !ok {
			t.Errorf("PriceFor(%q) unknown; want the row of its family", model)
		}
	}
	for _, model := range []string{"claude-opus-4-6", "gpt-5.1", "my-gpt-4o", "llama3.1:8b", ""} {
		if p, ok := PriceFor(model, nil); ok {
			t.Errorf("PriceFor(%q) = %+v; want unknown (a price is never guessed)", model, p)
		}
	}
	own := Price{Input: 1, Output: 2}
	if p, ok := PriceFor("GPT-4o", map[string]Price{"gpt-4o": own}); !ok || p != own {
		t.Fatalf("override: %+v %v; want the person's price", p, ok)
	}
	if p, ok := PriceFor("llama3.1:8b", map[string]Price{"llama3.1:8b": {}}); !ok || p != (Price{}) {
		t.Fatalf("a local model the person priced at zero: %+v %v", p, ok)
	}
}

// Every row is distinct and lower case, so that a row can never be unreachable.
func TestPriceTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, row := range modelPrices {
		if row.model != strings.ToLower(row.model) || seen[row.model] {
			t.Errorf("row %q is not lower case or repeats", row.model)
		}
		seen[row.model] = true
		if row.price.CachedInput > row.price.Input {
			t.Errorf("row %q: cached input costs more than input", row.model)
		}
	}
}

// CostOf prices each part at its rate: uncached input, cache reads, cache writes (the input
// price when the row has none), output.
func TestCostOf(t *testing.T) {
	p := Price{Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15}
	u := Usage{InputTokens: 10_000, CachedTokens: 6_000, CacheWriteTokens: 2_000, OutputTokens: 1_000}
	// 2000×3 + 6000×0.3 + 2000×3.75 + 1000×15 = 30,300 millionths of a dollar.
	if got := CostOf(u, p); got != 30_300_000 {
		t.Fatalf("CostOf = %d nano-USD; want 30,300,000", got)
	}
	p.CacheWrite = 0
	if got := CostOf(u, p); got != 28_800_000 {
		t.Fatalf("CostOf without a write price = %d; want writes at the input price, 28,800,000", got)
	}
	if got := CostOf(Usage{InputTokens: 5, CachedTokens: 9}, p); got != 2_700 {
		t.Fatalf("more cached than input = %d; want the cached part only, 2,700", got)
	}
}

// Spent counts responses, tokens and known costs; an unpriced response makes the total a
// lower bound.
func TestSpendAdd(t *testing.T) {
	var s Spend
	s = s.Add(Usage{InputTokens: 100, CachedTokens: 80, OutputTokens: 10, CostNanoUSD: 500, CostFrom: CostFromProvider})
	if !s.Priced() || s.CachedShare() != 80 || s.CostNanoUSD != 500 {
		t.Fatalf("after one priced response: %+v", s)
	}
	s = s.Add(Usage{InputTokens: 100, OutputTokens: 10})
	if s.Priced() || s.Unpriced != 1 || s.Responses != 2 || s.InputTokens != 200 || s.CachedShare() != 40 || s.CostNanoUSD != 500 {
		t.Fatalf("after an unpriced response: %+v", s)
	}
	if got := s.Plus(s); got.Responses != 4 || got.CostNanoUSD != 1000 || got.CachedTokens != 160 {
		t.Fatalf("Plus = %+v", got)
	}
}

// Row "LlmRequesting + LlmResponse": the response's usage and cost are added to Spent; a
// stale response adds nothing (issue 27).
func TestTransition_ResponseAddsToSpent(t *testing.T) {
	c := requesting(t)
	exec := mustExec(t, c)
	usage := Usage{InputTokens: 1200, CachedTokens: 1000, OutputTokens: 34, CostNanoUSD: 7_000, CostFrom: CostFromPrices}
	next, _ := step(t, c, LLMResponse{Exec: exec, Text: "Done.", Usage: usage})
	if want := (Spend{}).Add(usage); next.Spent != want {
		t.Fatalf("spent = %+v; want %+v", next.Spent, want)
	}
	again, _, _ := Transition(next, LLMResponse{Exec: exec, Text: "late", Usage: usage})
	if again.Spent != next.Spent {
		t.Fatalf("a stale response changed spent to %+v", again.Spent)
	}
}

// Row "AwaitingContinuation + LlmResponse → ContextExhausted": the summary's request is paid
// for too.
func TestTransition_REQ_BED_020_ContinuationAddsToSpent(t *testing.T) {
	c, _ := step(t, newConv(t), UserTriggerContinuation{})
	usage := Usage{InputTokens: 9_100, OutputTokens: 300, CostNanoUSD: 42, CostFrom: CostFromProvider}
	next, _ := step(t, c, LLMResponse{Exec: mustExec(t, c), Text: "Summary.", Usage: usage})
	if next.Spent.Responses != 1 || next.Spent.CostNanoUSD != 42 || next.Spent.OutputTokens != 300 {
		t.Fatalf("spent = %+v; want the summary's response", next.Spent)
	}
}
