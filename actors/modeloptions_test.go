package actors

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// TestModelOptionsApplyToTheNextRequest (issue 28): the reply limit and the reasoning effort
// Settings saves reach the next request of a conversation already open; the effort only a
// thinking model's.
func TestModelOptionsApplyToTheNextRequest(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) { c.OutputLimits = map[string]int{"o3": 500} })
	c := h.create(NewConversation{Model: "o3"})
	h.turn(c.ID, "echo: before")
	first := h.srv.LastChat()
	if first.OutputLimit() != 500 || strings.Contains(string(h.lastRaw()), "reasoning_effort") {
		t.Fatalf("before Settings: limit %d, body %s", first.OutputLimit(), h.lastRaw())
	}

	h.rt.SetModelOptions(map[string]int{"O3": 1234}, map[string]string{"o3": "high", domain.DemoModel: "high"})
	h.turn(c.ID, "echo: after")
	if got := h.srv.LastChat().OutputLimit(); got != 1234 || h.rt.OutputLimit("o3") != 1234 {
		t.Fatalf("after Settings the limit sent is %d; want 1234", got)
	}
	if !strings.Contains(string(h.lastRaw()), `"reasoning_effort":"high"`) {
		t.Fatalf("after Settings the request has no effort: %s", h.lastRaw())
	}
	if h.rt.ReasoningEffort(domain.DemoModel) != "" {
		t.Error("a model that does not think is given an effort")
	}
	if h.rt.OutputLimit(domain.DemoModel) != domain.MaxOutputFor(domain.DemoModel) {
		t.Error("a model without a limit of its own lost the table's")
	}
}

// lastRaw is the body of the last request the fake server received.
func (h *harness) lastRaw() []byte {
	reqs := h.srv.Requests()
	return reqs[len(reqs)-1].Raw
}
