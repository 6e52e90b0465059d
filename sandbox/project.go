//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// Project mode (Policy.Project): every wall of the Restricted policy stays up — the secrets
// hidden, the rest of the disk read-only, the namespaces, the filter — and in addition the
// working tree is writable and the network is reachable through the app's proxy only
// (relay.go). It needs the mount view: a Landlock rule cannot make a file below a writable
// directory read-only, and without a network namespace there is no way to let a command
// reach the proxy and nothing else.
//
// In the tree, the files that make a program run later — git's hooks and configuration, the
// project's agent and editor settings, shell start-up files — stay read-only: each that
// exists is bound read-only over itself, so neither writing nor renaming nor replacing it
// works (a mount point cannot be renamed or removed: EBUSY). .git itself is pinned the same
// way (bound over itself, writable), so it cannot be moved aside and replaced by a directory
// or a pointer file of the command's making, while objects, refs and the index stay
// writable and `git add` and `git commit` work. A protected name that does not exist yet
// cannot be bound; if a command creates one, the supervisor removes it when the command
// ends, before anything else can run it, and the tool result says so. The same holds for a
// git repository anywhere in the tree (gitwall.go).

// ProtectedFiles is the one table of the tree's protected paths, relative to the tree.
// Describe, the mode badge's details and the patch tool read it.
var ProtectedFiles = []string{
	".git/hooks",
	".git/config",
	".gitmodules",
	".mcp.json",
	".phoenix",
	".claude",
	".vscode",
	".idea",
	".devcontainer",
	".envrc",
	".bashrc",
	".bash_profile",
	".bash_login",
	".profile",
	".zshrc",
	".zshenv",
	".zprofile",
}

// pinnedDir is bound over itself, writable, so that it cannot be renamed or replaced.
const pinnedDir = ".git"

// projectConfig is Project mode as the supervisor gets it.
type projectConfig struct {
	Tree string `json:"tree"`
	// Proxy says a proxy socket comes with the request (its descriptor); without it the
	// command has no network.
	Proxy bool `json:"proxy,omitempty"`
	// Common is the repository of a linked worktree tree is, made writable with it
	// (gitworktree.go); the supervisor sets it when it binds the tree.
	Common string `json:"-"`
}

// boundTree is the tree a Project supervisor has made writable, kept from one command to
// the next of the same tree.
type boundTree struct {
	tree   string
	dev    uint64
	ino    uint64
	mounts []string // innermost last; taken down in reverse
	// existed records which protected paths existed when the last command started.
	existed map[string]bool
	// repositories are the repositories in the tree when the last command started
	// (gitwall.go), rootWasRepository whether the tree itself was laid out as one, and
	// started when that was looked at.
	repositories      map[gitID]bool
	rootWasRepository bool
	started           time.Time
	// outside are the protected files of the repository of a linked worktree, outside the
	// tree (gitworktree.go).
	outside []protectedOutside
	common  string
	// locks are git's lock files of the protected files there (gitworktree.go).
	locks []guardedLock
	// paths are pinnedDir and then ProtectedFiles joined to tree, made once per binding
	// (protectedPaths): every Project command looks at each of them twice.
	paths []string
}

// protectedPaths returns pinnedDir and then each of ProtectedFiles below the bound tree.
func (b *boundTree) protectedPaths() []string {
	if len(b.paths) != 1+len(ProtectedFiles) {
		b.paths = make([]string, 0, 1+len(ProtectedFiles))
		for _, rel := range append([]string{pinnedDir}, ProtectedFiles...) {
			b.paths = append(b.paths, filepath.Join(b.tree, rel))
		}
	}
	return b.paths
}

// lstat is os.Lstat without what it allocates (the file's details, the error): most of the
// paths the sandbox looks at before and after each command (protected files, secrets) do
// not exist.
func lstat(p string, st *unix.Stat_t) bool {
	for {
		err := unix.Lstat(p, st)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

var writableTree boundTree

// bind makes tree writable with its protected files read-only and .git pinned, or updates
// the protected binds when the same tree is bound already (a protected file may have
// appeared since, created outside the sandbox).
func (b *boundTree) bind(tree string) error {
	var st unix.Stat_t
	if err := unix.Stat(tree, &st); err != nil {
		return fmt.Errorf("project mode: the working tree %s: %w", tree, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return fmt.Errorf("project mode: the working tree %s is not a directory", tree)
	}
	if b.tree != tree || b.dev != st.Dev || b.ino != st.Ino {
		b.unbind()
		cover, _ := covers.coveringDir(tree)
		if _, hidden := covers.covered[tree]; hidden {
			cover = tree
		}
		if cover != "" {
			return fmt.Errorf("project mode: the working tree %s lies in a place hidden from commands (%s)", tree, cover)
		}
		// Recursive: a secret covered below the tree (a tree that is the home directory
		// holds ~/.ssh) stays covered in the binding.
		if err := unix.Mount(tree, tree, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("project mode: bind the working tree %s: %w", tree, err)
		}
		if err := setReadOnly(tree, false); err != nil {
			_ = unix.Unmount(tree, unix.MNT_DETACH)
			return err
		}
		b.tree, b.dev, b.ino = tree, st.Dev, st.Ino
		b.mounts = []string{tree}
	}
	b.existed = map[string]bool{}
	b.started = coarseNow()
	repositories := findGitDirs(tree)
	b.repositories = gitDirIDs(repositories)
	b.rootWasRepository = looksLikeRepository(readDir(tree))
	pinned := filepath.Join(tree, pinnedDir)
	if fi, err := os.Lstat(pinned); err == nil {
		b.existed[pinnedDir] = true
		if !slices.Contains(b.mounts, pinned) && fi.Mode()&os.ModeSymlink == 0 {
			// A .git file (a worktree's pointer) is bound read-only: changing where it
			// points would be replacing it.
			if err := b.mount(pinned, !fi.IsDir()); err != nil {
				return err
			}
		}
	}
	if err := b.bindLinkedRepository(tree); err != nil {
		return err
	}
	for i, rel := range ProtectedFiles {
		p := b.protectedPaths()[i+1]
		var st unix.Stat_t
		if !lstat(p, &st) {
			continue
		}
		b.existed[rel] = true
		if slices.Contains(b.mounts, p) {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			// A bind would follow it out of the tree; the link itself sits in a writable
			// directory. What it points to outside the tree is read-only anyway; one
			// inside is protected only if it is itself on the list.
			continue
		}
		if err := b.mount(p, true); err != nil {
			return err
		}
	}
	// Last: a bind made above (.git pinned) would cover binds made below it earlier.
	return b.protectRepositories(repositories)
}

// mount binds p over itself, read-only or writable, and records it.
//
// A git outside the sandbox — another conversation's command in its worktree, the
// person's — replaces a file (a worktree's index, a branch's ref) by renaming a new one over
// it. A bind that looked the name up just before meets the old, now unlinked, entry and the
// kernel refuses it (ENOENT) though the path is there; one made just before is dissolved
// with it, and making it read-only then finds no mount (EINVAL). Either way p is bound
// again, a few times, so that a commit elsewhere never makes this command fail to start.
func (b *boundTree) mount(p string, readOnly bool) error {
	const attempts = 8
	for try := 1; ; try++ {
		err := unix.Mount(p, p, "", unix.MS_BIND, "")
		if err == nil {
			if !slices.Contains(b.mounts, p) {
				b.mounts = append(b.mounts, p)
			}
			if err = setReadOnly(p, readOnly); err == nil {
				return nil
			}
		} else {
			err = fmt.Errorf("project mode: protect %s: %w", p, err)
		}
		if try == attempts || !(errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EINVAL)) {
			return err
		}
		if _, statErr := os.Lstat(p); statErr != nil {
			return err // gone for good, not replaced
		}
	}
}

// protectRepositories keeps the repositories that were in the tree before a command (a
// vendored repository, a submodule's, under .git/modules or in place) as the tree's own
// .git is kept: their hooks and configuration read-only, a pointer file (.git with gitdir:)
// read-only, so that a command cannot make the person's next git in them run a program.
// Everything else in them stays writable: git add and git commit work. Read-only binds
// only: a path swapped for a link meanwhile (by another conversation's command) could only
// make something else read-only in this view.
func (b *boundTree) protectRepositories(repositories []gitDir) error {
	for _, r := range repositories {
		if r.rel == pinnedDir {
			continue // the tree's own, protected by ProtectedFiles
		}
		p := filepath.Join(b.tree, r.rel)
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		targets := []string{p}
		if fi.IsDir() {
			targets = []string{filepath.Join(p, "hooks"), filepath.Join(p, "config")}
		}
		for _, t := range targets {
			// A bind follows its directory when a command renames it, so what is
			// bound is asked of the kernel, not of the paths bound before.
			var st unix.Statx_t
			err := unix.Statx(unix.AT_FDCWD, t, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &st)
			if err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
				continue
			}
			if err := b.mount(t, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// unbind takes every binding of the tree away.
func (b *boundTree) unbind() {
	// A thread restricted ahead holds the tree's directory in its Landlock rules: after a
	// new binding (the tree replaced at its path) it would not let the command write there.
	viewEpoch.Add(1)
	for i := len(b.mounts) - 1; i >= 0; i-- {
		_ = unix.Unmount(b.mounts[i], unix.MNT_DETACH)
	}
	*b = boundTree{}
}

// removeCreated removes the protected paths a command created (they did not exist when it
// started) and the repositories it made anywhere in the tree, and says which, for the tool
// result. Programs outside the sandbox read them only later (an editor, git, a shell, an
// agent), and by then they are gone.
func (b *boundTree) removeCreated() []string {
	if b.tree == "" {
		return nil
	}
	var notes []string
	for i, p := range b.protectedPaths() {
		rel := pinnedDir
		if i > 0 {
			rel = ProtectedFiles[i-1]
		}
		if b.existed[rel] {
			continue
		}
		if !lexists(p) {
			continue
		}
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("The command created %s, a protected file that makes programs run later; removing it failed (%v): check it before you open the project.", rel, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("The command created %s, a protected file that makes programs run later, so it was removed: only the person may change it (Unrestricted mode, or by hand).", rel))
	}
	notes = append(notes, b.removeCreatedOutside()...)
	// After the tree's own .git, so that one the command made is named once.
	return append(notes, removeNewGitDirs(b.tree, b.repositories, b.rootWasRepository, b.started)...)
}

// checkTree checks the working tree of a Project policy: an absolute path to a directory,
// symlinks followed (the binding reaches the real directory).
func checkTree(tree string) (string, error) {
	if tree == "" || !filepath.IsAbs(tree) {
		return "", fmt.Errorf("project mode needs the working tree as an absolute path, got %q", tree)
	}
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return "", fmt.Errorf("project mode: the working tree: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("project mode: the working tree: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("project mode: the working tree %s is not a directory", tree)
	}
	if real == "/" {
		return "", errors.New("project mode: the working tree cannot be / (everything would be writable): open the conversation in a project directory")
	}
	return real, nil
}

// prepareProject makes the tree writable for a Project command and opens the relay to the
// proxy (proxyFd, -1 for none), starting the relay on the first Project command of this
// supervisor.
func prepareProject(cfg helperConfig, proxyFd int) (*relay, error) {
	if err := writableTree.bind(cfg.Project.Tree); err != nil {
		return nil, err
	}
	cfg.Project.Common = writableTree.common
	if projectRelay == nil {
		r, err := startRelay()
		if err != nil {
			return nil, err
		}
		projectRelay = r
	}
	if proxyFd >= 0 {
		projectRelay.open(fdPath(proxyFd))
	}
	return projectRelay, nil
}

// projectRelay is the supervisor's relay to the proxy, started with its first Project
// command.
var projectRelay *relay

// finishProject ends a Project command's network and removes the protected files it
// created; it returns what the model should be told.
func finishProject() []string {
	if projectRelay != nil {
		projectRelay.closeAll()
	}
	return writableTree.removeCreated()
}
