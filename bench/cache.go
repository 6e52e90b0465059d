package bench

import (
	"context"
	"fmt"
	"strings"
)

// cacheRowName is the prompt-cache row (issue 27).
const cacheRowName = "uncached share of the prompt, 20-round conversation (prefix cache)"

// uncachedShare runs one turn of 20 tool rounds against the fake server, whose usage reports
// as cached the part of each prompt shared with an earlier request (llm/fakellm/cache.go),
// and returns the share of all input tokens that was not cached, in percent: what a
// provider that caches prefixes by itself charges at the full rate. The target, at most
// 10%, is a cached share of at least 90%; it holds only while every request repeats the
// previous one byte for byte.
func uncachedShare(ctx context.Context, o Options) ([]float64, error) {
	e, conv, err := newConversation(ctx, true)
	if err != nil {
		return nil, err
	}
	defer e.close()
	rest, err := e.turn(ctx, conv.ID, strings.Repeat("bash: echo a line of output\n", 20))
	if err != nil {
		return nil, err
	}
	s := rest.Spent
	if s.Responses != 21 || s.InputTokens == 0 {
		return nil, fmt.Errorf("the turn made %d requests with %d input tokens; want 21 requests", s.Responses, s.InputTokens)
	}
	return []float64{float64(s.InputTokens-s.CachedTokens) * 100 / float64(s.InputTokens)}, nil
}
