package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// serverOf is the server part of an mcp__SERVER__TOOL name.
func serverOf(toolName string) string {
	rest, _ := strings.CutPrefix(toolName, domain.MCPToolPrefix)
	server, _, _ := strings.Cut(rest, "__")
	return server
}

// Call runs one MCP tool call of the conversation: the arguments are checked against the
// tool's schema, the server is (re)started under the conversation's current mode if needed
// (the call waits for that start; Stop ends the wait), and the answer becomes the tool's
// output. Cancelling ctx (Stop) cancels the request through the SDK and kills the server's
// process tree; it starts again when next needed.
func (s *Set) Call(ctx context.Context, env tools.Env, call domain.ToolCall, onProgress func(Progress)) tools.Output {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errorOutput("The conversation's MCP servers were stopped; %s was not run.", call.Name)
	}
	route, ok := s.routes[call.Name]
	if !ok && s.waitable[serverOf(call.Name)] {
		route, ok = s.awaitTools(ctx, serverOf(call.Name), call.Name)
		if !ok && ctx.Err() != nil {
			s.mu.Unlock()
			return cancelledOutput("Cancelled while the MCP server " + serverOf(call.Name) + " was starting.")
		}
	}
	if !ok {
		names := slices.Sorted(maps.Keys(s.routes))
		s.mu.Unlock()
		if len(names) == 0 {
			return errorOutput("There is no MCP tool named %q in this conversation: no MCP server offers tools here now.", call.Name)
		}
		return errorOutput("There is no MCP tool named %q in this conversation. The MCP tools are: %s.", call.Name, strings.Join(names, ", "))
	}
	call.Arguments = route.withoutNulls(call.Arguments)
	if err := route.checkArgs(call.Arguments); err != nil {
		s.mu.Unlock()
		return errorOutput("The arguments of %s do not match its input schema, so it was not called: %v", call.Name, err)
	}
	s.callCtx = ctx
	defer func() {
		s.mu.Lock()
		if s.callCtx == ctx {
			s.callCtx = nil
		}
		s.mu.Unlock()
	}()
	if route.destructive && restrictedMode(env) {
		asker := s.asker
		s.mu.Unlock()
		if out, ok := s.confirm(ctx, asker, route, call); !ok {
			return out
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return errorOutput("The conversation's MCP servers were stopped; %s was not run.", call.Name)
		}
	}
	s.env = env
	restricted := restrictedMode(env)
	s.switchMode(env)
	cfgs, _ := s.configs()
	c, ok := cfgs[route.server]
	if !ok {
		s.mu.Unlock()
		return errorOutput("The MCP server %s was removed or disabled in Settings; %s was not called.", route.server, call.Name)
	}
	if c.IsURL() && restricted {
		s.mu.Unlock()
		return errorOutput("The MCP server %s is %v", route.server, ErrUnreachable)
	}
	srv, err := s.ready(ctx, route.server, c)
	if err != nil {
		if ctx.Err() != nil {
			return cancelledOutput("Cancelled while the MCP server " + route.server + " was starting.")
		}
		return errorOutput("The MCP server %s could not start, so %s was not called: %v", route.server, call.Name, err)
	}
	_, callTimeout := c.timeouts(s.hub.opts.StartTimeout, s.hub.opts.CallTimeout)
	callCtx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var res *sdk.CallToolResult
	var readOut tools.Output
	if route.reader {
		readOut, err = readResource(callCtx, srv, call.Arguments)
	} else {
		res, err = srv.call(callCtx, route.tool, []byte(call.Arguments), onProgress)
	}
	switch {
	case ctx.Err() != nil:
		s.stop(srv)
		return cancelledOutput(fmt.Sprintf("Cancelled by the user. The MCP server %s was stopped (it starts again when next needed).", route.server))
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		s.stop(srv)
		return errorOutput("The MCP server %s did not answer %s within %s; it was stopped and starts again when next needed.", route.server, route.tool, callTimeout)
	case err != nil && srv.auth.failed():
		// A 401 to the configuration's own Authorization header is a failure to fix there,
		// not a sign-in, as at the start (failedState); a refused scope leaves the server as
		// it is, for its other tools.
		err = srv.auth.failure(route.server, srv.cfg)
		if errors.Is(err, ErrNeedsSignIn) {
			s.stop(srv)
			s.hub.report(route.server, func(st *Status) { st.State, st.Error = failedState(err), err.Error() })
		}
		return errorOutput("%s did not run: %v", call.Name, err)
	case err != nil && !isServerError(err):
		// The connection ended under the call: the server crashed or closed its stdout.
		s.stop(srv)
		err = srv.describe(err)
		s.hub.report(route.server, func(st *Status) { st.State, st.Error = StateFailed, err.Error() })
		return errorOutput("The MCP server %s stopped during the call of %s: %v. It starts again when next needed.", route.server, route.tool, err)
	case err != nil:
		return errorOutput("The MCP server %s answered the call of %s with an error: %v", route.server, route.tool, err)
	}
	if route.reader {
		return readOut
	}
	out := toOutput(route.server, route.tool, res, env.ImageLimits)
	if srv.hasResources() && strings.Contains(out.Content, "[resource link: ") {
		out.Content += fmt.Sprintf("\n(Open a linked resource with %s.)", ToolName(route.server, ReadResourceTool))
	}
	return out
}

// confirm asks the person before a tool its server marks destructive runs outside
// Unrestricted mode, unless they always allowed it (or a headless run's --mcp-allow-tools
// names it). ok is false when the call must not run; out then says why.
func (s *Set) confirm(ctx context.Context, asker Asker, route offered, call domain.ToolCall) (out tools.Output, ok bool) {
	if s.hub.ToolAllowed(route.server, route.tool) {
		return tools.Output{}, true
	}
	if asker == nil {
		return errorOutput("%s", DeniedText(route.server, route.tool,
			fmt.Sprintf("nobody can be asked here, so it is denied (a headless run allows it with %s=%s/%s)", AllowToolsFlag, route.server, route.tool))), false
	}
	dec, err := asker.ConfirmTool(ctx, ToolConfirmation{Server: route.server, Tool: route.tool, Arguments: call.Arguments})
	switch {
	case ctx.Err() != nil:
		return cancelledOutput(fmt.Sprintf("Cancelled while the person was asked whether %s of the MCP server %s may run; it did not run.", route.tool, route.server)), false
	case err != nil:
		return errorOutput("%s", DeniedText(route.server, route.tool, "the person could not be asked ("+err.Error()+")")), false
	case dec == ToolDeny:
		return errorOutput("%s", DeniedText(route.server, route.tool, "they denied it")), false
	case dec == ToolAlwaysAllow:
		// A failed save still allows it for this session; the person learns why on the card.
		_ = s.hub.AllowTool(route.server, route.tool)
	}
	return tools.Output{}, true
}

// isServerError reports whether err is the server's own JSON-RPC error answer (the server is
// fine and said no), as opposed to the connection failing.
func isServerError(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire)
}

// brief is an error on one line, cut to a length that suits the system prompt.
func brief(err error) string {
	r := []rune(oneLine(err.Error()))
	if len(r) > 300 {
		return string(r[:299]) + "…"
	}
	return string(r)
}
