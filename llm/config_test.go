package llm

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/providers"
)

func TestResolveConfig(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		name     string
		flags    Config
		env      func(string) string
		settings Config
		want     Config
	}{
		{
			name: "nothing set gives the default preset",
			env:  env(),
			want: Config{Preset: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1"},
		},
		{
			name:     "flags win over everything",
			flags:    Config{BaseURL: "http://flag/v1", APIKey: "flagkey", Model: "flagmodel"},
			env:      env(providers.EnvBaseURL, "http://env/v1", providers.EnvAPIKey, "envkey", providers.EnvModel, "envmodel"),
			settings: Config{BaseURL: "http://set/v1", APIKey: "setkey", Model: "setmodel"},
			want:     Config{BaseURL: "http://flag/v1", APIKey: "flagkey", Model: "flagmodel"},
		},
		{
			name:     "PHOENIX_ env wins over OPENAI_ env and settings",
			env:      env(providers.EnvBaseURL, "http://phx/v1", providers.EnvOpenAIBaseURL, "http://oai/v1", providers.EnvAPIKey, "phxkey", providers.EnvOpenAIAPIKey, "oaikey", providers.EnvModel, "m1"),
			settings: Config{BaseURL: "http://set/v1", APIKey: "setkey", Model: "setmodel"},
			want:     Config{BaseURL: "http://phx/v1", APIKey: "phxkey", Model: "m1"},
		},
		{
			name:     "OPENAI_ env wins over settings",
			env:      env(providers.EnvOpenAIBaseURL, "http://oai/v1", providers.EnvOpenAIAPIKey, "oaikey"),
			settings: Config{BaseURL: "http://set/v1", APIKey: "setkey", Model: "setmodel"},
			want:     Config{BaseURL: "http://oai/v1", APIKey: "oaikey", Model: "setmodel"},
		},
		{
			name:  "preset fills what is missing",
			flags: Config{Preset: "ollama"},
			env:   env(),
			want:  Config{Preset: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen3"},
		},
		{
			name:     "preset from settings, model from env",
			env:      env(providers.EnvModel, "claude-opus-4-1", providers.EnvPreset, ""),
			settings: Config{Preset: "Anthropic"},
			want:     Config{Preset: "anthropic", BaseURL: "https://api.anthropic.com/v1", Model: "claude-opus-4-1"},
		},
		{
			name: "preset guessed from a known host",
			env:  env(providers.EnvOpenAIBaseURL, "https://openrouter.ai/api/v1"),
			want: Config{Preset: "openrouter", BaseURL: "https://openrouter.ai/api/v1", Model: "anthropic/claude-sonnet-4.5"},
		},
		{
			name:     "the Settings dialog's Custom with a known host gets that host's preset",
			env:      env(),
			settings: Config{Preset: "custom", BaseURL: "http://localhost:11434/v1"},
			want:     Config{Preset: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen3"},
		},
		{
			name:     "a preset label saved by an older build still works",
			env:      env(),
			settings: Config{Preset: "Anthropic (OpenAI-compatible)"},
			want:     Config{Preset: "anthropic", BaseURL: "https://api.anthropic.com/v1", Model: "claude-sonnet-4-5"},
		},
		{
			name:  "an unknown preset is kept for Validate to refuse",
			flags: Config{Preset: "OpenIA"},
			env:   env(),
			want:  Config{Preset: "openia"},
		},
		{
			name: "unknown host gets no default model",
			env:  env(providers.EnvBaseURL, "http://127.0.0.1:8080/v1"),
			want: Config{BaseURL: "http://127.0.0.1:8080/v1"},
		},
		{
			name:     "timeouts from flags, then settings, then defaults",
			flags:    Config{IdleTimeout: time.Minute},
			env:      env(),
			settings: Config{ConnectTimeout: 3 * time.Second, IdleTimeout: time.Hour},
			want:     Config{Preset: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1", ConnectTimeout: 3 * time.Second, IdleTimeout: time.Minute},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ResolveConfig(tc.flags, tc.env, tc.settings)
			if tc.want.ConnectTimeout == 0 {
				tc.want.ConnectTimeout = DefaultConnectTimeout
			}
			if tc.want.IdleTimeout == 0 {
				tc.want.IdleTimeout = DefaultIdleTimeout
			}
			if got != tc.want {
				t.Fatalf("got  %#v\nwant %#v (keys %q %q)", got, tc.want, got.APIKey, tc.want.APIKey)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"ok", Config{Preset: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4o", APIKey: "k"}, ""},
		{"local without key", Config{Preset: "ollama", BaseURL: "http://localhost:11434/v1", Model: "qwen3"}, ""},
		{"no url", Config{Model: "x"}, "no endpoint"},
		{"bad url", Config{BaseURL: "localhost:1234", Model: "x"}, "not an http(s) URL"},
		{"no model", Config{BaseURL: "http://x/v1"}, "no model"},
		{"preset needs key", Config{Preset: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4o"}, "needs an API key"},
		{"unknown preset", Config{Preset: "openia", BaseURL: "https://api.openai.com/v1", Model: "gpt-4o", APIKey: "k"}, `no provider preset "openia": use one of openai, openrouter`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestConfigNeverPrintsKey(t *testing.T) {
	const key = "sk-proj-SECRETSECRETSECRET1234"
	cfg := Config{BaseURL: "https://api.openai.com/v1", APIKey: key, Model: "gpt-4o", Preset: "openai"}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("config", "cfg", cfg)
	outputs := map[string]string{
		"String": cfg.String(),
		"%v":     fmt.Sprintf("%v", cfg),
		"%+v":    fmt.Sprintf("%+v", cfg),
		"%#v":    fmt.Sprintf("%#v", cfg),
		"slog":   logged.String(),
	}
	for name, out := range outputs {
		if strings.Contains(out, "SECRET") {
			t.Errorf("%s prints the key: %s", name, out)
		}
		if !strings.Contains(out, "****1234") {
			t.Errorf("%s does not show the masked key: %s", name, out)
		}
	}
	if got := (Config{}).String(); !strings.Contains(got, "api_key=(none)") {
		t.Errorf("empty key shown as %q", got)
	}
	if got := (Config{APIKey: "short"}).String(); strings.Contains(got, "short") {
		t.Errorf("short key leaked: %q", got)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tests := []struct {
		name   string
		header http.Header
		want   time.Duration
	}{
		{"seconds", http.Header{"Retry-After": {"12"}}, 12 * time.Second},
		{"fractional seconds", http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond},
		{"http date", http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second},
		{"date in the past", http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{"milliseconds header wins", http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"1"}}, 250 * time.Millisecond},
		{"negative", http.Header{"Retry-After": {"-3"}}, 0},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0},
		{"absent", http.Header{}, 0},
		{"nil", nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseRetryAfter(tc.header, now); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSupportsVision(t *testing.T) {
	tests := []struct {
		model string
		want  bool
	}{
		{"gpt-4o", true},
		{"gpt-4.1-mini", true},
		{"claude-sonnet-4-5", true},
		{"demo", true},
		{"some-new-model", true},
		{"gpt-3.5-turbo", false},
		{"gpt-4", false},
		{"o3-mini", false},
		{"deepseek-chat", false},
		{"deepseek/deepseek-chat", false},
		{"openai/gpt-4o", true},
		{"qwen3:8b", false},
		{"qwen3-vl:8b", true},
		{"llama3.2-vision", true},
		{"llava:13b", true},
		{"llama3.1:8b", false},
	}
	for _, tc := range tests {
		t.Run(tc.model, func(t *testing.T) {
			if got := SupportsVision(tc.model); got != tc.want {
				t.Fatalf("SupportsVision(%q) = %v, want %v", tc.model, got, tc.want)
			}
		})
	}
}
