package fakellm

import (
	"bytes"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Prefix-cache accounting, as providers that cache by themselves report it (issue 27): a
// provider's prompt is the tools, then the messages (wherever the body puts its fields), and
// the cached part of a request is the longest run of that prompt's bytes, as the client sent
// them, that it shares from its start with one of the recent requests, counted at four
// characters a token like the rest of the estimated usage and never more than the prompt. A client whose requests repeat the previous one and
// grow at its end sees nearly its whole prompt cached; one that reorders or rewrites its
// history sees how much that costs. Real providers cache in blocks (1,024 tokens and then
// 128 at OpenAI) and for minutes; the fake counts every shared byte and forgets only by
// number, which is what a test of the client's byte stability needs.

// recentBodies bounds the remembered requests: several conversations of a test or a bench
// interleave, and the demo server serves a whole session, so memory stays flat.
const recentBodies = 16

// recentBytes bounds them by size too (issue 43): the demo model serves a whole session in
// the app's own process, and sixteen bodies of a conversation 2,000 turns long held several
// megabytes for as long as the app stayed open. The newest body is always kept, so a
// conversation that grows at its end is still seen as cached.
const recentBytes = 4 << 20

// cachedTokens returns the cached part of a request's prompt (its tools then its messages,
// as sent: decodeChat) and remembers it; raw is kept, so the caller gives it up.
func (s *Server) cachedTokens(raw []byte) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	best := 0
	for _, old := range s.recent {
		best = max(best, sharedPrefix(old, raw))
	}
	s.recent = append(s.recent, raw)
	total := 0
	keep := len(s.recent)
	for i := len(s.recent) - 1; i >= 0; i-- {
		total += len(s.recent[i])
		if len(s.recent)-i > recentBodies || (total > recentBytes && i < len(s.recent)-1) {
			break
		}
		keep = len(s.recent) - i
	}
	drop := len(s.recent) - keep
	s.recent = append(s.recent[:0:0], s.recent[drop:]...)
	return domain.EstimateTokens(string(raw[:best]), 0)
}

// sharedPrefix is the length of the longest common prefix of a and b, compared a block at a
// time (bytes.Equal is the runtime's memequal), so that a long conversation's megabyte
// bodies cost the server microseconds, not a byte loop.
func sharedPrefix(a, b []byte) int {
	const block = 4096
	n := min(len(a), len(b))
	i := 0
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}
