package ui

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Issue 27: the meter's caption adds the last reply's cost and cache share and the
// conversation's total, and never a cost nobody knows.
func TestCostText(t *testing.T) {
	priced := domain.Usage{InputTokens: 10_000, CachedTokens: 9_000, OutputTokens: 100, CostNanoUSD: 4_200_000, CostFrom: domain.CostFromProvider}
	unpriced := domain.Usage{InputTokens: 10_000, CachedTokens: 9_000, OutputTokens: 100}
	tests := []struct {
		last  domain.Usage
		spent domain.Spend
		want  string
	}{
		{domain.Usage{}, domain.Spend{}, ""},
		{priced, domain.Spend{}.Add(priced).Add(priced), " · last reply $0.0042, 90% cached · $0.0084 in all"},
		{unpriced, domain.Spend{}.Add(unpriced), " · 90% of the last prompt cached"},
		{unpriced, domain.Spend{}.Add(priced).Add(unpriced), " · 90% of the last prompt cached · at least $0.0042 in all"},
		{domain.Usage{InputTokens: 5, OutputTokens: 1}, domain.Spend{}.Add(domain.Usage{InputTokens: 5}), ""},
	}
	for _, tt := range tests {
		if got := costText(tt.last, tt.spent); got != tt.want {
			t.Errorf("costText(%+v, %+v) = %q; want %q", tt.last, tt.spent, got, tt.want)
		}
	}
}
