package transcript

import (
	"fmt"
	"strings"
)

// Tokens writes a token count compactly: 950, 12.3k, 1.05M.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d", n)
	case n < 100_000:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/1e6), "0"), ".") + "M"
}

// Thinking is the status while a thinking model reasons, with the size of its reasoning so
// far, before its answer starts.
func Thinking(tokens int) string { return "Thinking (" + Tokens(tokens) + " tokens)…" }
