package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/mcp"
)

// Headless MCP prompts and resources (issue 26): `chat --prompt SERVER:NAME words…` sends the
// server's prompt with the words as its arguments (as the composer's /mcp__SERVER__NAME does),
// and "@SERVER:URI" in a message attaches that resource (as the composer's "@" menu does).

// flagMCPPrompt names the prompt chat sends.
const flagMCPPrompt = "prompt"

// mcpWaitSlack is added to the longest server start chat waits for before a prompt or a
// resource is fetched: the servers' own start timeouts end the wait first.
const mcpWaitSlack = 5 * time.Second

// mcpMessage is what chat sends when its message names MCP things: the prompt's text when
// promptRef is set (the words given to its arguments), with the resources the message refers
// to attached. It first waits for the conversation's servers to start, since a headless run
// names them before its first message; a message that names nothing is returned at once.
func mcpMessage(rt *actors.Runtime, convID, promptRef, text string, startTimeout time.Duration) (string, []actors.Attachment, error) {
	if promptRef == "" && len(mcp.Refs(text)) == 0 {
		return text, nil, nil
	}
	if startTimeout <= 0 {
		startTimeout = mcp.DefaultStartTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout+mcpWaitSlack)
	defer cancel()
	if err := rt.WaitMCP(ctx, convID); err != nil {
		return "", nil, err
	}
	if promptRef != "" {
		server, name, ok := strings.Cut(promptRef, ":")
		if !ok || server == "" || name == "" {
			return "", nil, fmt.Errorf("--%s=%s: write it as SERVER:NAME (phoenix-desktop mcp list shows the servers)", flagMCPPrompt, promptRef)
		}
		prompts, err := rt.Prompts(ctx, convID)
		if err != nil {
			return "", nil, err
		}
		var found *actors.MCPPrompt
		var names []string
		for i, p := range prompts {
			if p.Server == server {
				names = append(names, p.Name)
				if p.Name == name {
					found = &prompts[i]
				}
			}
		}
		if found == nil {
			if len(names) == 0 {
				return "", nil, fmt.Errorf("--%s=%s: the MCP server %s offers no prompts here (is it configured and running? phoenix-desktop mcp list)", flagMCPPrompt, promptRef, server)
			}
			return "", nil, fmt.Errorf("--%s=%s: the MCP server %s has no prompt %q; it has: %s", flagMCPPrompt, promptRef, server, name, strings.Join(names, ", "))
		}
		args := actors.MCPPromptArgs(*found, text)
		for _, a := range found.Arguments {
			if _, ok := args[a.Name]; a.Required && !ok {
				return "", nil, fmt.Errorf("--%s=%s needs its argument %s: give the arguments as words after the flags, in order (%s)", flagMCPPrompt, promptRef, a.Name, argNames(found.Arguments))
			}
		}
		if text, err = rt.GetPrompt(ctx, convID, server, name, args); err != nil {
			return "", nil, err
		}
	}
	return rt.AttachResources(ctx, convID, text)
}

func argNames(args []mcp.PromptArgument) string {
	var names []string
	for _, a := range args {
		names = append(names, a.Name)
	}
	return strings.Join(names, " ")
}
