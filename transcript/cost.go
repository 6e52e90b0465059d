package transcript

import (
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Money writes a cost in US dollars: to the hundredth of a cent below a cent, where one
// turn's cost usually lies, else to the cent.
func Money(nanoUSD int64) string {
	if nanoUSD < 10_000_000 {
		return fmt.Sprintf("$%.4f", float64(nanoUSD)/1e9)
	}
	return fmt.Sprintf("$%.2f", float64(nanoUSD)/1e9)
}

// inputWords are the input tokens with the parts the cache read and wrote.
func inputWords(input, cached, written int) string {
	s := Tokens(input) + " in"
	var cache []string
	if cached > 0 {
		cache = append(cache, fmt.Sprintf("%d%% cached", cached*100/max(1, input)))
	}
	if written > 0 {
		cache = append(cache, Tokens(written)+" written to cache")
	}
	if len(cache) > 0 {
		s += " (" + strings.Join(cache, ", ") + ")"
	}
	return s
}

// UsageLine says what one reply took and cost: "12.3k in (90% cached) · 340 out · $0.0042".
// A reply without a known cost shows its tokens only; a cost is never guessed (issue 27).
func UsageLine(u domain.Usage) string {
	s := inputWords(u.InputTokens, u.CachedTokens, u.CacheWriteTokens) + " · " + Tokens(u.OutputTokens) + " out"
	if u.CostFrom != "" {
		s += " · " + Money(u.CostNanoUSD)
	}
	return s
}

// SpendLine says what a conversation's replies took and cost in all. While some replies have
// no known cost, the sum of the others is marked as a lower bound and the rest counted.
func SpendLine(s domain.Spend) string {
	if s.Responses == 0 {
		return "nothing yet"
	}
	replies := "replies"
	if s.Responses == 1 {
		replies = "reply"
	}
	line := fmt.Sprintf("%d %s · %s · %s out", s.Responses, replies,
		inputWords(s.InputTokens, s.CachedTokens, s.CacheWriteTokens), Tokens(s.OutputTokens))
	switch {
	case s.Priced():
		line += " · " + Money(s.CostNanoUSD)
	case s.Unpriced < s.Responses:
		line += fmt.Sprintf(" · at least %s (%d without a price)", Money(s.CostNanoUSD), s.Unpriced)
	}
	return line
}
