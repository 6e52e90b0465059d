package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/transcript"
)

// Headless answers to the MCP servers' requests for the person (issue 26): chat has no window
// to show a form or a confirmation in, so it answers by its flags and says on stderr what was
// asked and what it answered.

// flagMCPElicit is chat's answer to a server's request for input.
const flagMCPElicit = "mcp-elicit"

// checkElicitAnswer checks --mcp-elicit: a headless run can decline or cancel a request for
// input, never fill it in.
func checkElicitAnswer(v string) error {
	if v != mcp.ElicitDecline && v != mcp.ElicitCancel {
		return fmt.Errorf("--%s=%s: use %s or %s (a headless run cannot fill in a server's form)", flagMCPElicit, v, mcp.ElicitDecline, mcp.ElicitCancel)
	}
	return nil
}

// mcpAnswerer is the part of the runtime that takes the answers.
type mcpAnswerer interface {
	AnswerMCPInput(convID, id, action string, entries map[string]string) error
	DecideMCPTool(convID, id string, d actors.MCPToolDecision) error
}

// answerMCPRequest answers an MCP request event of any conversation of this run (a sub-agent's
// too) and reports whether ev was one. A request for input gets elicit (decline or cancel); a
// destructive tool that --mcp-allow-tools does not name (those never ask) is denied.
func answerMCPRequest(rt mcpAnswerer, ev actors.Event, elicit string, w io.Writer) bool {
	switch e := ev.(type) {
	case actors.MCPInputRequested:
		var fields []string
		for _, f := range e.Fields {
			fields = append(fields, f.Name)
		}
		what := ""
		if len(fields) > 0 {
			what = " (fields: " + strings.Join(fields, ", ") + ")"
		}
		err := rt.AnswerMCPInput(e.ConvID, e.ID, elicit, nil)
		fmt.Fprintf(w, "phoenix-desktop: the MCP server %s asks: %q%s; answered %q (--%s; there is no window to fill in the form)%s\n",
			e.Server, transcript.OneLine(e.Message, 300), what, elicit, flagMCPElicit, failure(err))
		return true
	case actors.MCPToolConfirmation:
		err := rt.DecideMCPTool(e.ConvID, e.ID, actors.MCPToolDeny)
		fmt.Fprintf(w, "phoenix-desktop: the MCP server %s wants to run %s (it may change or delete data) with %s; denied (allow it with %s=%s/%s)%s\n",
			e.Server, e.Tool, transcript.OneLine(e.Arguments, 300), mcp.AllowToolsFlag, e.Server, e.Tool, failure(err))
		return true
	case actors.MCPRequestClosed:
		return true
	}
	return false
}

func failure(err error) string {
	if err == nil {
		return ""
	}
	return " — but the answer was not taken: " + err.Error()
}
