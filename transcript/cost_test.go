package transcript

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 27: a reply shows its tokens, its cache share and, only when known, its cost; a
// conversation's total says when it is a lower bound.
func TestUsageAndSpendLines(t *testing.T) {
	priced := domain.Usage{InputTokens: 12_300, CachedTokens: 11_070, CacheWriteTokens: 1_000, OutputTokens: 340,
		CostNanoUSD: 4_200_000, CostFrom: domain.CostFromProvider}
	if got, want := UsageLine(priced), "12.3k in (90% cached, 1k written to cache) · 340 out · $0.0042"; got != want {
		t.Errorf("UsageLine = %q; want %q", got, want)
	}
	unpriced := domain.Usage{InputTokens: 900, OutputTokens: 12}
	if got, want := UsageLine(unpriced), "900 in · 12 out"; got != want {
		t.Errorf("UsageLine without a price = %q; want %q", got, want)
	}
	free := domain.Usage{InputTokens: 900, OutputTokens: 12, CostFrom: domain.CostFromPrices}
	if got, want := UsageLine(free), "900 in · 12 out · $0.0000"; got != want {
		t.Errorf("UsageLine of a free model = %q; want %q", got, want)
	}
	s := domain.Spend{}.Add(priced).Add(priced)
	if got, want := SpendLine(s), "2 replies · 24.6k in (90% cached, 2k written to cache) · 680 out · $0.0084"; got != want {
		t.Errorf("SpendLine = %q; want %q", got, want)
	}
	s = s.Add(unpriced)
	if got, want := SpendLine(s), "3 replies · 25.5k in (86% cached, 2k written to cache) · 692 out · at least $0.0084 (1 without a price)"; got != want {
		t.Errorf("SpendLine, partly priced = %q; want %q", got, want)
	}
	if got, want := SpendLine(domain.Spend{}.Add(unpriced)), "1 reply · 900 in · 12 out"; got != want {
		t.Errorf("SpendLine, unpriced = %q; want %q", got, want)
	}
	if got := Money(123_456_789_000); got != "$123.46" {
		t.Errorf("Money = %q", got)
	}
}
