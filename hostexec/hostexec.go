package hostexec

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrInTree says that the program found on PATH lies inside a working tree the agent can
// write, so it is not run.
var ErrInTree = errors.New("lies inside the project, which the agent can change, so it is not run")

// LookPath finds name on PATH as exec.LookPath does, and refuses a program inside any of
// trees (as written or with links followed) with ErrInTree; a program that is not installed
// is exec.ErrNotFound.
func LookPath(name string, trees ...string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	for _, tree := range trees {
		if tree != "" && InsideTree(tree, path) {
			return "", fmt.Errorf("the %s found on PATH (%s) %w; take the project's folders out of PATH", name, path, ErrInTree)
		}
	}
	return path, nil
}

// InsideTree says whether path, or the file it links to, lies in tree (seen as written and
// with its links followed). A relative path counts as inside: where it leads depends on the
// working directory.
func InsideTree(tree, path string) bool {
	if !filepath.IsAbs(path) {
		return true
	}
	realPath, err := filepath.EvalSymlinks(path)
	if err != nil {
		realPath = path // gone since it was found: running it fails on its own
	}
	realTree, err := filepath.EvalSymlinks(tree)
	if err != nil {
		realTree = tree
	}
	for _, t := range []string{filepath.Clean(tree), realTree} {
		for _, p := range []string{filepath.Clean(path), realPath} {
			if within(t, p) {
				return true
			}
		}
	}
	return false
}

// within says whether p is root or lies under it (both clean absolute paths).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
