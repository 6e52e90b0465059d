// Package lsp puts the project's language servers in the agent's loop: gopls,
// typescript-language-server, pyright or basedpyright, rust-analyzer and clangd when they are
// on PATH, and any other server the person lists in the `lsp` section of lsp.json in the
// app's configuration directory (crush's and opencode's shapes are read too).
//
// A conversation has one Set. It starts a server lazily, on the first edit or question about
// a file of its language, through the sandbox's supervisor under the conversation's policy
// (tools.SandboxPolicy), exactly as bash commands and MCP stdio servers are started, so a
// Restricted server reads and writes nothing but its caches in the conversation's temp dir.
// A server that cannot start, does not answer in time or dies is marked down with the reason
// and is not asked again in that conversation: it delays at most one turn, by its timeout.
// Close kills every server's process tree; the conversation calls it when it ends.
//
// The JSON-RPC 2.0 transport with LSP's Content-Length framing is
// github.com/sourcegraph/jsonrpc2; the few protocol structures the client uses are declared
// in protocol.go, after the LSP 3.17 specification.
//
// It may import domain, hostexec, sandbox and tools.
package lsp
