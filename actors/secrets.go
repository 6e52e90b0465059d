package actors

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// The person's own entries of the sandbox's secrets table (places no sandboxed command may
// read), kept one path a line in Config.HiddenPathsFile and applied to the sandbox at once.

// ErrNoHiddenPathsFile says the runtime was started without a file for the person's hidden
// paths.
var ErrNoHiddenPathsFile = errors.New("this session keeps no list of hidden paths (no configuration directory)")

// HiddenPathsFile is where the person's hidden paths are kept, "" when nowhere.
func (r *Runtime) HiddenPathsFile() string { return r.cfg.HiddenPathsFile }

// HiddenPaths reads the person's hidden paths as written (comments and blank lines kept out).
func (r *Runtime) HiddenPaths() ([]string, error) {
	if r.cfg.HiddenPathsFile == "" {
		return nil, ErrNoHiddenPathsFile
	}
	b, err := os.ReadFile(r.cfg.HiddenPathsFile)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", r.cfg.HiddenPathsFile, err)
	}
	return ParseHiddenPaths(string(b)), nil
}

// ParseHiddenPaths reads the file's lines: one path a line, # starts a comment.
func ParseHiddenPaths(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// SetHiddenPaths checks the person's hidden paths, hands them to the sandbox (the next
// command already cannot read them) and saves them. A path that is not absolute (or ~/…) is
// refused, and nothing changes.
func (r *Runtime) SetHiddenPaths(paths []string) error {
	if r.cfg.HiddenPathsFile == "" {
		return ErrNoHiddenPathsFile
	}
	if err := sandbox.SetExtraSecrets(paths); err != nil {
		return err
	}
	text := "# Places no sandboxed command may read, one absolute path (or ~/path) a line.\n" + strings.Join(paths, "\n") + "\n"
	if err := os.MkdirAll(filepath.Dir(r.cfg.HiddenPathsFile), 0o700); err != nil {
		return fmt.Errorf("save the hidden paths: %w", err)
	}
	tmp := r.cfg.HiddenPathsFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
		return fmt.Errorf("save the hidden paths: %w", err)
	}
	if err := os.Rename(tmp, r.cfg.HiddenPathsFile); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("save the hidden paths: %w", err)
	}
	return nil
}
