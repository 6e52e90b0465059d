package remote

import (
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// What crosses the wire between the app and its agent, and nothing else: no file of the
// person's local machine, no key, no setting. Every call is a net/rpc (gob) call over the
// agent's standard input and output, which are one channel of the SSH connection.
//
// Why not protoactor-go remoting: its server listens on a TCP address (remote/server.go calls
// net.Listen("tcp", …)) and both nodes dial each other's advertised host:port, so the agent
// would have to open a TCP port on the remote machine — reachable by every user there — and the
// app one here. A custom gRPC dialer does not change the listening side. Its messages must also
// be protobuf types generated for each call. net/rpc needs one ordered stream, which is exactly
// what an SSH channel is, runs each call in its own goroutine on the agent, and is part of Go.

// agentService is the name of the agent's net/rpc service.
const agentService = "Agent"

// HelloArgs opens a session: the app's version, which the agent must match.
type HelloArgs struct {
	Version string
	// Asks says the app keeps a Proxy.NextQuestion call waiting (proxy.go), so the agent's
	// proxy may ask the person about a new host; without it such a host is refused.
	Asks bool
}

// HelloReply describes the remote side.
type HelloReply struct {
	Version string
	PID     int
	// Layers is which sandbox layers the remote kernel enforces (doctor --remote, the badge).
	Layers sandbox.Layers
}

// RunArgs is one tool call to run on the remote machine.
type RunArgs struct {
	// ID names the call for Cancel; unique within the session.
	ID string
	// Conversation keys the call's private temp dir on the remote side.
	Conversation string
	Tool         string
	// Arguments is the call's JSON arguments, as the model wrote them.
	Arguments string
	// Cwd is the conversation's working directory on the remote machine.
	Cwd string
	// Mode is the conversation's mode (domain.Mode); anything unknown is Restricted there.
	Mode string
	// ImageLimits are the conversation's model's limits, for read_image.
	ImageLimits imaging.Limits
	// LanguageServers, when set, configures the conversation's language servers there
	// (lsp.go), for a patch, a command or a language tool.
	LanguageServers *LanguageServers
}

// RunReply is the tool's whole output.
type RunReply struct {
	Output tools.Output
}

// CancelArgs stops a running call: its context is cancelled, so its process group is killed.
type CancelArgs struct {
	ID string
}

// Empty is the reply of calls that answer nothing but "done".
type Empty struct{}
