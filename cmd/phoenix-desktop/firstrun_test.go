package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/domain"

	"github.com/phoenix-desktop/phoenix/llm"
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

// Issue 28: headless chat uses the reply limits saved in Settings, as the window does, and
// --output-limit still wins over them.
func TestHeadlessChatUsesTheSavedReplyLimits(t *testing.T) {
	// Fyne's preferences keep writing and watching their directory from goroutines of their
	// own after the test, so the directory is removed without t.TempDir's check.
	cfg, err := os.MkdirTemp("", "phoenix-prefs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(cfg) })
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv(EnvOutputLimits, "")
	dir := filepath.Join(cfg, "fyne", assets.AppID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "preferences.json"), []byte(`{"settings.output_limits":["demo=77"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, c := range []struct {
		flags []string
		want  int
	}{{nil, 77}, {[]string{"demo=99"}, 99}} {
		a, err := localEnv().openChat(commonFlags{dataDir: t.TempDir(), demo: true, outputLimits: c.flags}, log)
		if err != nil {
			t.Fatal(err)
		}
		got := a.runtime.OutputLimit(domain.DemoModel)
		a.Close()
		if got != c.want {
			t.Errorf("--output-limit %v: the demo model's reply limit is %d, want %d", c.flags, got, c.want)
		}
	}
}

// A --base-url given alone (a local server that needs no key, as Ollama or llama.cpp) is that
// server, not the offline demo model.
func TestBaseURLFlagWithoutAKeyIsNotTheDemo(t *testing.T) {
	for _, name := range []string{"PHOENIX_API_KEY", "OPENAI_API_KEY", "PHOENIX_BASE_URL", "OPENAI_BASE_URL", "PHOENIX_PROVIDER"} {
		t.Setenv(name, "")
	}
	m, err := openModel(commonFlags{baseURL: "http://127.0.0.1:11434/v1", model: "qwen3"}, llm.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.demo != nil || m.config.BaseURL != "http://127.0.0.1:11434/v1" {
		t.Fatalf("--base-url alone ran %q (demo %v)", m.config.BaseURL, m.demo != nil)
	}
}
