package proxy

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// pattern is one allowed-hosts entry:
//
//	example.org        that host, any port
//	*.example.org      every subdomain of example.org (never example.org itself), any port
//	example.org:443    that host, port 443 only (also *.example.org:443)
//	192.0.2.7, [::1]   that address (in any spelling a client uses), any port; :port as above
//
// Host names are compared without case and without a trailing dot.
type pattern struct {
	wildcard bool // "*." prefix: subdomains only
	host     host // for a wildcard, the parent domain
	port     int  // 0: any port
}

// parsePattern reads an entry as a person or the card writes it.
func parsePattern(s string) (pattern, error) {
	in := s
	s = strings.TrimSpace(s)
	if s == "" {
		return pattern{}, fmt.Errorf("the allowed-host entry is empty: write a host such as example.org or *.example.org")
	}
	var p pattern
	hostPart := s
	// A port is split off only where it cannot be part of an IPv6 address: after "]" or
	// when the entry holds exactly one colon.
	if strings.HasPrefix(s, "[") {
		end := strings.Index(s, "]")
		if end < 0 {
			return pattern{}, fmt.Errorf("%q: missing ] after the IPv6 address", in)
		}
		hostPart = s[:end+1]
		if rest := s[end+1:]; rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return pattern{}, fmt.Errorf("%q: only :PORT may follow the IPv6 address", in)
			}
			port, err := parsePort(rest[1:])
			if err != nil {
				return pattern{}, fmt.Errorf("%q: %v", in, err)
			}
			p.port = port
		}
	} else if strings.Count(s, ":") == 1 {
		h, portText, _ := strings.Cut(s, ":")
		port, err := parsePort(portText)
		if err != nil {
			return pattern{}, fmt.Errorf("%q: %v", in, err)
		}
		hostPart, p.port = h, port
	}
	if rest, ok := strings.CutPrefix(hostPart, "*."); ok {
		p.wildcard = true
		hostPart = rest
	}
	if strings.Contains(hostPart, "*") {
		return pattern{}, fmt.Errorf("%q: a * may only stand first, as in *.example.org (subdomains of example.org)", in)
	}
	h, err := parseHost(hostPart)
	if err != nil {
		return pattern{}, fmt.Errorf("%q: %v", in, err)
	}
	if p.wildcard && h.isIP() {
		return pattern{}, fmt.Errorf("%q: *. goes before a domain name, not an IP address", in)
	}
	p.host = h
	return p, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 {
		return 0, fmt.Errorf("the port %q is not a number from 1 to 65535", s)
	}
	return n, nil
}

// String is the entry's one spelling, the form stored and listed.
func (p pattern) String() string {
	h := p.host.String()
	if p.wildcard {
		h = "*." + h
	}
	if p.port == 0 {
		if p.host.isIP() && p.host.ip.Is6() {
			return "[" + h + "]"
		}
		return h
	}
	if p.host.isIP() {
		return net.JoinHostPort(h, strconv.Itoa(p.port))
	}
	return h + ":" + strconv.Itoa(p.port)
}

// matches says whether a connection to h:port is what the entry allows. An IP address is
// matched only by an entry naming that address, never by a name.
func (p pattern) matches(h host, port int) bool {
	if p.port != 0 && p.port != port {
		return false
	}
	if h.isIP() || p.host.isIP() {
		return h.isIP() && p.host.isIP() && h.ip == p.host.ip
	}
	if p.wildcard {
		return strings.HasSuffix(h.name, "."+p.host.name)
	}
	return h.name == p.host.name
}

// CheckPattern says what is wrong with an allowed-host entry, or nil: the one reading of
// entries, for lists the app takes from elsewhere (a headless run's --allow-hosts).
func CheckPattern(entry string) error {
	_, err := parsePattern(entry)
	return err
}

// MatchAny reports whether a connection to hostName:port is allowed by one of entries, as
// the project's own list would allow it. Entries that do not parse allow nothing.
func MatchAny(entries []string, hostName string, port int) bool {
	h, err := parseHost(hostName)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if p, err := parsePattern(e); err == nil && p.matches(h, port) {
			return true
		}
	}
	return false
}
