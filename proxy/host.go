package proxy

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// maxHostLen is the longest DNS name (RFC 1035: 253 characters without the trailing dot).
const maxHostLen = 253

// host is a destination's host as the proxy judges it: a lower-case DNS name without its
// trailing dot, or an IP address. Every spelling of one address (127.0.0.1, 2130706433,
// 0x7f000001, 0177.0.0.1, 127.1, ::ffff:127.0.0.1, [::1]) becomes the same ip, so an address
// cannot slip past the rules by being written another way.
type host struct {
	name string     // the DNS name; empty for an IP address
	ip   netip.Addr // valid for an IP address
}

func (h host) isIP() bool { return h.ip.IsValid() }

// String is the host as the person sees it: the name, or the address in its usual form.
func (h host) String() string {
	if h.isIP() {
		return h.ip.String()
	}
	return h.name
}

// hostPort is host:port as shown and as used in a pattern ("[::1]:8080" for IPv6).
func (h host) hostPort(port int) string {
	if h.isIP() && h.ip.Is6() {
		return "[" + h.ip.String() + "]:" + strconv.Itoa(port)
	}
	return h.String() + ":" + strconv.Itoa(port)
}

// parseHost reads a host as a client wrote it (no port; brackets allowed around IPv6). It
// trims nothing but one trailing dot: a name is judged exactly as it will be resolved and
// sent, so a space or a non-ASCII character (a no-break space that a trim would remove but
// an IDNA encoder would keep) makes it invalid rather than another name.
func parseHost(s string) (host, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			return host{}, fmt.Errorf("%q is not a valid host name: it holds a space, a control or a non-ASCII character (write an international name in its xn-- form)", s)
		}
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		a, err := netip.ParseAddr(s[1 : len(s)-1])
		if err != nil || !a.Is6() {
			return host{}, fmt.Errorf("%q is not an IPv6 address", s)
		}
		return host{ip: a.Unmap()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return host{ip: a.Unmap()}, nil
	}
	s = strings.TrimSuffix(strings.ToLower(s), ".")
	if s == "" {
		return host{}, fmt.Errorf("the host is empty")
	}
	if a, ok := parseLooseIPv4(s); ok {
		return host{ip: a}, nil
	}
	if len(s) > maxHostLen {
		return host{}, fmt.Errorf("the host name is longer than %d characters", maxHostLen)
	}
	labels := strings.Split(s, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return host{}, fmt.Errorf("%q is not a valid host name", s)
		}
		for _, c := range l {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return host{}, fmt.Errorf("%q is not a valid host name", s)
			}
		}
	}
	// A name whose last label is a number is read as an IPv4 address by browsers and by
	// inet_aton; one that is not a valid address is refused rather than guessed at.
	if isNumberLabel(labels[len(labels)-1]) {
		return host{}, fmt.Errorf("%q looks like an IP address but is not one", s)
	}
	return host{name: s}, nil
}

// parseLooseIPv4 reads the forms inet_aton(3) accepts, which resolvers and tools such as curl
// still honour: one to four parts, each decimal, octal (leading 0) or hexadecimal (0x), the
// last part filling the remaining bytes (2130706433, 0x7f000001, 0177.0.0.1, 127.1).
func parseLooseIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseInetNumber(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseInetNumber(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case strings.HasPrefix(p, "0x"):
		base, p = 16, p[2:]
		if p == "" {
			return 0, true // "0x" alone is 0 for inet_aton
		}
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

// isNumberLabel reports whether a label is all decimal digits or a 0x number, which is how
// the URL standard decides that a host ends in an IPv4 number.
func isNumberLabel(l string) bool {
	if strings.HasPrefix(l, "0x") {
		l = l[2:]
		for _, c := range l {
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
		return true
	}
	for _, c := range l {
		if c < '0' || c > '9' {
			return false
		}
	}
	return l != ""
}

// isLocal says whether an address reaches this machine's own services or its link: loopback,
// link-local, unspecified (0.0.0.0 and all of 0.0.0.0/8, which Linux routes to this host).
// A name that resolves to such an address is refused unless that address itself was allowed,
// so an allowed name cannot be pointed at the person's own services (DNS rebinding).
func isLocal(a netip.Addr) bool {
	a = a.Unmap()
	if a.Is4() && a.As4()[0] == 0 {
		return true
	}
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsUnspecified()
}
