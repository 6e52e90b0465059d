package llm

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"
)

// Default timeouts. The connect timeout covers TCP and TLS set-up. The idle timeout is the
// longest silence accepted while waiting for the first chunk or between two chunks; it is
// generous because reasoning models can think for minutes before their first token, and a
// stalled stream is still caught and retried (REQ-BED-006).
const (
	DefaultConnectTimeout = 15 * time.Second
	DefaultIdleTimeout    = 180 * time.Second
)

// Config says where and how to reach the model. The zero value of a field means "not set"
// for ResolveConfig.
type Config struct {
	BaseURL string
	APIKey  string
	Model   string
	// Preset names an entry of Presets; it supplies the base URL and model when those are
	// not set elsewhere.
	Preset         string
	ConnectTimeout time.Duration
	IdleTimeout    time.Duration
}

// Preset is a known provider: where it lives and a sensible first model.
type Preset struct {
	Name string
	// Label is what the settings dialog shows.
	Label        string
	BaseURL      string
	DefaultModel string
	// NeedsKey is false for local servers, which accept any key or none.
	NeedsKey bool
}

// Presets are the providers offered by name. Anthropic's entry is its OpenAI-compatible
// endpoint, which takes the key as a bearer token like OpenAI does.
var Presets = map[string]Preset{
	"openai": {Name: "openai", Label: "OpenAI", BaseURL: "https://api.openai.com/v1",
		DefaultModel: "gpt-4.1", NeedsKey: true},
	"openrouter": {Name: "openrouter", Label: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1",
		DefaultModel: "anthropic/claude-sonnet-4.5", NeedsKey: true},
	"ollama": {Name: "ollama", Label: "Ollama (local)", BaseURL: "http://localhost:11434/v1",
		DefaultModel: "qwen3", NeedsKey: false},
	"anthropic": {Name: "anthropic", Label: "Anthropic (OpenAI-compatible endpoint)", BaseURL: "https://api.anthropic.com/v1",
		DefaultModel: "claude-sonnet-4-5", NeedsKey: true},
}

// DefaultPreset is used when nothing names a provider or a base URL.
const DefaultPreset = "openai"

// Environment variables read by ResolveConfig. The PHOENIX_ ones win over the OPENAI_ ones,
// so that a developer can point this app elsewhere without disturbing other tools.
const (
	EnvBaseURL       = "PHOENIX_BASE_URL"
	EnvAPIKey        = "PHOENIX_API_KEY"
	EnvModel         = "PHOENIX_MODEL"
	EnvPreset        = "PHOENIX_PRESET"
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"
)

// ResolveConfig merges the sources field by field: flags, then the environment, then the
// app's settings, then the preset's defaults. The preset itself is chosen the same way; when
// none is named it is guessed from the base URL's host, and a base URL nobody recognises
// (llama.cpp, vLLM, a company proxy) keeps its own URL and gets no default model from a
// preset, so that the app asks for one instead of sending an OpenAI model name to it.
func ResolveConfig(flags Config, getenv func(string) string, settings Config) Config {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	first := func(vals ...string) string {
		for _, v := range vals {
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
		return ""
	}
	firstDur := func(vals ...time.Duration) time.Duration {
		for _, v := range vals {
			if v > 0 {
				return v
			}
		}
		return 0
	}
	out := Config{
		BaseURL:        first(flags.BaseURL, getenv(EnvBaseURL), getenv(EnvOpenAIBaseURL), settings.BaseURL),
		APIKey:         first(flags.APIKey, getenv(EnvAPIKey), getenv(EnvOpenAIAPIKey), settings.APIKey),
		Model:          first(flags.Model, getenv(EnvModel), settings.Model),
		Preset:         strings.ToLower(first(flags.Preset, getenv(EnvPreset), settings.Preset)),
		ConnectTimeout: firstDur(flags.ConnectTimeout, settings.ConnectTimeout, DefaultConnectTimeout),
		IdleTimeout:    firstDur(flags.IdleTimeout, settings.IdleTimeout, DefaultIdleTimeout),
	}
	if out.Preset == "" {
		if out.BaseURL == "" {
			out.Preset = DefaultPreset
		} else {
			out.Preset = presetForURL(out.BaseURL)
		}
	}
	if p, ok := Presets[out.Preset]; ok {
		if out.BaseURL == "" {
			out.BaseURL = p.BaseURL
		}
		if out.Model == "" {
			out.Model = p.DefaultModel
		}
	}
	return out
}

// presetForURL recognises the hosts of the presets; it returns "" for any other.
func presetForURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	for name, p := range Presets {
		pu, err := url.Parse(p.BaseURL)
		if err == nil && strings.EqualFold(pu.Host, u.Host) {
			return name
		}
	}
	return ""
}

// Validate reports what is missing before a client is built, in words for a person.
func (c Config) Validate() error {
	if c.BaseURL == "" {
		return fmt.Errorf("no endpoint is configured: set a base URL in Settings or %s", EnvBaseURL)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the base URL %q is not an http(s) URL: correct it in Settings or %s", c.BaseURL, EnvBaseURL)
	}
	if c.Model == "" {
		return fmt.Errorf("no model is configured: choose one in Settings or set %s", EnvModel)
	}
	if p, ok := Presets[c.Preset]; ok && p.NeedsKey && c.APIKey == "" {
		return fmt.Errorf("%s needs an API key: enter it in Settings or set %s", p.Label, EnvAPIKey)
	}
	return nil
}

// maskKey shows whether a key is set and, for a long key, its last four characters, which
// is enough to tell two keys apart and useless to an attacker.
func maskKey(key string) string {
	switch {
	case key == "":
		return "(none)"
	case len(key) < 16:
		return "****"
	}
	return "****" + key[len(key)-4:]
}

// String describes the configuration with the key masked, so that it is safe in logs.
func (c Config) String() string {
	return fmt.Sprintf("preset=%s base_url=%s model=%s api_key=%s connect_timeout=%s idle_timeout=%s",
		orNone(c.Preset), orNone(c.BaseURL), orNone(c.Model), maskKey(c.APIKey), c.ConnectTimeout, c.IdleTimeout)
}

// GoString keeps %#v from printing the key.
func (c Config) GoString() string { return "llm.Config{" + c.String() + "}" }

// LogValue keeps slog from printing the key.
func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
