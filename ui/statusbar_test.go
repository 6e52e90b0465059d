package ui

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

func TestRetryingStatusCountsDown_REQ_BED_006(t *testing.T) {
	h, id := newOpenConversation(t, nil)
	h.typeAndSend("hi")
	h.waitFor("thinking", func() bool { return h.status() == "Thinking…" })
	if _, err := h.f.apply(id, domain.LLMError{Exec: h.f.exec(id), Kind: domain.ErrorRateLimit, Message: "rate limited", RetryAfter: 4e9}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("retrying", func() bool { return strings.HasPrefix(h.status(), "Retrying") })
	if h.status() != "Retrying (2 of 3) in 4 s" {
		t.Errorf("status %q", h.status())
	}
	if !h.m.status.ticking.Load() {
		t.Error("the countdown does not tick")
	}
}
