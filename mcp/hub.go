package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// State is where a server is, as Settings and `mcp list` show it.
type State string

const (
	StateIdle     State = "not started" // configured; starts when a conversation needs it
	StateStarting State = "starting"
	StateRunning  State = "running"
	StateFailed   State = "failed"
	StateStopped  State = "stopped"
	// StateInvalid is an entry of the file that cannot be used; Error says why.
	StateInvalid     State = "invalid configuration"
	StateDisabled    State = "disabled"
	StateUnreachable State = "unreachable in Restricted mode"
	// StateChecked is a server that a check started, listed and stopped again.
	StateChecked State = "ok"
	// StateNeedsSignIn is a URL server that answered 401, or whose refresh was refused
	// (oauth.go): "Sign in" on its card, or `phoenix-desktop mcp login NAME`.
	StateNeedsSignIn State = "needs sign-in"
)

// Status is what is known of one server: its configuration and the latest instance any
// conversation (or a check) started.
type Status struct {
	Name    string
	Config  ServerConfig
	Enabled bool
	// Project is set for a server from a working directory's .mcp.json.
	Project bool
	State   State
	// Error says why the latest start or call failed.
	Error string
	// Restricted is the policy of the latest instance.
	Restricted bool
	// Running counts the conversations whose instance of it runs now.
	Running int
	Tools   []ToolInfo
	// Stderr is the end of what the latest instance wrote on stderr.
	Stderr  string
	Updated time.Time

	// stderr is the latest instance's live buffer, read into Stderr by Statuses.
	stderr *tailBuffer
}

// Options tune the timeouts; the zero value takes the defaults.
type Options struct {
	// StartTimeout bounds starting a server and its handshake, and then each listing of its
	// tools (default 60 s: a first `npx` run downloads the package).
	StartTimeout time.Duration
	// CallTimeout bounds one tool call (default 10 min); Stop ends a call at any time.
	CallTimeout time.Duration
	// HTTPClient reaches URL servers; nil is http.DefaultClient.
	HTTPClient *http.Client
	// LookupEnv resolves ${VAR} in configurations; nil is os.LookupEnv (tests set it).
	LookupEnv func(string) (string, bool)
	// Elicit answers a server's request for input (elicitation, as a request or within a
	// 2026-07-28 multi round-trip call) by asking the person; nil refuses every request with
	// an error that says input cannot be given here.
	Elicit func(ctx context.Context, server string, req Elicitation) (ElicitAnswer, error)
	// AllowTools are tools marked destructive that run without asking, as "SERVER/TOOL"
	// (a headless run's --mcp-allow-tools).
	AllowTools []string
	// SpaceCheck refuses to save the configuration (or the allowed project servers) while
	// the disk holding it is short, with persistence.CheckSpace's error; the file on disk is
	// left as it was. nil does not check.
	SpaceCheck func(dir string, need int64) error
	// Tokens opens the store of URL servers' sign-in tokens (the keyring, or the private
	// file), on first use; nil: no sign-in, a server that answers 401 needs one anyway.
	Tokens func() (TokenStore, error)
	// ClientMetadataURL is the HTTPS address of the app's Client ID Metadata Document, used
	// as its client_id where an authorization server takes one; "" registers dynamically.
	ClientMetadataURL string
}

const (
	// DefaultStartTimeout is how long a server may take to start and list its tools unless
	// its own "timeout" or the --mcp-timeout flag says otherwise.
	DefaultStartTimeout = 60 * time.Second
	defaultCallTimeout  = 10 * time.Minute
)

// ErrReadOnly is returned by the editing methods of a hub made from a fixed configuration
// (`--mcp-config FILE`).
var ErrReadOnly = errors.New("the MCP servers come from --mcp-config and cannot be edited here; edit that file")

// Hub is the app's MCP configuration and the status of every server. It is safe for
// concurrent use.
type Hub struct {
	opts          Options
	path          string // the person's mcp.json; "" when the configuration is fixed
	approvalsPath string
	loadErr       error // set once, by OpenHub

	mu        sync.Mutex
	cfg       Config
	approvals approvals
	status    map[string]*Status
	listeners map[int]func()
	nextID    int
	// retries counts the person's "Retry" clicks per server: a set starts a server that
	// failed under an older count again.
	retries map[string]int
	// allowedTools are the destructive tools the person always allowed in this session
	// ("SERVER/TOOL"), kept also where the configuration cannot be saved.
	allowedTools map[string]bool
}

// OpenHub loads the person's configuration from path (a missing file is no servers) and the
// project servers they allowed, kept beside it. A file that cannot be read or parsed gives a
// usable hub without servers together with the error: the app still starts, says why, and
// refuses to save over the file (which would lose what the person wrote) until it is fixed.
func OpenHub(path string, opts Options) (*Hub, error) {
	ap := filepath.Join(filepath.Dir(path), "mcp-allowed-projects.json")
	h := newHub(Config{}, opts)
	h.path, h.approvalsPath = path, ap
	cfg, err := LoadConfig(path)
	if err == nil {
		h.approvals, err = loadApprovals(ap)
	}
	if err != nil {
		h.loadErr = err
		return h, err
	}
	h.cfg = cfg
	return h, nil
}

// Notes say what of the configuration file was ignored, with the file's name.
func (h *Hub) Notes() []string {
	_, notes := h.problems("")
	return notes
}

// LoadError is why the configuration file could not be used, or nil.
func (h *Hub) LoadError() error { return h.loadErr }

// FixedHub uses a configuration as given (`--mcp-config FILE`, tests); it cannot be edited and
// offers no project servers.
func FixedHub(cfg Config, opts Options) *Hub { return newHub(cfg, opts) }

func newHub(cfg Config, opts Options) *Hub {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = defaultCallTimeout
	}
	if cfg.Servers == nil {
		cfg.Servers = map[string]ServerConfig{}
	}
	return &Hub{opts: opts, cfg: cfg, approvals: approvals{}, status: map[string]*Status{}}
}

// Path is the configuration file Settings edits, or "" when it is fixed.
func (h *Hub) Path() string { return h.path }

// Config returns a copy of the person's configuration.
func (h *Hub) Config() Config {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.cfg.clone()
}

// OnChange registers a function called (on the goroutine of the change; it must not block)
// whenever the configuration or a status changes. The returned function unregisters it.
func (h *Hub) OnChange(fn func()) (remove func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.listeners == nil {
		h.listeners = map[int]func(){}
	}
	id := h.nextID
	h.nextID++
	h.listeners[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.listeners, id)
		h.mu.Unlock()
	}
}

func (h *Hub) changed() {
	h.mu.Lock()
	ls := slices.Collect(maps.Values(h.listeners))
	h.mu.Unlock()
	for _, fn := range ls {
		fn()
	}
}

// edit changes the configuration and saves it; on a failed save nothing changes.
func (h *Hub) edit(change func(c *Config) error) error {
	if h.path == "" {
		return ErrReadOnly
	}
	if h.loadErr != nil {
		return fmt.Errorf("%w; fix or remove the file first (nothing was changed)", h.loadErr)
	}
	h.mu.Lock()
	next := h.cfg.clone()
	if err := change(&next); err != nil {
		h.mu.Unlock()
		return err
	}
	if err := h.checkSpace(h.path); err != nil {
		h.mu.Unlock()
		return err
	}
	if err := SaveConfig(h.path, next); err != nil {
		h.mu.Unlock()
		return err
	}
	h.cfg = next
	h.mu.Unlock()
	h.changed()
	return nil
}

// checkSpace asks Options.SpaceCheck for room to write path again (a small file: what it
// holds now, and some).
func (h *Hub) checkSpace(path string) error {
	if h.opts.SpaceCheck == nil {
		return nil
	}
	var size int64 = 64 << 10
	if info, err := os.Stat(path); err == nil {
		size += info.Size()
	}
	if err := h.opts.SpaceCheck(filepath.Dir(path), size); err != nil {
		return fmt.Errorf("save the MCP configuration %s: %w (nothing was changed)", path, err)
	}
	return nil
}

// SetServer adds a server or replaces one of the same name. Conversations pick the change up
// at their next request.
func (h *Hub) SetServer(name string, c ServerConfig) error {
	if err := c.Validate(name); err != nil {
		return err
	}
	return h.edit(func(cfg *Config) error {
		cfg.Servers[name] = c
		delete(cfg.Invalid, name)
		return nil
	})
}

// RemoveServer deletes a server from the configuration.
func (h *Hub) RemoveServer(name string) error {
	err := h.edit(func(cfg *Config) error {
		_, ok := cfg.Servers[name]
		_, bad := cfg.Invalid[name]
		if !ok && !bad {
			return fmt.Errorf("there is no MCP server named %s", name)
		}
		delete(cfg.Servers, name)
		delete(cfg.Invalid, name)
		return nil
	})
	if err == nil {
		h.mu.Lock()
		delete(h.status, name)
		h.mu.Unlock()
	}
	return err
}

// SetEnabled switches a server on or off without removing it.
func (h *Hub) SetEnabled(name string, enabled bool) error {
	return h.edit(func(cfg *Config) error {
		c, ok := cfg.Servers[name]
		if !ok {
			return fmt.Errorf("there is no MCP server named %s", name)
		}
		c.Disabled = !enabled
		cfg.Servers[name] = c
		return nil
	})
}

// serversFor is the enabled servers of a conversation in cwd: the person's own and the
// project servers they allowed for cwd. offeredOnly names the project servers waiting for a
// click.
func (h *Hub) serversFor(cwd string) (servers map[string]ServerConfig, offeredOnly []string) {
	h.mu.Lock()
	servers = map[string]ServerConfig{}
	// own is every name of the person's configuration, disabled ones included: a project
	// server never replaces one of them. Read here because edit replaces h.cfg under mu.
	own := make(map[string]bool, len(h.cfg.Servers))
	for name, c := range h.cfg.Servers {
		own[name] = true
		if !c.Disabled {
			servers[name] = c
		}
	}
	allowed := maps.Clone(h.approvals[cwd])
	h.mu.Unlock()
	if h.path == "" || cwd == "" {
		return servers, nil
	}
	pc, err := projectConfig(cwd)
	if err != nil {
		return servers, nil
	}
	for _, name := range pc.Names() {
		if own[name] {
			continue
		}
		c := pc.Servers[name]
		if allowed[name] == fingerprint(c) {
			servers[name] = c
		} else {
			offeredOnly = append(offeredOnly, name)
		}
	}
	return servers, offeredOnly
}

// HasServers reports whether a conversation in cwd would use any server, so that a
// conversation without any pays nothing.
func (h *Hub) HasServers(cwd string) bool {
	s, _ := h.serversFor(cwd)
	return len(s) > 0
}
