// Package remote runs a conversation's tools on another Linux machine reached over SSH.
//
// The app side (Dial, Client) drives the system's OpenSSH client — so the person's keys, agent,
// ProxyJump and known_hosts work as they always do, and Phoenix holds no keys of its own —
// through one master connection (ControlMaster, its socket in a private runtime directory) that
// later sessions reuse. It detects the remote system and processor, copies the agent's binary
// into the remote user's cache directory (~/.cache/phoenix-desktop/bin/<version>-<sha>) when no
// matching one is there, the checksum checked on the remote side before the file is put in
// place (the remote never downloads anything), and starts it in the agent role. That binary is
// phoenix-remote-agent, shipped beside the app and static, so a machine without a desktop runs
// it (agentbinary.go); a build of the app alone copies itself.
//
// The agent side (MaybeRunAgent, the hidden argument AgentArg) runs on the remote machine and
// answers over its own standard input and output, which are a channel of the SSH connection:
// no port is opened to the network on either side. Each tool call runs there through the same
// tools and sandbox packages as a local call, so the remote kernel's sandbox layers apply in the
// conversation's mode. When the agent's input ends — the app closed the session or the
// connection dropped — it stops every command it runs, its whole process group, and exits.
//
// What crosses the wire is in wire.go: a hello (versions, the remote sandbox layers), tool
// calls (the tool's name, its JSON arguments, the working directory and mode) with their
// outputs, and cancels; and in checkpoints.go the operations on a conversation's shadow
// repository, which the agent keeps on the remote machine. The calls are net/rpc (gob) over the stream; see wire.go for why not
// protoactor remoting.
//
// A Project-mode command there reaches the network through the proxy package's server, which
// the agent runs on the remote machine; a host not yet allowed is asked about on the app's
// side, over a NextQuestion call the app keeps waiting (proxy.go).
//
// A remote conversation's language servers run in the agent (lsp.go): it answers whether the
// language tools are offered in the conversation's folder there (Languages.Offered), and the
// app keeps one Languages.Watch call waiting for the servers' states, which the header shows.
//
// A remote project's own instructions, commands and skills are read there by the agent with
// the instructions and custom packages, and the host's allowed hosts are listed and changed
// there (project.go).
//
// A remote project's hooks are read and, once the person approved exactly them for that host
// (the approvals stay on the app's side), run there under the sandbox in the conversation's
// mode (hooks.go); the person's own hooks never cross.
//
// May import: assets, checkpoint, custom, domain, imaging, instructions, lsp, proxy, sandbox, tools.
package remote
