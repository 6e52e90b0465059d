package bench

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/phoenix-desktop/phoenix/mcp"
)

// A real Node MCP server beside the built-in echo server (issue 26): the reference
// "everything" server from npm (scripts/setup.sh installs it), started and called through the
// same path as the echo server's rows above, so the difference is Node's start and the
// server's own work.
const (
	nodeServerCommand  = "mcp-server-everything"
	nodeServerStartRow = "MCP server start (Node: " + nodeServerCommand + " from npm)"
	nodeServerRoundRow = "MCP tool round (Node: " + nodeServerCommand + "'s echo, warm)"
)

// mcpNodeRows measures the Node server's start and its warm tool round; when the server is
// not installed both rows say so instead of a number.
func mcpNodeRows(ctx context.Context, o Options) ([]Row, error) {
	path, err := exec.LookPath(nodeServerCommand)
	if err != nil {
		why := fmt.Sprintf("%s is not installed (npm install -g @modelcontextprotocol/server-everything)", nodeServerCommand)
		return []Row{{Name: nodeServerStartRow, Unit: "ms", Err: why}, {Name: nodeServerRoundRow, Unit: "ms", Err: why}}, nil
	}
	cfg := mcp.Config{Servers: map[string]mcp.ServerConfig{"everything": {Command: path, Args: []string{"stdio"}}}}
	start, err := mcpStartWith(ctx, o, cfg)
	startRow := summarise(nodeServerStartRow, "ms", 0, start)
	startRow.Note = "as the echo server's start row: started through the sandbox supervisor → MCP handshake → tools listed and checked; Node's own start included"
	if err != nil {
		startRow.Err = err.Error()
	}
	round, err := mcpRoundWith(ctx, o, cfg, `mcp: everything echo {"message":"x"}`)
	roundRow := summarise(nodeServerRoundRow, "ms", 0, round)
	roundRow.Note = "as the echo server's round row, on a running Node server"
	if err != nil {
		roundRow.Err = err.Error()
	}
	return []Row{startRow, roundRow}, nil
}
