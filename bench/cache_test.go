package bench

import (
	"context"
	"testing"
)

// Issue 27: across 20 tool rounds every request repeats the previous one, so at least 90% of
// all input is read from a prefix cache. A ratio of tokens, not a time: it holds on any
// machine, and it fails the day a request stops being byte-stable.
func TestUncachedShareMeetsTarget(t *testing.T) {
	got, err := uncachedShare(context.Background(), Options{Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] > 10 {
		t.Fatalf("uncached share %v%%; want at most 10%%", got)
	}
	t.Logf("uncached share of the prompt: %.2f%%", got[0])
}
