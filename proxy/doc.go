// Package proxy is the network proxy of Project mode: the only way out of a command's network
// namespace. A Project-mode command lives in a namespace with loopback only; the sandbox
// supervisor relays a loopback port inside it to this conversation's unix socket, and
// HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name that port. The proxy resolves names itself, so
// tools that honour the proxy variables need no DNS inside the namespace.
//
// # What it serves
//
// One unix socket per conversation (Listen; Forget closes it and ends its tunnels), in a
// private directory. On each connection it reads one request, with a bounded header
// (maxHeaderBytes) and a time limit for it (headerTimeout):
//
//   - CONNECT host:port, for HTTPS and any other TCP protocol: after "200" the bytes are
//     copied both ways; an end of input is passed on as a half-close, an error ends both ways.
//   - An absolute-URI HTTP request (GET http://host/path): passed on with hop-by-hop fields
//     removed, the answer passed back, and the connection closed, so that every request is
//     judged on its own.
//
// The proxy never looks inside a tunnel: it judges the destination, not the traffic.
//
// # Who may be reached
//
// A project's allowed hosts (Rules, a JSON file written atomically, 0600) hold entries:
// "example.org" (that host, any port), "*.example.org" (its subdomains only, never
// example.org), an optional ":port" restricting the port, and IP addresses. Names are matched
// without case or trailing dot. An IP address in any spelling (2130706433, 0x7f000001,
// 0177.0.0.1, 127.1, [::ffff:127.0.0.1]) is read as the address it is, and is reached only when
// that address is listed: a name entry never allows an address. An empty list allows nothing.
// The "package registries" switch of a project adds the hosts its toolchains download from,
// read at run time from the person's and this machine's configuration (RegistryHosts: `go
// env`, `npm config`, `pip config`, apt's sources, CARGO_HOME's config.toml; RegistrySources
// says which), so mirrors and company proxies are honoured; they are read again after a
// minute. Nothing of the project is read or run for it: the agent can write the whole tree, so
// the queries run in "/" with Python isolated and Go on its own toolchain, and a program
// found on PATH inside the tree is passed over (see toolEnv).
//
// A host is judged exactly as it will be resolved and sent: nothing is trimmed but one
// trailing dot, a name holds ASCII letters, digits, '-' and '_' only, the resolver is given
// the name fully qualified ("name.", so no resolv.conf search list applies), and a plain HTTP
// request is sent with the Host it was checked for.
//
// After a name is allowed, the proxy resolves it and refuses the addresses of this machine
// (local.go: loopback, link-local, unspecified, every interface's address, and the networks
// behind its bridges, read for each connection): a name that the network points at the
// person's own services (DNS rebinding, a LAN address, a container) does not reach them. Such
// a service is reached only by listing its address. A local registry is therefore listed as
// 127.0.0.1:PORT, not localhost.
//
// # Asking
//
// A first connection to a host that is not allowed calls Ask, which shows the person a card.
// Concurrent connections to the same host (any port) from one conversation wait for the same
// card; a client that goes away stops waiting, and the card is withdrawn when nobody waits.
// AllowAlways adds host:port (each port that waited) to the project's entries; AllowOnce
// allows those for the conversation until Forget; Deny refuses the host and is remembered for
// the conversation for a minute (denyMemory, at most maxDenied hosts), so that a command
// retrying in a loop does not show card after card. More than maxCardsInBurst new cards
// within cardBurst fold into one card (Request.Many) that every further new host waits on:
// Deny refuses them all and any new host for a minute, AllowOnce asks about each.
// A refused connection is answered 403 with a short text saying why and what the person can
// do, and the same line waits in TakeRefusals for the command's result, so that the model
// reads why the network failed.
//
// # What it may import
//
// Of ours only hostexec (a toolchain query never runs a program inside the project); the
// standard library, and github.com/BurntSushi/toml to read cargo's configuration (TOML; the
// module was already in the build through Fyne).
package proxy
