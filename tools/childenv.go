package tools

import "strings"

// ChildEnv is base without its credentials (IsSecret), with own's variables set over it: the
// environment of a process the person configured for the app to start (an MCP server, a
// language server), here or on a remote machine, where base is that machine's own.
func ChildEnv(base []string, own map[string]string) []string {
	out := make([]string, 0, len(base)+len(own))
	for _, kv := range base {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || IsSecret(name) {
			continue
		}
		if _, replaced := own[name]; replaced {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range own {
		out = append(out, k+"="+v)
	}
	return out
}
