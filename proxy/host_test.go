package proxy

import (
	"net/netip"
	"testing"
)

func TestParseHostSpellingsOfOneAddress(t *testing.T) {
	loop := netip.MustParseAddr("127.0.0.1")
	for _, s := range []string{
		"127.0.0.1", "2130706433", "0x7f000001", "0X7F000001", "0177.0.0.1", "0177.0.0.01", "127.1", "127.0.1",
		"0x7f.0.0.1", "0x7f.1", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "127.0.0.1.",
	} {
		h, err := parseHost(s)
		if err != nil {
			t.Errorf("parseHost(%q): %v", s, err)
			continue
		}
		if !h.isIP() || h.ip != loop {
			t.Errorf("parseHost(%q) = %+v, want the address 127.0.0.1", s, h)
		}
	}
	h, err := parseHost("[::1]")
	if err != nil || h.ip != netip.MustParseAddr("::1") {
		t.Errorf("parseHost([::1]) = %+v, %v", h, err)
	}
}

func TestParseHostNames(t *testing.T) {
	for in, want := range map[string]string{
		"Example.ORG":   "example.org",
		"example.org.":  "example.org",
		"a-b_c.example": "a-b_c.example",
		"0day.example":  "0day.example",
		"localhost":     "localhost",
	} {
		h, err := parseHost(in)
		if err != nil || h.isIP() || h.name != want {
			t.Errorf("parseHost(%q) = %+v, %v; want the name %q", in, h, err, want)
		}
	}
	for _, bad := range []string{"", ".", "a..b", "exa mple.org", "example.org/x", "a%2e.b", "1.2.3.999", "1.2.3.4.5",
		"[1.2.3.4]", "ex*ample.org", "example.org:80"} {
		if h, err := parseHost(bad); err == nil {
			t.Errorf("parseHost(%q) = %+v, want an error", bad, h)
		}
	}
}

func TestIsLocal(t *testing.T) {
	for _, s := range []string{"127.0.0.1", "127.9.9.9", "::1", "0.0.0.0", "0.1.2.3", "::", "169.254.169.254", "fe80::1", "::ffff:127.0.0.1", "::ffff:169.254.1.1"} {
		if !isLocal(netip.MustParseAddr(s)) {
			t.Errorf("isLocal(%s) = false", s)
		}
	}
	for _, s := range []string{"192.0.2.1", "10.0.0.1", "2001:db8::1", "8.8.8.8"} {
		if isLocal(netip.MustParseAddr(s)) {
			t.Errorf("isLocal(%s) = true", s)
		}
	}
}

func TestPatternMatching(t *testing.T) {
	type probe struct {
		host string
		port int
		want bool
	}
	cases := []struct {
		pattern string
		probes  []probe
	}{
		{"example.org", []probe{{"example.org", 443, true}, {"EXAMPLE.org.", 80, true}, {"www.example.org", 443, false}, {"badexample.org", 443, false}, {"example.org.evil", 443, false}}},
		{"*.example.org", []probe{{"example.org", 443, false}, {"www.example.org", 443, true}, {"a.b.example.org", 22, true}, {"wwwexample.org", 443, false}}},
		{"*.Example.ORG.:443", []probe{{"www.example.org", 443, true}, {"www.example.org", 80, false}, {"example.org", 443, false}}},
		{"example.org:8080", []probe{{"example.org", 8080, true}, {"example.org", 443, false}}},
		{"127.0.0.1", []probe{{"127.0.0.1", 1, true}, {"2130706433", 80, true}, {"0x7f000001", 80, true}, {"127.1", 80, true}, {"::ffff:127.0.0.1", 80, true}, {"127.0.0.2", 80, false}, {"localhost", 80, false}}},
		{"[::1]:8080", []probe{{"::1", 8080, true}, {"[::1]", 8080, true}, {"::1", 80, false}, {"127.0.0.1", 8080, false}}},
		{"::1", []probe{{"::1", 1234, true}}},
		// A name entry never allows an address, whatever the address.
		{"localhost", []probe{{"127.0.0.1", 80, false}, {"::1", 80, false}, {"localhost", 80, true}}},
		{"2130706433", []probe{{"127.0.0.1", 80, true}}},
	}
	for _, c := range cases {
		p, err := parsePattern(c.pattern)
		if err != nil {
			t.Fatalf("parsePattern(%q): %v", c.pattern, err)
		}
		for _, pr := range c.probes {
			h, err := parseHost(pr.host)
			if err != nil {
				t.Fatalf("parseHost(%q): %v", pr.host, err)
			}
			if got := p.matches(h, pr.port); got != pr.want {
				t.Errorf("%q matches %s:%d = %v, want %v", c.pattern, pr.host, pr.port, got, pr.want)
			}
		}
	}
}

func TestPatternSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"Example.org.":        "example.org",
		"*.Example.org:443":   "*.example.org:443",
		"0x7f000001":          "127.0.0.1",
		"0x7f000001:8080":     "127.0.0.1:8080",
		"[::1]":               "[::1]",
		"[::1]:443":           "[::1]:443",
		"::1":                 "[::1]",
		" registry.npmjs.org": "registry.npmjs.org",
	} {
		p, err := parsePattern(in)
		if err != nil {
			t.Errorf("parsePattern(%q): %v", in, err)
			continue
		}
		if p.String() != want {
			t.Errorf("parsePattern(%q).String() = %q, want %q", in, p.String(), want)
		}
		// The spelling reads back as the same entry.
		q, err := parsePattern(p.String())
		if err != nil || q != p {
			t.Errorf("parsePattern(%q) = %+v, %v; want %+v", p.String(), q, err, p)
		}
	}
	for _, bad := range []string{"", "*", "*.", "**.example.org", "www.*.example.org", "*example.org", "*.127.0.0.1", "example.org:0",
		"example.org:65536", "example.org:http", "[::1", "[::1]x", "http://example.org", "exa mple.org"} {
		if p, err := parsePattern(bad); err == nil {
			t.Errorf("parsePattern(%q) = %+v, want an error", bad, p)
		}
	}
}
