package llm

import (
	"errors"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// TestProbeSendsOneSmallChatRequest: Test connection (issue 28) is a real chat request of the
// configured model with a small reply limit, and says which model answered and what.
func TestProbeSendsOneSmallChatRequest(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	s.Enqueue(fakellm.Text("OK", 1))
	got, err := c.Probe(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "gpt-4o" || got.Reply != "OK" || got.String() != "Connected: gpt-4o answered “OK”." {
		t.Fatalf("probe %+v: %s", got, got)
	}
	chat := s.LastChat()
	if chat == nil || chat.Model != "gpt-4o" || chat.OutputLimit() != probeLimit {
		t.Fatalf("the probe sent %+v", chat)
	}
}

// A server without a configured model (a local one) is asked for its list first; a refused
// key is the provider's error, in the words every request uses; a reply cut at the small
// limit still proves the connection.
func TestProbeWithoutAModelAndFailures(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, func(cfg *Config) { cfg.Model = "" })
	got, err := c.Probe(t.Context())
	if err != nil || got.Model != domain.DemoModel || got.Reply == "" {
		t.Fatalf("probe without a model: %+v %v", got, err)
	}

	c = newTestClient(t, s, nil, nil)
	s.Enqueue(fakellm.Failure(401, "Incorrect API key provided"))
	_, err = c.Probe(t.Context())
	var e *Error
	if !errors.As(err, &e) || e.Kind != domain.ErrorAuth || !strings.Contains(err.Error(), "Incorrect API key") {
		t.Fatalf("a refused key: %v", err)
	}

	s.Enqueue(fakellm.Reply{Text: "", FinishReason: "length"})
	if got, err := c.Probe(t.Context()); err != nil || got.Model != "gpt-4o" || got.Reply != "" {
		t.Fatalf("a reply cut at the limit: %+v %v", got, err)
	}
}

// TestReasoningEffortOnlyForThinkingModels (issue 28): the effort Settings chose is sent as
// reasoning_effort to a thinking model, and never to another, which would refuse the field.
func TestReasoningEffortOnlyForThinkingModels(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := newTestClient(t, s, nil, nil)
	for _, tc := range []struct {
		model string
		sent  bool
	}{{"o3", true}, {"gpt-4o", false}} {
		s.Enqueue(fakellm.Text("ok", 1))
		req := Request{Model: tc.model, History: []domain.Message{userMsg(0, "hi")}, ReasoningEffort: "high"}
		if _, err := c.Stream(t.Context(), req, func(Delta) {}); err != nil {
			t.Fatal(err)
		}
		raw := string(s.Requests()[len(s.Requests())-1].Raw)
		if got := strings.Contains(raw, `"reasoning_effort":"high"`); got != tc.sent {
			t.Errorf("%s: reasoning_effort sent %v; want %v\n%s", tc.model, got, tc.sent, raw)
		}
	}
}
