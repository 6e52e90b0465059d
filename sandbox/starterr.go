package sandbox

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// startFailed says why a command could not start. The kernel reports a working directory the
// new process may not enter only as the errno of its chdir ("permission denied"), which
// reads as if bash itself were refused; so when the directory cannot be entered, the error
// names it and says what to do (issue 41). enter checks the directory as the person would.
func startFailed(err error, dir string, enter func(string) error) error {
	if dir != "" && (errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ENOTDIR)) {
		if enter(dir) != nil {
			return fmt.Errorf("start the command: its working directory %s cannot be opened (%w): give yourself access to it (chmod u+rx %s) or start the conversation in another folder", dir, err, dir)
		}
	}
	return fmt.Errorf("start the command: %w", err)
}

// canEnter reports whether this process (the supervisor, which is never restricted) may
// enter dir.
func canEnter(dir string) error { return unix.Access(dir, unix.X_OK) }
