package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/phoenix-desktop/phoenix/domain"
)

// probePrompt and probeLimit make "Test connection" a real request that costs next to
// nothing: a few tokens in, at most probeLimit out.
const (
	probePrompt = "This is a connection test. Reply with the single word OK."
	probeLimit  = 32
)

// ProbeResult is what a test request found out.
type ProbeResult struct {
	// Model is the model that answered.
	Model string
	// Reply is the start of its answer ("" when it was cut before any text).
	Reply string
}

// String is the result for a person: which model answered and what it said.
func (r ProbeResult) String() string {
	if r.Reply == "" {
		return fmt.Sprintf("Connected: %s answered.", r.Model)
	}
	return fmt.Sprintf("Connected: %s answered “%s”.", r.Model, r.Reply)
}

// Probe sends one small chat request, the way a conversation's would go out (the same
// endpoint, key, model and request fields), so that "Test connection" proves that the key
// and the model work, not only that the server lists models. A server with no configured
// model is asked for its list and the first model tried. An answer cut at the test's small
// limit (a thinking model spends it on reasoning) still proves the connection.
func (c *Client) Probe(ctx context.Context) (ProbeResult, error) {
	model := c.cfg.Model
	if model == "" {
		ids, err := c.ListModels(ctx)
		if err != nil {
			return ProbeResult{}, err
		}
		if len(ids) == 0 {
			return ProbeResult{}, newError(domain.ErrorInvalidRequest, 0, "the server lists no models: load or pull one, then test again", nil)
		}
		model = ids[0]
	}
	resp, err := c.Stream(ctx, Request{Model: model, ExtraUserText: probePrompt, MaxOutputTokens: probeLimit}, func(Delta) {})
	var e *Error
	if errors.As(err, &e) && e.Kind == domain.ErrorOutputLimit {
		return ProbeResult{Model: model}, nil
	}
	if err != nil {
		return ProbeResult{}, err
	}
	reply := strings.Join(strings.Fields(resp.Text), " ")
	if r := []rune(reply); len(r) > 60 {
		reply = string(r[:60]) + "…"
	}
	return ProbeResult{Model: model, Reply: reply}, nil
}
