package main

import "testing"

// TestWindowCollectsAtHalfTheHeadroom (issue 43): the window runs at GOGC 50 unless the
// person set GOGC.
func TestWindowCollectsAtHalfTheHeadroom(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "GOGC" {
				return v
			}
			return ""
		}
	}
	if p, set := windowGC(env("")); !set || p != 50 {
		t.Errorf("GOGC unset: %d, %v; want 50, set", p, set)
	}
	if _, set := windowGC(env("200")); set {
		t.Error("GOGC=200 set by the person was overridden")
	}
}
