package llm

import "strings"

// textOnlyModels lists name prefixes of well-known models that cannot read images. The list
// is short on purpose: a model we do not know is assumed to see, because refusing a capable
// model is worse than letting the provider say no with its own message.
var textOnlyModels = []string{
	"gpt-3.5",
	"gpt-4-0314", "gpt-4-0613", "gpt-4-32k",
	"o1-mini", "o3-mini",
	"deepseek-chat", "deepseek-reasoner", "deepseek-coder", "deepseek-r1", "deepseek-v3",
	"qwen2.5-coder", "qwen3", "qwq",
	"codestral",
	"llama3:", "llama3.1", "llama3.3",
	"mistral:", "mistral-7b",
}

// visionMarkers override the list for variants that do see, such as qwen3-vl.
var visionMarkers = []string{"-vl", "vision", "llava"}

// SupportsVision reports whether a model accepts images. Router prefixes such as
// "openai/" or "deepseek/" are ignored; "gpt-4" alone is the original text-only model.
func SupportsVision(model string) bool {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	for _, v := range visionMarkers {
		if strings.Contains(m, v) {
			return true
		}
	}
	if m == "gpt-4" || m == "llama3" || m == "mistral" {
		return false
	}
	for _, p := range textOnlyModels {
		if strings.HasPrefix(m, p) {
			return false
		}
	}
	return true
}
