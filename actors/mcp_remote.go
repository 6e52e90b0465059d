package actors

import (
	"context"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// The MCP stdio servers of a conversation whose project is on another machine run there: the
// conversation's set (package mcp) is the same as for a local project, its servers started
// through the RemoteRunner (StartStdio: the agent there starts the process under the remote
// sandbox in the conversation's mode and relays its streams), and its calls are made here
// over those streams. Only the person's own servers apply; a project's .mcp.json is on that
// machine and is not read.

// remoteStarter starts a remote conversation's stdio servers on host.
func (r *Runtime) remoteStarter(host string) mcp.Starter {
	return func(start, life context.Context, spec mcp.StdioSpec) (mcp.Process, error) {
		return r.cfg.Remote.StartStdio(start, life, host, spec)
	}
}

// remoteMCP is what a remote tool run needs for an MCP call: the conversation's servers and
// the environment they run in, or why there are none.
type remoteMCP struct {
	servers *mcp.Set
	env     tools.Env
	why     string
}

// remoteMCP returns the servers for an MCP call of a remote conversation (zero otherwise).
func (a *conversationActor) remoteMCP(e domain.ExecuteTool) remoteMCP {
	if !domain.IsMCPTool(e.Call.Name) {
		return remoteMCP{}
	}
	servers := a.mcpServers()
	if servers == nil {
		return remoteMCP{why: "MCP servers are switched off in this session (--no-mcp)."}
	}
	env, err := a.toolEnv(e.Mode)
	if err != nil {
		return remoteMCP{why: err.Error()}
	}
	return remoteMCP{servers: servers, env: env}
}
