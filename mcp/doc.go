// Package mcp connects Phoenix Desktop to Model Context Protocol servers, on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk): stdio servers (a command the app starts),
// streamable-HTTP servers (a URL) and legacy HTTP+SSE ones ("type": "sse"), configured in the
// shapes other MCP clients use ({"mcpServers": {NAME: {command, args, env, cwd, timeout} |
// {url, headers}}}, or VS Code's {"servers": …}), with ${VAR}, ${env:VAR}, ${VAR:-default}
// and ${workspaceFolder} expanded when a server starts (expand.go). An entry the app cannot
// use disables only itself (Config.Invalid) and is kept as written when the file is saved.
//
// A Hub holds the configuration and the latest status of every server (for Settings and
// `phoenix-desktop mcp list`). A Set is one conversation's servers: started in the
// background when the conversation opens, never waited for by a model request (Tools offers
// the ready servers' tools and says which are still starting), restarted when the
// conversation's mode changes, closed with the conversation's actor. Its tools reach the
// model as mcp__SERVER__TOOL, each input schema compiled as JSON Schema before it is offered.
// A line on a stdio server's stdout that is not JSON-RPC is skipped into its log (stdio.go).
//
// Of the protocol beyond tools (features.go, elicit.go, ask.go): the client declares
// elicitation and answers it through the set's Asker (Set.Ask; the conversation's runtime), else
// Options.Elicit, refusing clearly without either; a tool whose annotations mark it destructive
// (and not read-only) runs outside Unrestricted mode only once the Asker confirms it, or the
// person always allowed it (the server's "alwaysAllow", or Options.AllowTools); resources are read
// through one more tool per server, mcp__SERVER__read_resource; prompts are listed
// (Set.Prompts) and fetched (Set.GetPrompt); a server's instructions go into the system
// prompt, capped; tool annotations are shown and told to the model. Roots, sampling and
// logging are deprecated by the 2026-07-28 revision and not offered.
//
// A URL (streamable HTTP) server may ask for an OAuth sign-in (oauth.go, signin.go): the
// person signs in once (Hub.SignIn: the SDK's authorization-code handler with PKCE, metadata
// discovery, a Client ID Metadata Document or dynamic registration, iss checked, through the
// browser and a one-shot loopback listener), the tokens are kept in the secrets store (one
// entry per server URL, never in mcp.json), every connection sends and refreshes them, and a
// server that answers 401 — or whose refresh is refused — is "needs sign-in".
//
// The sandbox's rules hold for servers as for bash: a stdio server of a Restricted
// conversation runs under the Restricted policy (read-only file system, no network, the
// conversation's private TMPDIR), started through sandbox.Command in exactly one place
// (startStdio), and a URL server is not reachable from a Restricted conversation. Stopping a
// call or a conversation kills the server's whole process tree, like a bash command's.
//
// A remote conversation's set starts its stdio servers on the project's machine
// (Set.StartElsewhere, elsewhere.go): the process is a local command relaying the server's
// streams, used by the same transport.
//
// It may import domain, tools (its Output and the output cap), imaging, sandbox and secrets
// (the store of sign-in tokens) of ours;
// never actors, persistence, llm or ui.
package mcp
