package main

import (
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/ui"
)

// TestWelcomeProbeIsARealRequest (issue 28): the welcome card's Test connection resolves the
// settings as the app does (here the environment's base URL wins over the preset's) and sends
// one chat request with the typed key.
func TestWelcomeProbeIsARealRequest(t *testing.T) {
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	env := map[string]string{providers.EnvBaseURL: srv.URL()}
	p, _ := providers.Lookup(providers.OpenAI)
	srv.Enqueue(fakellm.Text("OK", 1))
	got, err := probe(commonFlags{}, func(k string) string { return env[k] })(t.Context(),
		ui.Settings{Preset: p.Name, BaseURL: p.BaseURL, Model: p.DefaultModel, APIKey: "sk-typed-in-the-card-0001"})
	if err != nil || !strings.Contains(got, p.DefaultModel) || !strings.Contains(got, "OK") {
		t.Fatalf("probe: %q %v", got, err)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	if last.Chat == nil || last.Header.Get("Authorization") != "Bearer sk-typed-in-the-card-0001" {
		t.Fatalf("the probe sent %+v", last)
	}
}

func TestFirstRunOnlyWithoutProviderOrDemoFlag(t *testing.T) {
	demo := &model{demo: &fakellm.Server{}}
	for _, c := range []struct {
		asked bool
		m     *model
		want  bool
	}{{false, demo, true}, {true, demo, false}, {false, &model{}, false}, {false, nil, false}} {
		if got := isFirstRun(c.asked, c.m); got != c.want {
			t.Errorf("isFirstRun(%v, demo %v) = %v", c.asked, c.m != nil && c.m.demo != nil, got)
		}
	}
}

// TestModelOptionsFlagsWin (issue 28): Settings' reply limits reach the runtime, the limits of
// PHOENIX_OUTPUT_LIMITS win over them for the same model (in any case), and the efforts pass.
func TestModelOptionsFlagsWin(t *testing.T) {
	env := map[string]string{EnvOutputLimits: "GPT-4o=111"}
	limits, efforts, err := modelOptions(commonFlags{}, func(k string) string { return env[k] },
		ui.Settings{OutputLimits: map[string]int{"gpt-4o": 999, "o3": 5000}, ReasoningEfforts: map[string]string{"o3": "low"}})
	if err != nil {
		t.Fatal(err)
	}
	if limits["gpt-4o"] != 111 || limits["o3"] != 5000 || len(limits) != 2 || efforts["o3"] != "low" {
		t.Fatalf("limits %v efforts %v", limits, efforts)
	}
}
