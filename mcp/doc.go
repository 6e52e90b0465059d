// Package mcp connects Phoenix Desktop to Model Context Protocol servers, on the official Go
// SDK (github.com/modelcontextprotocol/go-sdk): stdio servers (a command the app starts) and
// streamable-HTTP servers (a URL), configured in the shape other MCP clients use
// ({"mcpServers": {NAME: {command, args, env} | {url, headers}}}).
//
// A Hub holds the configuration and the latest status of every server (for Settings and
// `phoenix-desktop mcp list`). A Set is one conversation's servers: started when first
// needed, restarted when the conversation's mode changes, closed with the conversation's
// actor. Its tools reach the model as mcp__SERVER__TOOL, each input schema compiled as JSON
// Schema before it is offered.
//
// The sandbox's rules hold for servers as for bash: a stdio server of a Restricted
// conversation runs under the Restricted policy (read-only file system, no network, the
// conversation's private TMPDIR), started through sandbox.Command in exactly one place
// (startStdio), and a URL server is not reachable from a Restricted conversation. Stopping a
// call or a conversation kills the server's whole process tree, like a bash command's.
//
// It may import domain, tools (its Output and the output cap), imaging and sandbox of ours;
// never actors, persistence, llm or ui.
package mcp
