package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/proxy"
)

// upgradeAnswer is --approve-upgrades: what headless chat answers a request_mode_upgrade
// with. "project" allows edits in the project (Project mode), "full" everything
// (Unrestricted). The flag was a plain switch before Project mode existed, so a bare
// --approve-upgrades (and =true) still means full, and =false means ask.
type upgradeAnswer struct{ grant domain.Mode }

func (u *upgradeAnswer) String() string {
	switch u.grant {
	case domain.ModeProject:
		return "project"
	case domain.ModeUnrestricted:
		return "full"
	}
	return ""
}

func (u *upgradeAnswer) Set(s string) error {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "project":
		u.grant = domain.ModeProject
	case "full", "true", "1", "unrestricted":
		u.grant = domain.ModeUnrestricted
	case "false", "0":
		u.grant = actors.DenyUpgrade
	default:
		return fmt.Errorf("%q is not an answer: use project (edits in this project) or full (everything)", s)
	}
	return nil
}

// IsBoolFlag lets the flag stand alone, as it did when it was a switch.
func (u *upgradeAnswer) IsBoolFlag() bool { return true }

// parseMode reads --mode, the mode of a new conversation.
func parseMode(s string) (domain.Mode, error) {
	m := domain.Mode(strings.ToLower(strings.TrimSpace(s)))
	if m == "full" {
		m = domain.ModeUnrestricted
	}
	if !m.Known() {
		return "", fmt.Errorf("--mode %q: use restricted, project or unrestricted", s)
	}
	return m, nil
}

// hostList is --allow-hosts (comma-separated, repeatable) and the lines of --hosts-file:
// the hosts a headless run lets Project-mode commands reach when the proxy asks.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
			if err := checkHostPattern(p); err != nil {
				return err
			}
			*h = append(*h, p)
		}
	}
	return nil
}

// checkHostPattern reads an entry as the proxy's own list does (one reading of entries).
func checkHostPattern(p string) error { return proxy.CheckPattern(p) }

// readHostsFile adds the hosts of a file to the list: one a line, # starts a comment.
func (h *hostList) readHostsFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--hosts-file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if err := h.Set(line); err != nil {
			return fmt.Errorf("--hosts-file %s:%d: %w", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("--hosts-file %s: %w", path, err)
	}
	return nil
}

// allows reports whether host:port is on the list, matched as the proxy matches a
// project's allowed hosts (an exact name or address, "*.example.org" for its subdomains
// only, an optional :port).
func (h hostList) allows(host string, port int) bool { return proxy.MatchAny(h, host, port) }

// hostAnswer is headless chat's answer to a host card: allowed once when the host is on
// --allow-hosts, denied otherwise (nobody is there to ask). The folded card of a command
// that tries many hosts is answered "ask about each" when there is a list to judge each
// host by, and denied when there is none.
func hostAnswer(allowed hostList, e actors.HostApprovalRequested) actors.HostDecision {
	if len(e.Many) > 0 {
		if len(allowed) > 0 {
			return actors.HostAllowOnce
		}
		return actors.HostDeny
	}
	if allowed.allows(e.Host, e.Port) {
		return actors.HostAllowOnce
	}
	return actors.HostDeny
}

func hostPort(host string, port int) string {
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(port)
}
