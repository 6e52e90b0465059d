package main

import (
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
)

func TestPassivationFromEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == actors.EnvPassivateAfter {
				return v
			}
			return ""
		}
	}
	if p, err := passivationFromEnv(env("")); err != nil || p != actors.DefaultPassivation {
		t.Errorf("unset: %+v, %v; want the default", p, err)
	}
	if p, err := passivationFromEnv(env("2s")); err != nil || p.IdleAfter != 2*time.Second || p.MaxResident != actors.DefaultPassivation.MaxResident {
		t.Errorf("2s: %+v, %v", p, err)
	}
	for _, bad := range []string{"soon", "-1s", "0"} {
		if _, err := passivationFromEnv(env(bad)); err == nil || !strings.Contains(err.Error(), actors.EnvPassivateAfter) {
			t.Errorf("%q: %v; want an error naming the variable", bad, err)
		}
	}
}
