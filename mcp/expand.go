package mcp

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The variables a configuration may refer to, as other clients write them:
//
//	${VAR}               the app's environment variable VAR (Claude Code, Cursor)
//	${env:VAR}           the same (VS Code)
//	${VAR:-default}      default when VAR is unset or empty (also ${env:VAR:-default})
//	${workspaceFolder}   the conversation's working directory (VS Code)
//
// Anything else in ${…} (VS Code's ${input:…}, a name with odd characters) makes the server
// unusable with an error that says so, rather than reaching it literally. A "$" not followed
// by "{" is left alone, so shell snippets in args keep working.

// workspaceVar is VS Code's name for the working directory.
const workspaceVar = "workspaceFolder"

// expander resolves variables for one server start.
type expander struct {
	lookup func(string) (string, bool)
	cwd    string
}

// expand replaces the ${…} references in s.
func (x expander) expand(s string) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("%q has a ${ without its closing }", s)
		}
		ref := s[i+2 : i+end]
		val, err := x.resolve(ref)
		if err != nil {
			return "", err
		}
		b.WriteString(val)
		s = s[i+end+1:]
	}
}

func (x expander) resolve(ref string) (string, error) {
	name, def, hasDef := strings.Cut(ref, ":-")
	if rest, ok := strings.CutPrefix(name, "env:"); ok {
		name = rest
	}
	if name == workspaceVar && x.cwd != "" {
		return x.cwd, nil
	}
	if strings.HasPrefix(name, "input:") {
		return "", fmt.Errorf("${%s} asks for an input, which the app does not prompt for: put the value in an environment variable and write ${env:NAME}", ref)
	}
	if !validVarName(name) {
		return "", fmt.Errorf("${%s} is not a variable the app knows: write ${NAME}, ${env:NAME} or ${NAME:-default}", ref)
	}
	v, set := x.lookup(name)
	if hasDef && v == "" {
		return def, nil
	}
	if !set {
		return "", fmt.Errorf("the environment variable %s is not set in the app's environment: set it before starting the app, or give a default as ${%s:-value}", name, name)
	}
	return v, nil
}

func validVarName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// resolved is the server's configuration with every variable expanded and Cwd made absolute
// (relative to cwd, the conversation's directory; "~/" is the home directory), as it starts.
// The configuration as written stays what the fingerprint and the file hold.
func (c ServerConfig) resolved(name, cwd string, lookup func(string) (string, bool)) (ServerConfig, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	x := expander{lookup: lookup, cwd: cwd}
	var firstErr error
	one := func(what, s string) string {
		v, err := x.expand(s)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("MCP server %s: %s: %w", name, what, err)
		}
		return v
	}
	out := c
	out.Command = one("command", c.Command)
	out.Args = nil
	for i, a := range c.Args {
		out.Args = append(out.Args, one(fmt.Sprintf("args[%d]", i), a))
	}
	out.URL = one("url", c.URL)
	out.Cwd = one("cwd", c.Cwd)
	expandMap := func(what string, m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		res := make(map[string]string, len(m))
		for _, k := range slices.Sorted(maps.Keys(m)) {
			res[k] = one(what+" "+k, m[k])
		}
		return res
	}
	out.Env = expandMap("env", c.Env)
	out.Headers = expandMap("header", c.Headers)
	if c.OAuth != nil {
		o := *c.OAuth
		o.ClientID = one("oauth clientId", o.ClientID)
		o.ClientSecret = one("oauth clientSecret", o.ClientSecret)
		out.OAuth = &o
	}
	if firstErr != nil {
		return ServerConfig{}, firstErr
	}
	if out.Cwd != "" {
		if rest, ok := strings.CutPrefix(out.Cwd, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				out.Cwd = filepath.Join(home, rest)
			}
		}
		if !filepath.IsAbs(out.Cwd) {
			out.Cwd = filepath.Join(cwd, out.Cwd)
		}
		if fi, err := os.Stat(out.Cwd); err != nil || !fi.IsDir() {
			return ServerConfig{}, fmt.Errorf("MCP server %s: its cwd %s is not a directory: fix \"cwd\" in its configuration", name, out.Cwd)
		}
	}
	if err := out.validate(name, true); err != nil {
		return ServerConfig{}, fmt.Errorf("%w (after expanding its variables)", err)
	}
	return out, nil
}
