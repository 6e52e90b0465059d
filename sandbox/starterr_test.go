package sandbox

import (
	"strings"
	"syscall"
	"testing"
)

// A command in a folder the person may not open says which folder and what to do, not only
// "start the command: permission denied" (issue 41); other failures keep their own words.
func TestStartFailedNamesAnUnopenableWorkingDirectory(t *testing.T) {
	refused := func(string) error { return syscall.EACCES }
	allowed := func(string) error { return nil }
	got := startFailed(syscall.EACCES, "/srv/locked", refused).Error()
	for _, want := range []string{"/srv/locked", "permission denied", "chmod u+rx /srv/locked", "another folder"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q does not say %q", got, want)
		}
	}
	if got := startFailed(syscall.EACCES, "/srv/open", allowed).Error(); got != "start the command: permission denied" {
		t.Errorf("an enterable folder: %q", got)
	}
	if got := startFailed(syscall.E2BIG, "/srv/locked", refused).Error(); got != "start the command: argument list too long" {
		t.Errorf("another failure: %q", got)
	}
}
