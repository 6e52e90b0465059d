package ui

import (
	"fmt"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// costText follows the context meter's caption with what the last reply and the whole
// conversation cost, and how much of the last prompt the provider read from its cache
// (issue 27): " · last reply $0.0042, 90% cached · $0.12 in all". Without a known cost the
// tokens say it all; nothing is said before the first reply.
func costText(last domain.Usage, s domain.Spend) string {
	if s.Responses == 0 {
		return ""
	}
	var out string
	if last.CostFrom != "" {
		out = " · last reply " + transcript.Money(last.CostNanoUSD)
		if last.CachedTokens > 0 {
			out += fmt.Sprintf(", %d%% cached", last.CachedTokens*100/max(1, last.InputTokens))
		}
	} else if last.CachedTokens > 0 {
		out = fmt.Sprintf(" · %d%% of the last prompt cached", last.CachedTokens*100/max(1, last.InputTokens))
	}
	switch {
	case s.Priced():
		out += " · " + transcript.Money(s.CostNanoUSD) + " in all"
	case s.Unpriced < s.Responses:
		out += " · at least " + transcript.Money(s.CostNanoUSD) + " in all"
	}
	return out
}
