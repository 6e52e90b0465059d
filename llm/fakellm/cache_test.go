package fakellm

import (
	"bytes"
	"net/http"
	"testing"
)

// Issue 27: a request that repeats an earlier one and grows at its end is reported as mostly
// cached; one that changes its start is not; a first request has nothing cached.
func TestPrefixCacheAccounting(t *testing.T) {
	s := start(t)
	cached := func(msgs ...Message) (int, int) {
		t.Helper()
		status, out, _ := post(t, s, ChatRequest{Model: "demo", Messages: msgs})
		if status != http.StatusOK || out.Usage == nil {
			t.Fatalf("status %d, usage %v", status, out.Usage)
		}
		if out.Usage.PromptTokensDetails == nil {
			return 0, out.Usage.PromptTokens
		}
		return out.Usage.PromptTokensDetails.CachedTokens, out.Usage.PromptTokens
	}
	long := "echo: a first question with enough words to be worth caching, repeated. "
	for range 4 {
		long += long
	}
	if c, _ := cached(user(long)); c != 0 {
		t.Fatalf("first request: %d cached tokens; want 0", c)
	}
	c, prompt := cached(user(long), Message{Role: "assistant", Content: Content{Text: "ok"}}, user("echo: and more"))
	if c*100 < prompt*80 || c > prompt {
		t.Fatalf("grown request: %d of %d tokens cached; want most of them", c, prompt)
	}
	c, prompt = cached(user("echo: changed start. " + long))
	if c*100 > prompt*10 {
		t.Fatalf("changed start: %d of %d tokens cached; want almost none", c, prompt)
	}
}

// sharedPrefix agrees with a byte-by-byte count at every length around its block size.
func TestSharedPrefix(t *testing.T) {
	a := make([]byte, 3*4096+17)
	for i := range a {
		a[i] = byte(i * 7)
	}
	for _, at := range []int{0, 1, 4095, 4096, 4097, 8191, 8192, 3*4096 + 16} {
		b := append([]byte(nil), a...)
		b[at]++
		if got := sharedPrefix(a, b); got != at {
			t.Errorf("differ at %d: sharedPrefix = %d", at, got)
		}
	}
	if got := sharedPrefix(a, a[:100]); got != 100 {
		t.Errorf("a prefix of itself: %d", got)
	}
}

// The remembered prompts stay within recentBodies and recentBytes, the newest always kept
// (issue 43: the demo server lives as long as the app).
func TestRecentPromptsAreBounded(t *testing.T) {
	s := start(t)
	big := func(n int, c byte) []byte { return bytes.Repeat([]byte{c}, n) }
	for i := range 3 * recentBodies {
		s.cachedTokens(big(100, byte('a'+i%26)))
	}
	if len(s.recent) != recentBodies {
		t.Fatalf("%d small prompts kept; want %d", len(s.recent), recentBodies)
	}
	for i := range 6 {
		s.cachedTokens(big(recentBytes/3, byte('a'+i)))
	}
	total := 0
	for _, r := range s.recent {
		total += len(r)
	}
	if total > recentBytes {
		t.Fatalf("%d bytes of prompts kept; want at most %d", total, recentBytes)
	}
	huge := big(recentBytes+1, 'z')
	s.cachedTokens(huge)
	if len(s.recent) != 1 || len(s.recent[0]) != len(huge) {
		t.Fatalf("after a prompt larger than the bound: %d kept; want the newest alone", len(s.recent))
	}
	if got := s.cachedTokens(append(huge, 'y')); got < len(huge)/4 {
		t.Fatalf("a prompt grown from the newest: %d tokens cached; want all of the newest's", got)
	}
}
