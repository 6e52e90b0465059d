package llm

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/providers"
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
	// Preset names an entry of providers' table; it supplies the base URL and model when
	// those are not set elsewhere.
	Preset         string
	ConnectTimeout time.Duration
	IdleTimeout    time.Duration
}

// ResolveConfig merges the sources field by field: flags, then the environment, then the
// app's settings, then the preset's defaults. The preset itself is chosen the same way; when
// none is named it is guessed from the base URL's host, and a base URL nobody recognises
// (llama.cpp, vLLM, a company proxy) keeps its own URL and gets no default model from a
// preset, so that the app asks for one instead of sending an OpenAI model name to it.
func ResolveConfig(flags Config, getenv func(string) string, settings Config) Config {
	firstDur := func(vals ...time.Duration) time.Duration {
		for _, v := range vals {
			if v > 0 {
				return v
			}
		}
		return 0
	}
	// The precedence of flags, environment and settings is providers.Choose's; the flag
	// names only label the source, which this function does not report.
	choose := func(f providers.Field, flag, setting string) string {
		v, _ := providers.Choose(f, flag, "", getenv, setting)
		return v
	}
	out := Config{
		BaseURL:        choose(providers.FieldBaseURL, flags.BaseURL, settings.BaseURL),
		APIKey:         choose(providers.FieldAPIKey, flags.APIKey, settings.APIKey),
		Model:          choose(providers.FieldModel, flags.Model, settings.Model),
		Preset:         presetName(choose(providers.FieldPreset, flags.Preset, settings.Preset)),
		ConnectTimeout: firstDur(flags.ConnectTimeout, settings.ConnectTimeout, DefaultConnectTimeout),
		IdleTimeout:    firstDur(flags.IdleTimeout, settings.IdleTimeout, DefaultIdleTimeout),
	}
	switch {
	case out.Preset == "" && out.BaseURL == "":
		out.Preset = providers.Default
	case out.Preset == "" || out.Preset == providers.Custom:
		// A typed URL: a known host still gets its preset's defaults.
		out.Preset = providers.ForURL(out.BaseURL)
	}
	if p, ok := providers.Lookup(out.Preset); ok {
		if out.BaseURL == "" {
			out.BaseURL = p.BaseURL
		}
		if out.Model == "" {
			out.Model = p.DefaultModel
		}
	}
	return out
}

// presetName is the canonical name of a chosen provider, or the choice itself, lower-cased,
// when it names none (Validate refuses it then).
func presetName(chosen string) string {
	if c := providers.Canonical(chosen); c != "" {
		return c
	}
	return strings.ToLower(chosen)
}

// Validate reports what is missing before a client is built, in words for a person.
func (c Config) Validate() error {
	if c.BaseURL == "" {
		return fmt.Errorf("no endpoint is configured: set a base URL in Settings or %s", providers.EnvBaseURL)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("the base URL %q is not an http(s) URL: correct it in Settings or %s", c.BaseURL, providers.EnvBaseURL)
	}
	if c.Model == "" {
		return fmt.Errorf("no model is configured: choose one in Settings or set %s", providers.EnvModel)
	}
	p, known := providers.Lookup(c.Preset)
	if c.Preset != "" && !known {
		return fmt.Errorf("there is no provider preset %q: use one of %s, or set a base URL instead", c.Preset, strings.Join(providers.Names(), ", "))
	}
	if known && p.NeedsKey && c.APIKey == "" {
		return fmt.Errorf("%s needs an API key: enter it in Settings or set %s", p.Label, providers.EnvAPIKey)
	}
	return nil
}

// String describes the configuration with the key masked, so that it is safe in logs.
func (c Config) String() string {
	return fmt.Sprintf("preset=%s base_url=%s model=%s api_key=%s connect_timeout=%s idle_timeout=%s",
		orNone(c.Preset), orNone(c.BaseURL), orNone(c.Model), providers.MaskKey(c.APIKey), c.ConnectTimeout, c.IdleTimeout)
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
