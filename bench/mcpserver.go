package bench

import (
	"context"
	"fmt"
	"os"
	"syscall"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoServerArg is the hidden first argument that turns the app binary into the small stdio
// MCP server the MCP rows measure against: one tool, echo, that does no work of its own, so
// that a round's time is the client's, the transport's and the runtime's.
const EchoServerArg = "__phoenix_bench_mcp_echo"

// MaybeRunEchoServer serves as the bench's MCP echo server when this process was started as
// one, and never returns then; otherwise it returns at once. main (and TestMain of this
// package) call it first, after sandbox.MaybeRunHelper.
func MaybeRunEchoServer() {
	if len(os.Args) < 2 || os.Args[1] != EchoServerArg {
		return
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "phoenix-bench-echo", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Returns its text.", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "bench echo server:", err)
		syscall.Exit(1)
	}
	syscall.Exit(0)
}
