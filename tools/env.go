package tools

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// secretNames are removed from the environment of every command, whatever the mode: a
// prompt-injected command must not find the app's API keys (or the person's other tokens) in
// `env`.
var secretNames = map[string]bool{
	"OPENAI_API_KEY": true, "PHOENIX_API_KEY": true, "ANTHROPIC_API_KEY": true, "OPENROUTER_API_KEY": true,
}

// IsSecret reports whether an environment variable name looks like a credential: the named
// keys, and any *_API_KEY, *_TOKEN, *SECRET*, *PASSWORD* or *PASSWD* variable. MCP servers
// are started without them too.
func IsSecret(name string) bool {
	n := strings.ToUpper(name)
	return secretNames[n] ||
		strings.HasSuffix(n, "API_KEY") || strings.HasSuffix(n, "_TOKEN") || n == "TOKEN" ||
		strings.Contains(n, "SECRET") || strings.Contains(n, "PASSWORD") || strings.Contains(n, "PASSWD")
}

// commandEnv is the environment a bash command gets: the app's own without secrets, with
// pagers and credential prompts switched off (stdin is empty and there is no terminal), and,
// in Restricted mode, caches pointed into the private temp dir so that builds and tests can
// run against a read-only home. The sandbox sets TMPDIR itself.
func commandEnv(base []string, restricted bool, tempDir string) []string {
	set := map[string]string{
		"PAGER":               "cat",
		"GIT_PAGER":           "cat",
		"GIT_TERMINAL_PROMPT": "0",
	}
	if restricted && tempDir != "" {
		cache := filepath.Join(tempDir, ".cache")
		set["XDG_CACHE_HOME"] = cache
		set["GOCACHE"] = filepath.Join(cache, "go-build")
	}
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || IsSecret(name) {
			continue
		}
		if _, replaced := set[name]; replaced {
			continue
		}
		out = append(out, kv)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		out = append(out, k+"="+set[k])
	}
	return out
}
