package mcp

import (
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// A conversation's servers restart when the sandbox policy they started under changes: any
// change of mode, and in Project mode a new proxy socket; an unknown mode is Restricted.
func TestPolicyKeyFollowsTheSandboxPolicy(t *testing.T) {
	env := func(m domain.Mode, sock string) tools.Env {
		return tools.Env{Cwd: "/src", TempDir: "/t", Mode: m, ProxySocket: sock}
	}
	keys := map[string]tools.Env{}
	for _, e := range []tools.Env{env(domain.ModeRestricted, ""), env(domain.ModeProject, ""), env(domain.ModeProject, "/run/a.sock"), env(domain.ModeUnrestricted, "")} {
		k := policyKey(e)
		if other, dup := keys[k]; dup {
			t.Errorf("%+v and %+v share the key %q", e, other, k)
		}
		keys[k] = e
	}
	if policyKey(env("", "")) != policyKey(env(domain.ModeRestricted, "/run/a.sock")) || policyKey(env("v9", "")) != "restricted" {
		t.Error("an empty or unknown mode must be Restricted")
	}
	s := (&Hub{}).NewSet("/src")
	if s.policy != policyKey(env(domain.ModeRestricted, "")) || !s.restricted {
		t.Errorf("a new set starts Restricted: %q", s.policy)
	}
	s.switchMode(env(domain.ModeProject, "/run/a.sock"))
	if !s.restricted || s.policy != "project /run/a.sock" {
		t.Errorf("after the switch to Project: restricted=%v policy=%q", s.restricted, s.policy)
	}
}
