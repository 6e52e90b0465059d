package providers

import (
	"net/url"
	"strings"
)

// Preset is a known provider: where it lives and a sensible first model.
type Preset struct {
	// Name is the stable identifier: saved in the settings, accepted by --provider and
	// PHOENIX_PRESET.
	Name string
	// Label is what the Settings dialog shows.
	Label   string
	BaseURL string
	// DefaultModel is the model new conversations start with; "" for servers whose models
	// depend on what the person installed, so that the app asks instead of guessing.
	DefaultModel string
	// NeedsKey is false for local servers, which accept any key or none.
	NeedsKey bool
}

// Names of the presets used in code.
const (
	OpenAI     = "openai"
	OpenRouter = "openrouter"
	Anthropic  = "anthropic"
	Ollama     = "ollama"
	LlamaCpp   = "llamacpp"
	VLLM       = "vllm"
	LMStudio   = "lmstudio"
	// Custom is the Settings dialog's choice of typing a base URL; it is no preset.
	Custom = "custom"
	// Default is used when nothing names a provider or a base URL.
	Default = OpenAI
)

// presets are the providers offered, in the order the Settings dialog lists them.
// Anthropic's entry is its OpenAI-compatible endpoint, which takes the key as a bearer token
// like OpenAI does.
var presets = []Preset{
	{Name: OpenAI, Label: "OpenAI", BaseURL: "https://api.openai.com/v1", DefaultModel: "gpt-4.1", NeedsKey: true},
	{Name: OpenRouter, Label: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1",
		DefaultModel: "anthropic/claude-sonnet-4.5", NeedsKey: true},
	{Name: Anthropic, Label: "Anthropic (OpenAI-compatible endpoint)", BaseURL: "https://api.anthropic.com/v1",
		DefaultModel: "claude-sonnet-4-5", NeedsKey: true},
	{Name: Ollama, Label: "Ollama (local)", BaseURL: "http://localhost:11434/v1", DefaultModel: "qwen3"},
	{Name: LlamaCpp, Label: "llama.cpp server (local)", BaseURL: "http://localhost:8080/v1"},
	{Name: VLLM, Label: "vLLM (local)", BaseURL: "http://localhost:8000/v1"},
	{Name: LMStudio, Label: "LM Studio (local)", BaseURL: "http://localhost:1234/v1"},
}

// customLabel is how the Settings dialog offers Custom.
const customLabel = "Custom"

// All returns the presets in the order the Settings dialog lists them (without Custom).
func All() []Preset { return append([]Preset(nil), presets...) }

// Lookup finds a preset by its name, case-insensitively. It also accepts the label a build
// before this one saved in the settings ("OpenAI", "Anthropic (OpenAI-compatible)"), so that
// people's saved choice keeps working.
func Lookup(name string) (Preset, bool) {
	name = strings.TrimSpace(name)
	for _, p := range presets {
		if strings.EqualFold(p.Name, name) || strings.EqualFold(p.Label, name) {
			return p, true
		}
	}
	if strings.EqualFold(name, "Anthropic (OpenAI-compatible)") {
		return Lookup(Anthropic)
	}
	return Preset{}, false
}

// Canonical turns a saved or typed provider choice into its name: a preset's name, Custom,
// or "" when it names nothing known.
func Canonical(name string) string {
	if p, ok := Lookup(name); ok {
		return p.Name
	}
	if strings.EqualFold(strings.TrimSpace(name), Custom) {
		return Custom
	}
	return ""
}

// Label is what the Settings dialog shows for a name: the preset's label, "Custom" for
// Custom, and "" otherwise.
func Label(name string) string {
	if p, ok := Lookup(name); ok {
		return p.Label
	}
	if Canonical(name) == Custom {
		return customLabel
	}
	return ""
}

// Names are the presets' names, for help texts and error messages.
func Names() []string {
	out := make([]string, len(presets))
	for i, p := range presets {
		out[i] = p.Name
	}
	return out
}

// Labels are the Settings dialog's choices: every preset's label, then Custom's.
func Labels() []string {
	out := make([]string, 0, len(presets)+1)
	for _, p := range presets {
		out = append(out, p.Label)
	}
	return append(out, customLabel)
}

// ForURL recognises a preset by the host (and port) of a base URL; it returns "" for any
// other, such as a company proxy.
func ForURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	for _, p := range presets {
		pu, err := url.Parse(p.BaseURL)
		if err == nil && strings.EqualFold(pu.Host, u.Host) {
			return p.Name
		}
	}
	return ""
}

// MaskKey shows whether a key is set and, for a long key, its last four characters: enough to
// tell two keys apart, useless to an attacker. It is the only form in which a key may reach a
// log, an error message or the screen.
func MaskKey(key string) string {
	key = strings.TrimSpace(key)
	switch {
	case key == "":
		return "(none)"
	case len(key) < 16:
		return "****"
	}
	return "****" + key[len(key)-4:]
}
