package providers

import (
	"net/url"
	"strings"
	"testing"
)

func TestPresetsAreWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range All() {
		if p.Name == "" || p.Label == "" || seen[p.Name] || seen[p.Label] {
			t.Errorf("preset %+v: a name and a label are needed, each once", p)
		}
		seen[p.Name], seen[p.Label] = true, true
		u, err := url.Parse(p.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.HasSuffix(p.BaseURL, "/") {
			t.Errorf("%s: base URL %q must be http(s), with a host and without a trailing slash", p.Name, p.BaseURL)
		}
		if ForURL(p.BaseURL) != p.Name {
			t.Errorf("%s: ForURL(%q) = %q: two presets share a host", p.Name, p.BaseURL, ForURL(p.BaseURL))
		}
		if got, _ := Lookup(strings.ToUpper(p.Name)); got != p {
			t.Errorf("Lookup(%q) = %+v", p.Name, got)
		}
		if got, _ := Lookup(p.Label); got != p || Canonical(p.Label) != p.Name || Label(p.Name) != p.Label {
			t.Errorf("%s: the label and the name do not map onto each other", p.Name)
		}
		if p.NeedsKey && strings.Contains(p.BaseURL, "localhost") {
			t.Errorf("%s: a local server needs no key", p.Name)
		}
	}
	if _, ok := Lookup(Default); !ok {
		t.Errorf("the default preset %q is not in the table", Default)
	}
	if labels := Labels(); len(labels) != len(All())+1 || Canonical(labels[len(labels)-1]) != Custom {
		t.Errorf("Labels() = %v: the presets, then Custom", labels)
	}
}

func TestLabelsSavedByOlderBuildsStillResolve(t *testing.T) {
	for saved, want := range map[string]string{
		"OpenAI": OpenAI, "Anthropic (OpenAI-compatible)": Anthropic, "Ollama (local)": Ollama,
		"llama.cpp server (local)": LlamaCpp, "vLLM (local)": VLLM, "LM Studio (local)": LMStudio,
		"Custom": Custom, "openrouter": OpenRouter, "nonsense": "",
	} {
		if got := Canonical(saved); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", saved, got, want)
		}
	}
}

func TestForURL(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.anthropic.com/v1/": Anthropic, "https://OPENROUTER.ai/api/v1": OpenRouter,
		"http://localhost:11434": Ollama, "http://localhost:9999/v1": "", "https://proxy.example/v1": "", "::": "",
	} {
		if got := ForURL(raw); got != want {
			t.Errorf("ForURL(%q) = %q, want %q", raw, got, want)
		}
	}
}

func TestMaskKey(t *testing.T) {
	for key, want := range map[string]string{
		"": "(none)", "  ": "(none)", "abc": "****", "sk-proj-abcdefghijklmnop1234": "****1234",
	} {
		if got := MaskKey(key); got != want {
			t.Errorf("MaskKey(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestChooseFollowsThePrecedence(t *testing.T) {
	env := map[string]string{EnvOpenAIBaseURL: "http://oai/v1"}
	getenv := func(k string) string { return env[k] }
	check := func(name, gotV string, got Source, wantV, wantFrom string, overrides bool) {
		t.Helper()
		if gotV != wantV || got.Name != wantFrom || got.Overrides != overrides {
			t.Errorf("%s: got %q from %+v, want %q from %q (overrides %v)", name, gotV, got, wantV, wantFrom, overrides)
		}
	}
	v, s := Choose(FieldBaseURL, "http://flag/v1", "--base-url", getenv, "http://saved/v1")
	check("flag", v, s, "http://flag/v1", "--base-url", true)
	v, s = Choose(FieldBaseURL, " ", "--base-url", getenv, "http://saved/v1")
	check("OPENAI_ env", v, s, "http://oai/v1", EnvOpenAIBaseURL, true)
	env[EnvBaseURL] = "http://phx/v1"
	v, s = Choose(FieldBaseURL, "", "--base-url", getenv, "http://saved/v1")
	check("PHOENIX_ env wins over OPENAI_", v, s, "http://phx/v1", EnvBaseURL, true)
	v, s = Choose(FieldModel, "", "--model", getenv, "gpt-4o")
	check("settings", v, s, "gpt-4o", FromSettings, false)
	v, s = Choose(FieldAPIKey, "", "", nil, "")
	check("nothing", v, s, "", "", false)
}
