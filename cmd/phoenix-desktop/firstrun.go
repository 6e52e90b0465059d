package main

import (
	"context"

	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/ui"
)

// isFirstRun says whether the window opens on the welcome card (issue 28): the demo model was
// started because nothing configures a provider (or what does is incomplete), not because
// the person asked for it with --demo.
func isFirstRun(askedDemo bool, m *model) bool {
	return !askedDemo && m != nil && m.demo != nil
}

// probe is the welcome card's "Test connection": the settings resolved as the app resolves
// them (flags and environment first), then one small real request (llm.Client.Probe).
func probe(flags commonFlags, getenv func(string) string) func(ctx context.Context, s ui.Settings) (string, error) {
	return func(ctx context.Context, s ui.Settings) (string, error) {
		cfg := llm.ResolveConfig(llm.Config{BaseURL: flags.baseURL, Model: flags.model, Preset: flags.preset}, getenv, settingsConfig(s))
		client, err := llm.New(cfg, nil)
		if err != nil {
			return "", err
		}
		got, err := client.Probe(ctx)
		if err != nil {
			return "", err
		}
		return got.String(), nil
	}
}
