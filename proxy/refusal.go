package proxy

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
)

// A refused connection: why, in the person's words and the model's (TakeRefusals), and the
// answer the client gets.

// refusal is why a connection is refused, in words for the model and the person.
type refusal struct {
	target string // host:port
	reason string
}

func (r refusal) line() string { return "the proxy refused " + r.target + ": " + r.reason }

// body is the 403 answer: the line, and what to do.
func (r refusal) body() string {
	return r.line() + "\nTo reach it, the person can allow it for this project (Settings → allowed hosts, or Allow on the card). Do not retry until then.\n"
}

// The reasons, in their one place.
const (
	reasonNotAllowed     = "not among the hosts you allowed for this project"
	reasonIPNotAllowed   = "an IP address is reached only when that address itself is among the hosts you allowed for this project"
	reasonDenied         = "you denied it"
	reasonDeniedRecently = "you denied it less than a minute ago"
	reasonDeniedMany     = "the command tried many hosts at once and you denied them all (for a minute)"
)

func reasonLocal(name string, addrs []netip.Addr) string {
	return fmt.Sprintf("%s resolves only to addresses of this machine (%v: its own addresses, loopback, its local link or a network behind one of its bridges), "+
		"so it would reach your own services; such an address is reached only when the address itself is among the hosts you allowed", name, addrs)
}

func reasonMachineUnknown(err error) string {
	return fmt.Sprintf("could not tell whether its address belongs to this machine (%v), so it was not reached; try again", err)
}

func reasonAskFailed(err error) string { return "could not ask you: " + err.Error() }

func (s *Server) refuse(c *conv, conn net.Conn, r refusal) {
	s.mu.Lock()
	c.noteLocked(r.line())
	s.mu.Unlock()
	writeStatus(conn, http.StatusForbidden, r.body())
}

func writeStatus(w io.Writer, code int, body string) {
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
}
