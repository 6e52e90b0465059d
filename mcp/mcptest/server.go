package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerEnv makes a test binary an MCP server (MaybeRunServer) instead of running its tests;
// its value picks the behaviour (see runServer).
const ServerEnv = "PHOENIX_MCP_TEST_SERVER"

// GateEnv names the FIFO a "gate" server opens before it starts serving.
const GateEnv = "PHOENIX_MCP_TEST_GATE"

// MaybeRunServer runs the test binary as the small MCP server when ServerEnv is set, and
// exits; call it first in TestMain (after sandbox.MaybeRunHelper).
func MaybeRunServer() {
	if mode := os.Getenv(ServerEnv); mode != "" {
		os.Exit(runServer(mode))
	}
}

// SelfServer is the command and environment that start the running test binary as the
// server in the given mode ("serve" for the ordinary one).
func SelfServer(mode string) (command string, env map[string]string, err error) {
	exe, err := os.Executable()
	return exe, map[string]string{ServerEnv: mode}, err
}

func mustJSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

// runTestServer is a small MCP server on the official SDK, for the edge cases real servers do
// not show on demand: a tool with a bad schema, a crash in the middle of a call, a call that
// never answers, a server that never completes its handshake, and one that never lists its
// tools.
func runServer(mode string) int {
	if mode == "broken" {
		fmt.Fprintln(os.Stderr, "test server: cannot start without MY_SERVICE_TOKEN")
		return 1
	}
	if mode == "garbage" {
		// Answers the handshake with something that is not JSON-RPC, then waits.
		fmt.Println("Welcome! This is not JSON.")
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	}
	if mode == "silent" {
		// Reads the handshake and never answers it.
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return 0
			}
		}
	}
	if mode == "banner" {
		// Servers that greet on stdout are common; the client must skip the line.
		fmt.Println("Hello! banner-server v1 listening on stdio")
	}
	if mode == "gate" {
		// Starts only once the test opens the FIFO for writing: a server as slow as the
		// test wants, with no clock involved.
		f, err := os.Open(os.Getenv(GateEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			return 1
		}
		f.Close()
	}
	s := NewServer()
	if mode == "nolist" {
		// Completes its handshake, then never answers tools/list.
		s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
			return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
				if method == "tools/list" {
					select {}
				}
				return next(ctx, method, req)
			}
		})
	}
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "test server:", err)
		return 1
	}
	return 0
}

// NewServer is the test server itself, for tests that serve it over HTTP.
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "phoenix-test-server", Version: "1"},
		&sdk.ServerOptions{Instructions: "Call echo to repeat text."})
	s.AddResource(&sdk.Resource{URI: "test://notes", Name: "notes", MIMEType: "text/plain"},
		func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "test://notes", Text: "the resource's text"}}}, nil
		})
	s.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Say hello to " + req.Params.Arguments["who"]}}}}, nil
		})
	text := func(t string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t}}}
	}
	obj := func(props string) map[string]any {
		return map[string]any{"type": "object", "properties": mustJSON(props)}
	}
	s.AddTool(&sdk.Tool{Name: "echo", Description: "Echoes text.", InputSchema: map[string]any{"type": "object",
		"properties": mustJSON(`{"text":{"type":"string"}}`), "required": []string{"text"}}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &args)
			return text(args.Text), nil
		})
	s.AddTool(&sdk.Tool{Name: "bad_schema", Description: "Its schema is not JSON Schema.",
		InputSchema: obj(`{"x":{"type":"nonsense"}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil })
	s.AddTool(&sdk.Tool{Name: "crash", Description: "Exits in the middle of the call.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "test server: crashing on purpose")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "hang", Description: "Never answers, and ignores cancellation.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			select {}
		})
	s.AddTool(&sdk.Tool{Name: "pid", Description: "Its process id.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(fmt.Sprint(os.Getpid())), nil
		})
	s.AddTool(&sdk.Tool{Name: "link", Description: "Links a resource.", InputSchema: obj(`{}`),
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ResourceLink{URI: "test://notes", Name: "notes"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "ask", Description: "Asks the person for a name (a 2026-07-28 multi round-trip call).", InputSchema: obj(`{}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if ans, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
				return text(fmt.Sprintf("%s %v", ans.Action, ans.Content["name"])), nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"name": &sdk.ElicitParams{Mode: "form", Message: "Your name?",
				RequestedSchema: mustJSON(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}}}, nil
		})
	destructive := true
	s.AddTool(&sdk.Tool{Name: "erase", Description: "Pretends to delete everything.", InputSchema: obj(`{}`),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &destructive}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("erased"), nil })
	s.AddTool(&sdk.Tool{Name: "cwd", Description: "Its working directory.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			wd, _ := os.Getwd()
			return text(wd), nil
		})
	s.AddTool(&sdk.Tool{Name: "fail", Description: "Reports an error result.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			r := text("it went wrong on purpose")
			r.IsError = true
			return r, nil
		})
	s.AddTool(&sdk.Tool{Name: "add_tool", Description: "Adds a tool named added.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s.AddTool(&sdk.Tool{Name: "added", Description: "Added later.", InputSchema: obj(`{}`)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("new"), nil })
			return text("added"), nil
		})
	s.AddTool(&sdk.Tool{Name: "big", Description: "A long text.", InputSchema: obj(`{}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text(strings.Repeat("line of output\n", 40000)), nil
		})
	return s
}
