package main

import (
	"strings"
	"testing"
)

// TestDoctorRemoteRefusesAnOptionAsHost: the host goes to ssh as its destination, so a value
// ssh would read as an option (-oProxyCommand=…) is refused before ssh runs.
func TestDoctorRemoteRefusesAnOptionAsHost(t *testing.T) {
	code, out, errs := cli(t, "doctor", "--remote", "-oProxyCommand=touch /tmp/phoenix-doctor-pwned")
	if code == 0 || !strings.Contains(errs, "starts with \"-\"") {
		t.Errorf("doctor --remote -o…: exit %d\n%s\n%s", code, out, errs)
	}
}
