package remote

import (
	"fmt"
	"strings"
)

// Location is a project on another machine: the SSH destination as ssh takes it ("host",
// "user@host", or a Host of ~/.ssh/config) and the absolute path of the working directory there.
type Location struct {
	Destination string
	Path        string
}

// String is the form a person types: user@host:/path.
func (l Location) String() string { return l.Destination + ":" + l.Path }

// ParseLocation reads "user@host:/path" or "host:/path" (a Host of ~/.ssh/config). A local path
// — one that starts with "/", "~" or "." or has no colon before its first slash — is not a
// remote location, and ok is false with no error.
func ParseLocation(s string) (loc Location, ok bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[:1], "/~.") {
		return Location{}, false, nil
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 || (strings.IndexByte(s, '/') >= 0 && strings.IndexByte(s, '/') < colon) {
		return Location{}, false, nil
	}
	dest, path := s[:colon], s[colon+1:]
	if err := CheckDestination(dest); err != nil {
		return Location{}, true, err
	}
	if !strings.HasPrefix(path, "/") {
		return Location{}, true, fmt.Errorf("the remote folder %q must be an absolute path, as in %s:/home/you/project", path, dest)
	}
	return Location{Destination: dest, Path: path}, true, nil
}

// CheckDestination refuses what ssh would read as an option or what is not one destination:
// a leading "-" would turn the name into a flag of ssh.
func CheckDestination(dest string) error {
	switch {
	case dest == "":
		return fmt.Errorf("the remote host is empty: write it as user@host or a Host name of ~/.ssh/config")
	case strings.HasPrefix(dest, "-"):
		return fmt.Errorf("the remote host %q starts with \"-\"; write it as user@host or a Host name of ~/.ssh/config", dest)
	case strings.ContainsAny(dest, " \t\r\n/'\"`$;&|<>\\"):
		return fmt.Errorf("the remote host %q has characters a host name cannot have; write it as user@host or a Host name of ~/.ssh/config", dest)
	}
	return nil
}
