package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/statcache"
)

// ConfigFileName is the file in the app's config directory that lists the person's servers.
const ConfigFileName = "mcp.json"

// ProjectFileName is a project's own server list, in its working directory. Its servers are
// offered, never started until the person allows them for that directory.
const ProjectFileName = ".mcp.json"

// ServerConfig is one server, in the shape other MCP clients write: either a command (stdio)
// or a URL (streamable HTTP, or the legacy HTTP+SSE transport with "type": "sse").
//
// Command, Args, Env values, Cwd, URL, Headers values and the oauth clientId and clientSecret may hold ${VAR}, ${env:VAR},
// ${VAR:-default} and ${workspaceFolder}; they are expanded when the server starts (see
// expand), so the file keeps what the person wrote.
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Cwd is the directory a stdio server runs in; relative to the conversation's working
	// directory, which is the default.
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is what some clients write beside a command or URL ("stdio", "http",
	// "streamable-http", "sse"); it is checked against the rest, and "sse" picks the legacy
	// transport.
	Type string `json:"type,omitempty"`
	// Timeout, in milliseconds (as other clients write it), bounds the server's start and
	// each of its requests; 0 takes the hub's defaults (Options).
	Timeout int64 `json:"timeout,omitempty"`
	// Disabled keeps a server in the file without starting it (Settings' Enable switch).
	Disabled bool `json:"disabled,omitempty"`
	// AlwaysAllow names the server's tools marked destructive that run without asking
	// (the card's "Always allow this tool"; the key other clients use for it). Honoured for
	// the person's own servers only: a project's file cannot allow its own tools. It is not
	// part of the fingerprint, so allowing a tool neither restarts the server nor revokes a
	// project server's approval.
	AlwaysAllow []string `json:"alwaysAllow,omitempty"`
	// OAuth is how a URL server's sign-in registers and what it asks for, in the shape Claude
	// Code and VS Code read; without it the app finds its own client (a Client ID Metadata
	// Document or dynamic registration) and the scopes the server names.
	OAuth *OAuthConfig `json:"oauth,omitempty"`
}

// OAuthConfig is a URL server's "oauth" section: a client registered with the server's
// authorization server beforehand (one that offers neither a Client ID Metadata Document nor
// dynamic registration needs one), the scopes to ask for, and the loopback port that client
// was registered with.
type OAuthConfig struct {
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret is a reference to an environment variable (${VAR}), never the secret
	// itself: a configuration file is no place for it. Without it the secret is read from the
	// keyring (`phoenix-desktop mcp login --client-secret NAME`), and a client with neither is
	// a public one.
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scopes, space-separated, replace the scopes the server names at a sign-in.
	Scopes string `json:"scopes,omitempty"`
	// CallbackPort fixes the port of the redirect (http://127.0.0.1:PORT/callback), for a
	// client registered with that address; 0 picks a free port.
	CallbackPort int `json:"callbackPort,omitempty"`
}

// validate checks the section of the URL server name.
func (o *OAuthConfig) validate(name string, expanded bool) error {
	switch {
	case o.ClientSecret != "" && o.ClientID == "":
		return fmt.Errorf(`MCP server %s: "oauth" has a clientSecret without a clientId; give the clientId the secret belongs to`, name)
	case o.ClientSecret != "" && !expanded && !isReference(o.ClientSecret):
		return fmt.Errorf(`MCP server %s: "oauth"."clientSecret" must name an environment variable, like "${MY_CLIENT_SECRET}", not hold the secret: put the secret in that variable, or leave clientSecret out and save it in the keyring with phoenix-desktop mcp login --client-secret %s`, name, name)
	case o.CallbackPort < 0 || o.CallbackPort > 65535:
		return fmt.Errorf(`MCP server %s: "oauth"."callbackPort" %d is not a port; give 1 to 65535, or leave it out for any free port`, name, o.CallbackPort)
	}
	return nil
}

// isReference reports whether s is exactly one ${…} reference.
func isReference(s string) bool {
	return strings.HasPrefix(s, "${") && strings.HasSuffix(s, "}") && strings.Count(s, "${") == 1
}

// IsURL reports whether the server is reached over HTTP rather than started as a command.
func (c ServerConfig) IsURL() bool { return c.URL != "" }

// IsSSE reports whether a URL server uses the legacy HTTP+SSE transport (deprecated by the
// protocol; served for configurations copied from other clients).
func (c ServerConfig) IsSSE() bool { return c.IsURL() && c.Type == typeSSE }

// Kind is "stdio", "url" or "sse", as Settings and `mcp list` show it.
func (c ServerConfig) Kind() string {
	switch {
	case c.IsSSE():
		return typeSSE
	case c.IsURL():
		return "url"
	}
	return "stdio"
}

// The "type" values a server entry may have: the one home of that list.
const typeSSE = "sse"

var (
	stdioTypes = []string{"", "stdio"}
	urlTypes   = []string{"", "http", "streamable-http", "streamableHttp", typeSSE}
)

// timeouts returns the server's start and call timeouts: its own Timeout for both, else the
// defaults.
func (c ServerConfig) timeouts(start, call time.Duration) (time.Duration, time.Duration) {
	if c.Timeout > 0 {
		d := time.Duration(c.Timeout) * time.Millisecond
		return d, d
	}
	return start, call
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
	if c.OAuth != nil && c.OAuth.ClientSecret != "" {
		o := *c.OAuth
		o.ClientSecret = RedactedValue
		c.OAuth = &o
	}
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
	// Invalid are the entries that cannot be used, by name: each disables only itself, is
	// shown with its reason (Settings, `mcp list`, a notice in the conversation), and is
	// written back as it was when the file is saved.
	Invalid map[string]InvalidServer `json:"-"`
	// Notes say what of the file was ignored (VS Code's "inputs").
	Notes []string `json:"-"`
	// Source is the file it was read from, for messages; set by LoadConfig.
	Source string `json:"-"`

	// key is the top-level key the file keeps its servers under ("mcpServers", or VS Code's
	// "servers"); raw is each entry as written, so an entry the app did not change is saved
	// byte for byte (keys the app does not know included); rest are the file's other
	// top-level keys, saved unchanged.
	key  string
	raw  map[string]json.RawMessage
	rest map[string]json.RawMessage
}

// InvalidServer is an entry of the file that cannot be used.
type InvalidServer struct {
	// Config is what could be read of it (for display); Reason says what is wrong and what
	// to do.
	Config ServerConfig
	Reason string
	raw    json.RawMessage
}

// The top-level keys a file may keep its servers under: the one home of that list.
const (
	keyMCPServers = "mcpServers"
	keyVSCode     = "servers"
	keyInputs     = "inputs"
)

// clone copies the configuration deeply enough for an edit.
func (c Config) clone() Config {
	out := c
	out.Servers = maps.Clone(c.Servers)
	if out.Servers == nil {
		out.Servers = map[string]ServerConfig{}
	}
	out.Invalid = maps.Clone(c.Invalid)
	out.Notes = slices.Clone(c.Notes)
	return out
}

// MarshalJSON writes the file in the shape it was read in: its servers under the same key,
// unchanged entries as they were written, invalid ones too, and the other top-level keys.
func (c Config) MarshalJSON() ([]byte, error) {
	servers := map[string]json.RawMessage{}
	for name, inv := range c.Invalid {
		if _, replaced := c.Servers[name]; !replaced && inv.raw != nil {
			servers[name] = inv.raw
		}
	}
	for name, sc := range c.Servers {
		if raw, ok := c.raw[name]; ok {
			if was, err := decodeServer(raw); err == nil && sameEntry(was, sc) {
				servers[name] = raw
				continue
			}
		}
		data, err := json.Marshal(sc)
		if err != nil {
			return nil, err
		}
		servers[name] = data
	}
	top := maps.Clone(c.rest)
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	data, err := json.Marshal(servers)
	if err != nil {
		return nil, err
	}
	key := c.key
	if key == "" {
		key = keyMCPServers
	}
	top[key] = data
	return json.Marshal(top)
}

func decodeServer(raw json.RawMessage) (ServerConfig, error) {
	var sc ServerConfig
	err := json.Unmarshal(raw, &sc)
	return sc, err
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

// Validate checks one server's configuration, as written.
func (c ServerConfig) Validate(name string) error { return c.validate(name, false) }

// validate checks one server's configuration; expanded is set for one whose variables were
// expanded (resolved), where a client secret is the secret itself.
func (c ServerConfig) validate(name string, expanded bool) error {
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
		if !slices.Contains(urlTypes, c.Type) {
			return fmt.Errorf("MCP server %s: type %q is not supported for a url; use \"http\" (streamable HTTP) or \"sse\" (the legacy transport)", name, c.Type)
		}
	default:
		if !slices.Contains(stdioTypes, c.Type) {
			return fmt.Errorf("MCP server %s: type %q does not go with a command; use \"stdio\" or leave it out", name, c.Type)
		}
	}
	if c.OAuth != nil {
		if !c.IsURL() || c.IsSSE() {
			return fmt.Errorf(`MCP server %s: "oauth" is for a URL (streamable HTTP) server; remove it from this one`, name)
		}
		if err := c.OAuth.validate(name, expanded); err != nil {
			return err
		}
	}
	if c.Timeout < 0 {
		return fmt.Errorf("MCP server %s: timeout %d is negative; give milliseconds, or leave it out for the default", name, c.Timeout)
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

// ParseConfig reads a configuration from JSON: {"mcpServers": {...}} as most clients write
// it, or VS Code's {"servers": {...}, "inputs": [...]}. An empty document (or {}) is an empty
// configuration. An entry that cannot be used lands in Invalid and disables only itself; the
// error is for a file that is not JSON or lists no servers at all.
func ParseConfig(data []byte) (Config, error) {
	c := Config{Servers: map[string]ServerConfig{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Config{}, fmt.Errorf("not a valid MCP configuration (expected {\"mcpServers\": {...}}): %w", err)
	}
	if len(top) == 0 {
		return c, nil
	}
	c.key = keyMCPServers
	if _, ok := top[keyMCPServers]; !ok {
		if _, ok := top[keyVSCode]; !ok {
			return Config{}, fmt.Errorf("no MCP servers found: the file has neither %q nor VS Code's %q (it has %s); put the servers under {\"mcpServers\": {NAME: {\"command\": …}}}",
				keyMCPServers, keyVSCode, strings.Join(slices.Sorted(maps.Keys(top)), ", "))
		}
		c.key = keyVSCode
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(top[c.key], &entries); err != nil {
		return Config{}, fmt.Errorf("not a valid MCP configuration: %q must be an object of servers by name: %w", c.key, err)
	}
	c.rest = top
	delete(c.rest, c.key)
	if _, ok := top[keyInputs]; ok {
		c.Notes = append(c.Notes, fmt.Sprintf("%q is ignored: the app does not prompt for inputs; a server that uses ${input:…} is not started (put the value in an environment variable and write ${env:NAME})", keyInputs))
	}
	c.raw = entries
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		sc, err := decodeServer(entries[name])
		if err == nil {
			err = sc.Validate(name)
		} else {
			err = fmt.Errorf("MCP server %s is not a valid entry: %w", name, err)
		}
		if err != nil {
			if c.Invalid == nil {
				c.Invalid = map[string]InvalidServer{}
			}
			c.Invalid[name] = InvalidServer{Config: sc, Reason: err.Error(), raw: entries[name]}
			continue
		}
		c.Servers[name] = sc
	}
	return c, nil
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
	c.Source = path
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
	compact, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode MCP configuration: %w", err)
	}
	var pretty bytes.Buffer
	err = json.Indent(&pretty, compact, "", "  ")
	data := pretty.Bytes()
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
	c.AlwaysAllow = nil
	data, _ := json.Marshal(c) // maps marshal with sorted keys: stable
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// sameEntry reports whether two entries would be written alike, every field included.
func sameEntry(a, b ServerConfig) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
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
	c, err := projectFiles.Load(filepath.Join(cwd, ProjectFileName), LoadConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return Config{Servers: map[string]ServerConfig{}}, nil
	}
	if err != nil {
		return Config{}, err
	}
	return c, nil
}

// projectFiles keeps what each project's .mcp.json held while the file stays the same one
// (statcache): it is read before and after every tool call, and an unchanged file now costs
// a stat. Callers do not change the Config they get.
var projectFiles statcache.Cache[Config]

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
