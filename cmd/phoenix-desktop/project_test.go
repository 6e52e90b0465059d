package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// --approve-upgrades takes a level; its old forms (bare, =true, =false) keep their meaning.
func TestApproveUpgradesFlag(t *testing.T) {
	cases := []struct {
		args []string
		want domain.Mode
		bad  bool
	}{
		{nil, actors.DenyUpgrade, false},
		{[]string{"--approve-upgrades"}, domain.ModeUnrestricted, false},
		{[]string{"--approve-upgrades=true"}, domain.ModeUnrestricted, false},
		{[]string{"--approve-upgrades=false"}, actors.DenyUpgrade, false},
		{[]string{"--approve-upgrades=project"}, domain.ModeProject, false},
		{[]string{"--approve-upgrades=full"}, domain.ModeUnrestricted, false},
		{[]string{"--approve-upgrades=everything"}, "", true},
	}
	for _, c := range cases {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var u upgradeAnswer
		fs.Var(&u, "approve-upgrades", "")
		err := fs.Parse(c.args)
		if (err != nil) != c.bad || (!c.bad && u.grant != c.want) {
			t.Errorf("%v: grant %q, err %v; want %q", c.args, u.grant, err, c.want)
		}
	}
}

func TestModeFlag(t *testing.T) {
	for in, want := range map[string]domain.Mode{"restricted": domain.ModeRestricted, "Project": domain.ModeProject,
		"unrestricted": domain.ModeUnrestricted, "full": domain.ModeUnrestricted} {
		if got, err := parseMode(in); err != nil || got != want {
			t.Errorf("parseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := parseMode("open"); err == nil {
		t.Error("an unknown mode was accepted")
	}
}

// --allow-hosts and --hosts-file: exact names and IP addresses, and *.domain for subdomains
// only; a headless run allows a listed host once and denies every other.
func TestAllowHosts(t *testing.T) {
	var h hostList
	if err := h.Set("proxy.golang.org, *.npmjs.org,10.0.0.7"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, []byte("# mirrors\nmirror.example.com\n\n*.pypi.org # pip\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := h.readHostsFile(file); err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"proxy.golang.org": true, "PROXY.golang.org.": true, "registry.npmjs.org": true, "npmjs.org": false,
		"10.0.0.7": true, "10.0.0.8": false, "mirror.example.com": true, "files.pypi.org": true, "evil.example": false,
		"golang.org": false,
	} {
		if got := h.allows(host, 443); got != want {
			t.Errorf("allows(%s) = %v; want %v", host, got, want)
		}
		d := hostAnswer(h, actors.HostApprovalRequested{Host: host, Port: 443})
		if d.Allowed() != want || d == actors.HostAllowAlways {
			t.Errorf("headless answer for %s: %v", host, d)
		}
	}
	// The folded card of many hosts: each is judged by the list on a card of its own, or, with
	// no list, all are denied.
	many := actors.HostApprovalRequested{Host: "a.example", Port: 443, Many: []string{"a.example", "b.example"}}
	if d := hostAnswer(h, many); d != actors.HostAllowOnce {
		t.Errorf("headless answer to many hosts with a list: %v, want ask about each", d)
	}
	if d := hostAnswer(nil, many); d != actors.HostDeny {
		t.Errorf("headless answer to many hosts without a list: %v", d)
	}
	for _, bad := range []string{"*", "*.", "a b", "http://x.org"} {
		var l hostList
		if err := l.Set(bad); err == nil {
			t.Errorf("%q was accepted as a host", bad)
		}
	}
	if err := h.readHostsFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing hosts file was accepted")
	}
}

func TestApprovalAnswer(t *testing.T) {
	for in, want := range map[string]domain.Mode{"p\n": domain.ModeProject, "project": domain.ModeProject, "f": domain.ModeUnrestricted,
		"yes": domain.ModeUnrestricted, "": actors.DenyUpgrade, "n": actors.DenyUpgrade, "maybe": actors.DenyUpgrade} {
		if got := approvalAnswer(in); got != want {
			t.Errorf("approvalAnswer(%q) = %q; want %q", in, got, want)
		}
	}
}

// Headless chat: --mode=project starts in Project mode and --approve-upgrades=project
// grants Project mode, where patch writes the tree; contradicting flags are refused before a
// conversation exists.
func TestChatProjectFlags(t *testing.T) {
	data, cwd := t.TempDir(), t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"chat", "--mode=open", "x"}, "use restricted, project or unrestricted"},
		{[]string{"chat", "--unrestricted", "--mode=project", "x"}, "contradict"},
		{[]string{"chat", "--mode=project", "--continue", "abc", "x"}, "keeps its own"},
		{[]string{"chat", "--approve-upgrades=project", "--deny-upgrades", "x"}, "exclude"},
		{[]string{"chat", "--allow-hosts=a b", "x"}, "is not a valid host name"},
	} {
		if code, out, errs := cli(t, c.args...); code == 0 || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, out, errs)
		}
	}
	if !sandbox.Probe().Available {
		t.Skip("Landlock unavailable: conversations are Unrestricted only")
	}
	code, out, errs := cli(t, "chat", "--demo", "--mode=project", "--data-dir", data, "--cwd", cwd, "echo: hi")
	if code != 0 || !strings.Contains(out, "project mode") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	prompt := "upgrade: write a file\npatch: made.txt <<< written"
	code, out, errs = cli(t, "chat", "--demo", "--approve-upgrades=project", "--data-dir", data, "--cwd", cwd, prompt)
	// The change is announced once, by the mode notice (issue 28).
	if code != 0 || strings.Count(out, "Mode changed to Project") != 1 || !strings.Contains(out, domain.ModeChangeNotice(domain.ModeProject, domain.ChangedByApproval)) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "made.txt")); err != nil || strings.TrimSpace(string(b)) != "written" {
		t.Fatalf("the Project-mode patch did not write the file: %q %v", b, err)
	}
}
