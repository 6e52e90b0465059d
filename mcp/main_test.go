package mcp

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// testServerEnv makes the test binary an MCP server (see runTestServer) instead of running
// the tests; its value picks the behaviour.
const testServerEnv = "PHOENIX_MCP_TEST_SERVER"

// gateEnv names the FIFO a "gate" server opens before it starts serving.
const gateEnv = "PHOENIX_MCP_TEST_GATE"

// TestMain lets the test binary act as the sandbox helper, as the app binary does, and as the
// small in-test MCP server.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if mode := os.Getenv(testServerEnv); mode != "" {
		os.Exit(runTestServer(mode))
	}
	os.Exit(m.Run())
}

// runTestServer is a small MCP server on the official SDK, for the edge cases real servers do
// not show on demand: a tool with a bad schema, a crash in the middle of a call, a call that
// never answers, a server that never completes its handshake, and one that never lists its
// tools.
func runTestServer(mode string) int {
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
		f, err := os.Open(os.Getenv(gateEnv))
		if err != nil {
			fmt.Fprintln(os.Stderr, "test server:", err)
			return 1
		}
		f.Close()
	}
	s := newTestServer()
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

func newTestServer() *sdk.Server {
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
			_ = jsonUnmarshal(req.Params.Arguments, &args)
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

// selfServer configures the test binary as a stdio server.
func selfServer(t testing.TB, mode string) ServerConfig {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Command: exe, Env: map[string]string{testServerEnv: mode}}
}

// npmServer finds a reference server installed by scripts/setup.sh.
func npmServer(t testing.TB, bin string) string { return mcptest.Server(t, bin) }

// needSandbox skips a test of the Restricted policy where Landlock is unavailable (and fails
// it in CI, whose machine has it).
func needSandbox(t testing.TB) {
	if st := sandbox.Probe(); !st.Available {
		mcptest.Missing(t, "Landlock is unavailable: "+st.Reason)
	}
}

func testEnv(t testing.TB, cwd string, mode domain.Mode) tools.Env {
	return tools.Env{Cwd: cwd, Mode: mode, TempDir: t.TempDir(), ImageLimits: imaging.DefaultLimits()}
}

func call(name, args string) domain.ToolCall {
	return domain.ToolCall{ID: "call-1", Name: name, Arguments: args}
}

// processAlive reports whether a process exists (a zombie counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	return !strings.HasPrefix(s[strings.LastIndexByte(s, ')')+2:], "Z")
}
