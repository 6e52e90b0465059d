package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// ProtectedPatterns is the table of files inside a working tree that Project mode keeps
// read-only, because they make a program run later: git's hooks and configuration, the
// project's agent and editor settings, shell start-up files. Each pattern is relative to the
// tree, slash-separated, and covers the path itself and everything below it. Its home is the
// sandbox, which enforces it on commands in the kernel; patch reads the same table.
var ProtectedPatterns = sandbox.ProtectedFiles

// protectedInTree reports whether path, an absolute and cleaned path inside tree, is
// protected by patterns (see ProtectedPatterns): it is a protected file, lies below one, or
// is a directory a protected file lies below — writing a file there would replace them all,
// as a `.git` pointer file would move the repository and its hooks elsewhere. A path outside
// the tree is not this function's business (projectTarget refuses it first).
func protectedInTree(tree, path string, patterns []string) bool {
	rel, err := filepath.Rel(tree, path)
	if err != nil || rel == "." {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, p := range patterns {
		p = strings.Trim(p, "/")
		if rel == p || strings.HasPrefix(rel, p+"/") || strings.HasPrefix(p, rel+"/") {
			return true
		}
	}
	return false
}

// errOutsideTree and errProtected say why patch refused a path in Project mode.
var (
	errOutsideTree = errors.New("it is outside the working tree; in Project mode patch writes only inside the working tree (call request_mode_upgrade if you need to write elsewhere)")
	errProtected   = errors.New("it is a protected file: Project mode keeps git's hooks and configuration, agent and editor settings and shell start-up files read-only, because they make programs run later; ask the person to make this change")
	errRepository  = errors.New("it is a git repository's own file, or would make a directory a git repository: in Project mode patch writes neither, because the person's git would run a repository's hooks and configuration (a repository a command makes in the tree is removed too); change a repository with git in a bash command, or ask the person")
)

// projectTarget checks a path patch would write in Project mode, both as named and as the
// file a symbolic link leads to: each must lie inside the tree once every link is resolved,
// and neither may be protected. target is the path readForPatch resolved.
func projectTarget(tree, named, target string) error {
	root, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return fmt.Errorf("the working tree cannot be resolved: %w", err)
	}
	for _, p := range []string{named, target} {
		real, err := resolveExisting(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			return errOutsideTree
		}
		// Both spellings: the tree as the person named it, and as the kernel sees it.
		if protectedInTree(root, real, ProtectedPatterns) || protectedInTree(tree, p, ProtectedPatterns) {
			return errProtected
		}
		if repositoryFile(root, real) || repositoryFile(tree, p) {
			return errRepository
		}
	}
	return nil
}

// resolveExisting resolves the symbolic links of the longest part of path that exists and
// appends the rest, so that a file not created yet is placed where its directory really is.
func resolveExisting(path string) (string, error) {
	rest := ""
	for p := path; ; {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("its directory cannot be resolved: %w", err)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return path, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// repositoryFile reports whether path, an absolute and cleaned path inside tree, lies in a
// git repository's own directory — below an entry named .git anywhere in the tree (any case:
// git finds .GIT as .git on a file system that ignores case) — or in a directory that is, or
// with path written would be, laid out as a bare repository (HEAD, objects, refs), which the
// person's git takes for one. The sandbox removes such a repository when a command makes it
// (sandbox/gitwall.go); patch writes outside any command, so it refuses instead.
func repositoryFile(tree, path string) bool {
	rel, err := filepath.Rel(tree, path)
	if err != nil || rel == "." {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	for _, p := range parts {
		if strings.EqualFold(p, ".git") {
			return true
		}
	}
	// Each directory from the tree down to path's own, with the name of the next step.
	dir := tree
	for i, next := range parts {
		last := i == len(parts)-1
		has := func(name string, wantDir bool) bool {
			if next == name {
				// path itself is the file, or lies below the directory.
				return last != wantDir
			}
			fi, err := os.Lstat(filepath.Join(dir, name))
			return err == nil && fi.IsDir() == wantDir
		}
		if has("HEAD", false) && has("objects", true) && has("refs", true) {
			return true
		}
		dir = filepath.Join(dir, next)
	}
	return false
}
