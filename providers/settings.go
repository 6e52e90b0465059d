package providers

import "strings"

// Field is a setting that flags, the environment, the saved settings and a preset can each
// supply.
type Field string

const (
	FieldBaseURL Field = "base_url"
	FieldAPIKey  Field = "api_key"
	FieldModel   Field = "model"
	FieldPreset  Field = "preset"
)

// Environment variables. The PHOENIX_ ones win over the OPENAI_ ones, so that a developer can
// point this app elsewhere without disturbing other tools.
const (
	EnvBaseURL       = "PHOENIX_BASE_URL"
	EnvAPIKey        = "PHOENIX_API_KEY"
	EnvModel         = "PHOENIX_MODEL"
	EnvPreset        = "PHOENIX_PRESET"
	EnvOpenAIBaseURL = "OPENAI_BASE_URL"
	EnvOpenAIAPIKey  = "OPENAI_API_KEY"
)

// envVars lists, for each field, the variables that set it, the winner first.
var envVars = map[Field][]string{
	FieldBaseURL: {EnvBaseURL, EnvOpenAIBaseURL},
	FieldAPIKey:  {EnvAPIKey, EnvOpenAIAPIKey},
	FieldModel:   {EnvModel},
	FieldPreset:  {EnvPreset},
}

// EnvVars returns the variables that set a field, the one that wins first.
func EnvVars(f Field) []string { return append([]string(nil), envVars[f]...) }

// Source says where a chosen value came from.
type Source struct {
	// Name is the flag ("--model") or the environment variable ("PHOENIX_MODEL") that set
	// the value, "settings" for the saved settings, or "" when nothing did.
	Name string
	// Overrides is true when the value came from a flag or the environment, which win over
	// what the Settings dialog saves (the dialog says so and locks the field).
	Overrides bool
}

// FromSettings is the Source name of a value from the saved settings.
const FromSettings = "settings"

// Choose applies the precedence every setting follows: a flag, then the environment (in
// EnvVars order), then the saved settings. Blank values count as unset. flagName names the
// flag in the returned Source; a preset's defaults come after all of these (see the LLM
// client's ResolveConfig).
func Choose(f Field, flag, flagName string, getenv func(string) string, setting string) (string, Source) {
	if v := strings.TrimSpace(flag); v != "" {
		return v, Source{Name: flagName, Overrides: true}
	}
	if getenv != nil {
		for _, name := range envVars[f] {
			if v := strings.TrimSpace(getenv(name)); v != "" {
				return v, Source{Name: name, Overrides: true}
			}
		}
	}
	if v := strings.TrimSpace(setting); v != "" {
		return v, Source{Name: FromSettings}
	}
	return "", Source{}
}
