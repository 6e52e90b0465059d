package actors

import (
	"context"
	"os"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The MCP part of the command API, for Settings and `phoenix-desktop mcp list`: the types are
// the mcp package's, named here so that the UI needs only this package.
type (
	MCPServerConfig  = mcp.ServerConfig
	MCPStatus        = mcp.Status
	MCPToolInfo      = mcp.ToolInfo
	MCPProjectServer = mcp.ProjectServer
)

// The server states Settings treats apart.
const (
	MCPStateFailed      = mcp.StateFailed
	MCPStateInvalid     = mcp.StateInvalid
	MCPStateNeedsSignIn = mcp.StateNeedsSignIn
)

// MCPServers edits the MCP configuration and reports the servers' states. It is safe for
// concurrent use; every method may touch the disk or start a server, so the window calls them
// off its UI goroutine.
type MCPServers struct {
	hub     *mcp.Hub
	sandbox SandboxStatus
}

// MCPServers returns the MCP part of the API, or nil when MCP is off (--no-mcp).
func (r *Runtime) MCPServers() *MCPServers {
	if r.cfg.MCP == nil {
		return nil
	}
	return &MCPServers{hub: r.cfg.MCP, sandbox: r.cfg.Sandbox}
}

// NewMCPServers wraps a hub without a runtime (the `mcp list` command).
func NewMCPServers(hub *mcp.Hub, sb SandboxStatus) *MCPServers {
	return &MCPServers{hub: hub, sandbox: sb}
}

// LoadError is why the configuration file could not be used (the servers are off until it is
// fixed), or nil.
func (m *MCPServers) LoadError() error { return m.hub.LoadError() }

// Notes say what of the configuration file was ignored (VS Code's "inputs").
func (m *MCPServers) Notes() []string { return m.hub.Notes() }

// ConfigPath is the file the servers are saved in; "" when they come from --mcp-config.
func (m *MCPServers) ConfigPath() string { return m.hub.Path() }

// Statuses lists the configured servers (and the allowed project servers of cwd).
func (m *MCPServers) Statuses(cwd string) []MCPStatus { return m.hub.Statuses(cwd) }

// SetServer adds or replaces a server.
func (m *MCPServers) SetServer(name string, c MCPServerConfig) error { return m.hub.SetServer(name, c) }

// RemoveServer deletes a server.
func (m *MCPServers) RemoveServer(name string) error { return m.hub.RemoveServer(name) }

// SetEnabled switches a server on or off.
func (m *MCPServers) SetEnabled(name string, enabled bool) error {
	return m.hub.SetEnabled(name, enabled)
}

// ProjectServers lists what cwd/.mcp.json offers.
func (m *MCPServers) ProjectServers(cwd string) ([]MCPProjectServer, error) {
	return m.hub.ProjectServers(cwd)
}

// AllowProjectServer is the person's click that lets a project server start in cwd.
func (m *MCPServers) AllowProjectServer(cwd, name string) error {
	return m.hub.AllowProjectServer(cwd, name)
}

// OnChange calls fn (which must not block) after every change of configuration or status,
// until the returned function is called.
func (m *MCPServers) OnChange(fn func()) (remove func()) { return m.hub.OnChange(fn) }

// Restricted reports whether Check and new conversations run servers sandboxed here.
func (m *MCPServers) Restricted() bool { return m.sandbox.Available }

// Check starts a server as a new conversation in cwd would (Restricted where the sandbox
// works), lists its tools and stops it again; unrestricted checks it as an Unrestricted
// conversation would.
func (m *MCPServers) Check(ctx context.Context, name, cwd string, unrestricted bool) MCPStatus {
	mode := domain.ModeRestricted
	if unrestricted || !m.sandbox.Available {
		mode = domain.ModeUnrestricted
	}
	if cwd == "" {
		cwd, _ = os.UserHomeDir()
	}
	dir, err := sandbox.MakeTempDir("mcp-check-" + name)
	if err != nil {
		return MCPStatus{Name: name, State: mcp.StateFailed, Error: err.Error()}
	}
	defer os.RemoveAll(dir)
	return m.hub.Check(ctx, name, tools.Env{Cwd: cwd, Mode: mode, TempDir: dir, ImageLimits: imaging.DefaultLimits()})
}

// SignIn signs the person in to a URL server (OAuth in the browser, which open shows them);
// it waits until they come back or ctx ends, so the window calls it off its UI goroutine.
func (m *MCPServers) SignIn(ctx context.Context, name, cwd string, open func(authURL string) error) error {
	return m.hub.SignIn(ctx, name, cwd, open)
}

// OpenMCPServers opens the MCP configuration at path on its own (a window's tests, tools):
// what the app does through Config.MCP.
func OpenMCPServers(path string, sb SandboxStatus) (*MCPServers, error) {
	hub, err := mcp.OpenHub(path, mcp.Options{})
	return &MCPServers{hub: hub, sandbox: sb}, err
}

// startMCP starts the conversation's MCP servers in the background as it opens, so that they
// are ready by its first request; the request never waits for them (mcp.Set.Tools). Nothing
// starts for a conversation in a directory without servers.
func (a *conversationActor) startMCP() {
	if a.rt.cfg.MCP == nil || !a.rt.cfg.MCP.HasServers(a.conv.Cwd) {
		return
	}
	env, err := a.toolEnv(a.conv.Mode)
	if err != nil {
		return // the first request says why (startLLM)
	}
	a.mcpServers().Start(env)
}

// RetryMCPServer lets conversations start a server again whose start failed (Settings'
// "Retry"); each does at its next request.
func (m *MCPServers) Retry(name string) { m.hub.Retry(name) }
