package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ConfigFileName is the file in the app's config directory that lists the person's servers.
const ConfigFileName = "mcp.json"

// ProjectFileName is a project's own server list, in its working directory. Its servers are
// offered, never started until the person allows them for that directory.
const ProjectFileName = ".mcp.json"

// ServerConfig is one server, in the shape other MCP clients write: either a command (stdio)
// or a URL (streamable HTTP).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is what some clients write beside a command or URL ("stdio", "http",
	// "streamable-http"); it is checked against the rest, never needed.
	Type string `json:"type,omitempty"`
	// Disabled keeps a server in the file without starting it (Settings' Enable switch).
	Disabled bool `json:"disabled,omitempty"`
}

// IsURL reports whether the server is reached over HTTP rather than started as a command.
func (c ServerConfig) IsURL() bool { return c.URL != "" }

// Kind is "stdio" or "url", as Settings and `mcp list` show it.
func (c ServerConfig) Kind() string {
	if c.IsURL() {
		return "url"
	}
	return "stdio"
}

// RedactedValue stands for a secret value wherever a configuration is shown.
const RedactedValue = "****"

// Redacted is a copy of the configuration fit to show (`mcp list`, Settings' cards): the
// names of environment variables, headers and URL query parameters are kept, their values,
// which hold tokens, are RedactedValue, and so is a password in the URL. The receiver's maps
// are not touched.
func (c ServerConfig) Redacted() ServerConfig {
	mask := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := make(map[string]string, len(m))
		for k := range m {
			out[k] = RedactedValue
		}
		return out
	}
	c.Env, c.Headers = mask(c.Env), mask(c.Headers)
	if u, err := url.Parse(c.URL); err == nil && c.URL != "" {
		_, hasPassword := u.User.Password()
		if hasPassword {
			u.User = url.User(u.User.Username())
		}
		if q := u.Query(); len(q) > 0 {
			var pairs []string
			for _, k := range slices.Sorted(maps.Keys(q)) {
				for range q[k] {
					pairs = append(pairs, url.QueryEscape(k)+"="+RedactedValue)
				}
			}
			u.RawQuery = strings.Join(pairs, "&")
		}
		c.URL = u.String()
		if hasPassword { // url.UserPassword would print the mask percent-encoded
			user := "//" + u.User.String()
			c.URL = strings.Replace(c.URL, user+"@", user+":"+RedactedValue+"@", 1)
		}
	} else if err != nil {
		c.URL = RedactedValue // an unparsable URL may hide a token anywhere
	}
	return c
}

// Config is the whole file.
type Config struct {
	Servers map[string]ServerConfig `json:"mcpServers"`
}

// serverName is what a server may be called: its name is part of the tool names the model
// sees (mcp__NAME__TOOL, at most 64 of [A-Za-z0-9_-]), and a double underscore would make
// them ambiguous.
var serverName = regexp.MustCompile(`^[A-Za-z0-9-]+(_[A-Za-z0-9-]+)*$`)

// MaxServerNameLen leaves room for the tool's own name in the 64 characters a tool name has.
const MaxServerNameLen = 24

// ValidateName checks a server's name.
func ValidateName(name string) error {
	if len(name) > MaxServerNameLen || !serverName.MatchString(name) {
		return fmt.Errorf("the MCP server name %q is not usable: use at most %d letters, digits, '-' and single '_' (it becomes part of tool names like mcp__%s__TOOL)",
			name, MaxServerNameLen, name)
	}
	return nil
}

// Validate checks one server's configuration.
func (c ServerConfig) Validate(name string) error {
	if err := ValidateName(name); err != nil {
		return err
	}
	switch {
	case c.Command != "" && c.URL != "":
		return fmt.Errorf("MCP server %s has both a command and a url; give one", name)
	case c.Command == "" && c.URL == "":
		return fmt.Errorf("MCP server %s has neither a command nor a url; give one", name)
	case c.URL != "":
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("MCP server %s: url %q is not an http(s) URL", name, c.URL)
		}
		if c.Type != "" && c.Type != "http" && c.Type != "streamable-http" && c.Type != "streamableHttp" {
			return fmt.Errorf("MCP server %s: type %q is not supported for a url; only streamable HTTP is (type \"http\")", name, c.Type)
		}
	default:
		if c.Type != "" && c.Type != "stdio" {
			return fmt.Errorf("MCP server %s: type %q does not go with a command; use \"stdio\" or leave it out", name, c.Type)
		}
	}
	return nil
}

// Validate checks every server; the error names each bad one.
func (c Config) Validate() error {
	var errs []error
	for _, name := range c.Names() {
		if err := c.Servers[name].Validate(name); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Names are the servers' names, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ParseConfig reads a configuration from JSON. An empty document is an empty configuration.
func ParseConfig(data []byte) (Config, error) {
	var c Config
	if len(bytes.TrimSpace(data)) == 0 {
		return Config{Servers: map[string]ServerConfig{}}, nil
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return Config{}, fmt.Errorf("not a valid MCP configuration (expected {\"mcpServers\": {...}}): %w", err)
	}
	if c.Servers == nil {
		c.Servers = map[string]ServerConfig{}
	}
	return c, c.Validate()
}

// LoadConfig reads a configuration file; a missing file is an empty configuration.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Config{Servers: map[string]ServerConfig{}}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("read MCP configuration %s: %w", path, err)
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// SaveConfig writes a configuration atomically. The file is private: env and headers often
// hold tokens.
func SaveConfig(path string, c Config) error {
	if err := c.Validate(); err != nil {
		return err
	}
	if c.Servers == nil {
		c.Servers = map[string]ServerConfig{}
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode MCP configuration: %w", err)
	}
	if err := writePrivateFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("save MCP configuration: %w", err)
	}
	return nil
}

// writePrivateFile replaces path with data atomically (a temporary file renamed over it), so
// that a crash never leaves half a file, readable by the person alone.
func writePrivateFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// ConfigDir is $XDG_CONFIG_HOME/phoenix-desktop, else ~/.config/phoenix-desktop.
func ConfigDir() (string, error) {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the config directory: set XDG_CONFIG_HOME or HOME: %w", err)
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "phoenix-desktop"), nil
}

// DefaultConfigPath is where the person's servers are kept.
func DefaultConfigPath() (string, error) {
	dir, err := ConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, ConfigFileName), nil
}

// fingerprint identifies a project server's exact configuration, so that allowing it covers
// that command and nothing a later edit of the project's file puts in its place.
func fingerprint(c ServerConfig) string {
	data, _ := json.Marshal(c) // maps marshal with sorted keys: stable
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// approvals records which project servers the person allowed: working directory → server
// name → fingerprint of the configuration they saw.
type approvals map[string]map[string]string

func loadApprovals(path string) (approvals, error) {
	a := approvals{}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return a, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read allowed project MCP servers %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); delete it to allow project servers again", path, err)
	}
	return a, nil
}

func saveApprovals(path string, a approvals) error {
	data, err := json.MarshalIndent(a, "", "  ")
	if err != nil {
		return err
	}
	if err := writePrivateFile(path, data); err != nil {
		return fmt.Errorf("save the allowed project MCP servers: %w", err)
	}
	return nil
}

// projectConfig reads cwd/.mcp.json; a missing file is no servers. A server whose name clashes
// with one of the person's own is left out: theirs wins.
func projectConfig(cwd string) (Config, error) {
	if cwd == "" {
		return Config{Servers: map[string]ServerConfig{}}, nil
	}
	c, err := LoadConfig(filepath.Join(cwd, ProjectFileName))
	if err != nil {
		return Config{}, err
	}
	return c, nil
}

// shellQuote quotes argv for bash so that `exec ARGV` runs exactly these words.
func shellQuote(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
