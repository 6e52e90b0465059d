package mcp

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
)

// ProjectServer is a server a working directory's .mcp.json offers.
type ProjectServer struct {
	Name    string
	Config  ServerConfig
	Allowed bool
	// Shadowed is set when one of the person's own servers has the same name (theirs is used).
	Shadowed bool
}

// ProjectServers lists what cwd/.mcp.json offers and whether the person allowed each.
func (h *Hub) ProjectServers(cwd string) ([]ProjectServer, error) {
	pc, err := projectConfig(cwd)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []ProjectServer
	for _, name := range pc.Names() {
		c := pc.Servers[name]
		_, shadowed := h.cfg.Servers[name]
		out = append(out, ProjectServer{Name: name, Config: c, Shadowed: shadowed,
			Allowed: h.path != "" && h.approvals[cwd][name] == fingerprint(c)})
	}
	return out, nil
}

// AllowProjectServer records the person's click: the server of cwd/.mcp.json with this name,
// exactly as it is configured now, may start for conversations in cwd.
func (h *Hub) AllowProjectServer(cwd, name string) error {
	if h.path == "" {
		return ErrReadOnly
	}
	if h.loadErr != nil {
		return fmt.Errorf("%w; fix or remove the file first (nothing was changed)", h.loadErr)
	}
	pc, err := projectConfig(cwd)
	if err != nil {
		return err
	}
	c, ok := pc.Servers[name]
	if !ok {
		return fmt.Errorf("%s has no MCP server named %s", filepath.Join(cwd, ProjectFileName), name)
	}
	h.mu.Lock()
	next := approvals{}
	for k, v := range h.approvals {
		next[k] = maps.Clone(v)
	}
	if next[cwd] == nil {
		next[cwd] = map[string]string{}
	}
	next[cwd][name] = fingerprint(c)
	if err := h.checkSpace(h.approvalsPath); err != nil {
		h.mu.Unlock()
		return err
	}
	if err := saveApprovals(h.approvalsPath, next); err != nil {
		h.mu.Unlock()
		return err
	}
	h.approvals = next
	h.mu.Unlock()
	h.changed()
	return nil
}

// toolKey names a server's tool as Options.AllowTools and --mcp-allow-tools do.
func toolKey(server, tool string) string { return server + "/" + tool }

// ToolAllowed reports whether a tool marked destructive runs without asking: the person
// always allowed it (in this session, or in their own server's "alwaysAllow"), or the
// headless run's Options.AllowTools names it.
func (h *Hub) ToolAllowed(server, tool string) bool {
	key := toolKey(server, tool)
	if slices.Contains(h.opts.AllowTools, key) {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.allowedTools[key] {
		return true
	}
	c, own := h.cfg.Servers[server]
	return own && slices.Contains(c.AlwaysAllow, tool)
}

// AllowTool records the person's "Always allow this tool": at once for this session, and in
// their configuration file (the server's "alwaysAllow") when the server is theirs and the file
// can be edited. The error says why it could not be saved; the tool is allowed for the session
// either way.
func (h *Hub) AllowTool(server, tool string) error {
	h.mu.Lock()
	if h.allowedTools == nil {
		h.allowedTools = map[string]bool{}
	}
	h.allowedTools[toolKey(server, tool)] = true
	_, own := h.cfg.Servers[server]
	h.mu.Unlock()
	if !own {
		return fmt.Errorf("%s is a project server: its tools are allowed for this session only", server)
	}
	return h.edit(func(cfg *Config) error {
		c, ok := cfg.Servers[server]
		if !ok {
			return fmt.Errorf("there is no MCP server named %s", server)
		}
		if !slices.Contains(c.AlwaysAllow, tool) {
			c.AlwaysAllow = append(slices.Clone(c.AlwaysAllow), tool)
			cfg.Servers[server] = c
		}
		return nil
	})
}
