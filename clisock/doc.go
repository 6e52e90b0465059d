// Package clisock is the private channel between a headless command and the app that holds
// the data directory: where its unix socket lives, how it is made owner-only, who may connect
// (the same uid, read with SO_PEERCRED), and the frames that carry a command's arguments,
// standard streams, signals and exit code.
//
// The frames are a plain length-prefixed format over a net.Conn, so the same protocol would
// run over TCP with TLS when the runtime lives on another machine; only Listen, Dial and the
// peer check are unix-specific.
//
// It imports nothing of ours.
package clisock
