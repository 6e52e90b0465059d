package main

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/providers"
)

// TestOverridesAgreeWithResolveConfig: what the Settings dialog is told wins (and locks) must
// be exactly what the client's configuration takes, for every mix of flags, variables and
// saved settings.
func TestOverridesAgreeWithResolveConfig(t *testing.T) {
	values := map[string]string{
		providers.EnvBaseURL: "http://phx/v1", providers.EnvOpenAIBaseURL: "http://oai/v1",
		providers.EnvAPIKey: "phx-key", providers.EnvOpenAIAPIKey: "oai-key", providers.EnvModel: "env-model",
	}
	names := []string{providers.EnvBaseURL, providers.EnvOpenAIBaseURL, providers.EnvAPIKey, providers.EnvOpenAIAPIKey, providers.EnvModel}
	saved := llm.Config{BaseURL: "http://saved/v1", APIKey: "saved-key", Model: "saved-model"}
	for mask := 0; mask < 1<<(len(names)+2); mask++ {
		env := map[string]string{}
		for i, n := range names {
			if mask&(1<<i) != 0 {
				env[n] = values[n]
			}
		}
		var flags commonFlags
		if mask&(1<<len(names)) != 0 {
			flags.baseURL = "http://flag/v1"
		}
		if mask&(1<<(len(names)+1)) != 0 {
			flags.model = "flag-model"
		}
		getenv := func(k string) string { return env[k] }
		cfg := llm.ResolveConfig(llm.Config{BaseURL: flags.baseURL, Model: flags.model}, getenv, saved)
		over := flags.overrides(getenv)
		for f, got := range map[providers.Field]string{providers.FieldBaseURL: cfg.BaseURL, providers.FieldAPIKey: cfg.APIKey, providers.FieldModel: cfg.Model} {
			src, overridden := over[f]
			want := map[providers.Field]string{providers.FieldBaseURL: saved.BaseURL, providers.FieldAPIKey: saved.APIKey, providers.FieldModel: saved.Model}[f]
			switch {
			case !overridden:
			case src == "--"+flagBaseURL:
				want = flags.baseURL
			case src == "--"+flagModel:
				want = flags.model
			default:
				want = env[src]
			}
			if got != want {
				t.Fatalf("env %v, flags %+v: %s resolves to %q, but the dialog is told %q wins (%q)", env, flags, f, got, src, want)
			}
		}
	}
}
