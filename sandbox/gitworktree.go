//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Project mode in a linked git worktree (issue 34: a conversation's own worktree, or any the
// person made with `git worktree add`). The tree's .git is then a pointer file to
// <repository>/.git/worktrees/<name>, and a commit writes outside the tree: objects, the
// branch's ref and log in the repository's .git (the common directory), the worktree's index
// and HEAD in its own directory there. So the common directory is made writable as the
// tree's own .git is — bound over itself, writable — with the same files read-only: its hooks
// and config (ProtectedFiles' .git entries), a config.worktree, the main working tree's HEAD
// and index, the pointers of every linked worktree (commondir, gitdir, config.worktree under
// worktrees/<name>), which would otherwise let a command point the person's git in another
// worktree at a configuration of its own,
// and the hooks and config of the repositories of submodules kept there (modules/). Any of
// them a command creates is removed when it ends, as in the tree.
//
// Only a pointer laid out as git lays it out is followed: .git a regular file
// "gitdir: <dir>", <dir> named worktrees/<name> in a directory holding objects, refs and
// HEAD, whose commondir leads back to that directory and whose gitdir names this tree's .git.
// The pointer itself is bound read-only (bind), and a command cannot make one that is
// followed: a .git it creates is removed when it ends (gitwall.go).

// linkedPaths are the paths of a common directory kept read-only, relative to it; the
// worktrees' own are added per worktree (linkedWorktreeFiles). HEAD and index are the main
// working tree's checkout, which nothing in a linked worktree writes: the person's own tree
// stays as they left it.
var linkedPaths = []string{"hooks", "config", "config.worktree", "HEAD", "index"}

// linkedWorktreeFiles are the files of each worktrees/<name> directory kept read-only.
var linkedWorktreeFiles = []string{"commondir", "gitdir", "config.worktree"}

// otherWorktreeFiles are the files of the other linked worktrees' directories kept
// read-only too: their checkouts, as the main working tree's HEAD and index.
var otherWorktreeFiles = []string{"HEAD", "index"}

// protectedOutside is a protected path outside the tree and whether it existed when the
// command started.
type protectedOutside struct {
	path    string
	existed bool
}

// linkedRepository returns the common directory of the linked worktree tree is, and the
// worktree's own directory in it (worktrees/<name>), or "" when tree is not one laid out as
// git lays it out.
func linkedRepository(tree string) (common, own string) {
	pointer := filepath.Join(tree, ".git")
	fi, err := os.Lstat(pointer)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", ""
	}
	b, err := os.ReadFile(pointer)
	if err != nil {
		return "", ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || dir == "" {
		return "", ""
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(tree, dir)
	}
	own, err = filepath.EvalSymlinks(dir)
	if err != nil || filepath.Base(filepath.Dir(own)) != "worktrees" {
		return "", ""
	}
	common = filepath.Dir(filepath.Dir(own))
	cd, err := os.ReadFile(filepath.Join(own, "commondir"))
	if err != nil {
		return "", ""
	}
	c := strings.TrimSpace(string(cd))
	if !filepath.IsAbs(c) {
		c = filepath.Join(own, c)
	}
	if real, err := filepath.EvalSymlinks(c); err != nil || real != common {
		return "", ""
	}
	back, err := os.ReadFile(filepath.Join(own, "gitdir"))
	if err != nil {
		return "", ""
	}
	if real, err := filepath.EvalSymlinks(string(bytes.TrimSpace(back))); err != nil || real != pointer {
		return "", ""
	}
	entries := readDir(common)
	if !looksLikeRepository(entries) || common == "/" || within(common, tree) || within(tree, common) {
		return "", ""
	}
	return common, own
}

// within says whether p is root or lies under it (both clean absolute paths).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// bindLinkedRepository makes the common directory of the linked worktree tree is writable
// with its protected files read-only, and records which of those existed.
func (b *boundTree) bindLinkedRepository(tree string) error {
	b.outside, b.common, b.locks = nil, "", nil
	common, own := linkedRepository(tree)
	if common == "" {
		return nil
	}
	if cover, _ := covers.coveringDir(common); cover != "" {
		return nil // hidden from commands: commits fail, nothing is uncovered
	}
	if _, hidden := covers.covered[common]; hidden {
		return nil
	}
	if !slices.Contains(b.mounts, common) {
		if err := unix.Mount(common, common, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("project mode: bind the repository %s of the worktree: %w", common, err)
		}
		b.mounts = append(b.mounts, common)
		if err := setReadOnly(common, false); err != nil {
			return err
		}
	}
	b.common = common
	var protect []string
	for _, rel := range linkedPaths {
		protect = append(protect, filepath.Join(common, rel))
	}
	// Files git writes itself while it makes a worktree, and another's checkout: missing
	// when the command starts only while a `git worktree add` (another conversation's new
	// worktree) is under way, so one there when the command ends is that git's, not the
	// command's, and is left to it. Only a file that makes programs run later is removed.
	var gitsOwn []string
	worktrees := filepath.Join(common, "worktrees")
	for _, e := range readDir(worktrees) {
		if e.IsDir() {
			files := linkedWorktreeFiles
			if filepath.Join(worktrees, e.Name()) != own {
				// Another worktree's checkout, as the main one's HEAD and index.
				files = append(slices.Clone(files), otherWorktreeFiles...)
			}
			for _, f := range files {
				p := filepath.Join(worktrees, e.Name(), f)
				protect = append(protect, p)
				if !slices.Contains(runsPrograms, f) {
					gitsOwn = append(gitsOwn, p)
				}
			}
		}
	}
	for _, r := range findGitDirs(filepath.Join(common, "modules")) {
		for _, f := range []string{"hooks", "config"} {
			protect = append(protect, filepath.Join(common, "modules", r.rel, f))
		}
	}
	for _, p := range protect {
		var st unix.Statx_t
		err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &st)
		if err == nil || !slices.Contains(gitsOwn, p) {
			b.outside = append(b.outside, protectedOutside{path: p, existed: err == nil})
		}
		if err == nil && st.Mode&unix.S_IFMT == unix.S_IFREG {
			b.guardLock(p)
		}
		if err != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK || st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
			continue
		}
		if err := b.mount(p, true); err != nil {
			return err
		}
	}
	return b.protectCheckedOutBranches(common, own)
}

// runsPrograms are the per-worktree files that can make the person's git run a program
// (config.worktree: core.hooksPath, core.fsmonitor) where extensions.worktreeConfig is on.
var runsPrograms = []string{"config.worktree"}

// removeCreatedOutside removes the protected files of the common directory a command
// created, and git's lock files of them it left (removeStaleLocks), and says which.
func (b *boundTree) removeCreatedOutside() []string {
	notes := b.removeStaleLocks()
	for _, p := range b.outside {
		if p.existed {
			continue
		}
		if _, err := os.Lstat(p.path); err != nil {
			continue
		}
		if err := os.RemoveAll(p.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("The command created %s, a protected file of the repository that makes programs run later; removing it failed (%v): check it before you use git there.", p.path, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("The command created %s, a protected file of the repository that makes programs run later, so it was removed: only the person may change it.", p.path))
	}
	return notes
}

// Git's lock files of the protected files (issue 34). To change a file of the repository —
// a branch's ref, the main working tree's index or HEAD, config — git creates <file>.lock
// beside it (O_CREAT|O_EXCL), writes the new content there and renames it over the file.
// The file being bound read-only, the rename fails (EBUSY) and git removes its lock; but a
// git ended with SIGKILL — the command stopped, its time up, or its shell gone while git ran
// in the background, after which the supervisor kills what is left — removes nothing, and
// the lock stays in the person's repository: their next `git commit` on that branch, or any
// git in their working tree, fails with "Unable to create '….lock': File exists" until they
// delete it by hand. The lock's directory must stay writable (the worktree's own branches,
// its index, packed-refs live there), and no bind can stand on a name that does not exist
// without creating it in the person's repository, so creating the lock cannot be refused;
// instead the supervisor removes, when the command ends, each lock it can prove the command
// left: not there when the command started, and the file it locks the same file (inode,
// size, modification time) as then. The command cannot change the file (it is bound
// read-only); a git of the person's that takes the lock meanwhile is about to change it, and
// the proof fails once it has. A command that ended by itself had no git killed: a new lock
// is then most likely another git's, mid-update (another conversation committing in its own
// worktree), and is given lockGrace to go before it is taken for the command's. What stays
// open is a git outside that created a lock in the instant
// before a killed command's end and has not renamed it yet: its update then fails ("unable
// to update ref"), as with any concurrent git, and nothing is lost.

// guardedLock is the lock file of a protected file, with what the command's start saw.
type guardedLock struct {
	lock    string
	existed bool
	file    fileStamp
}

// fileStamp is what tells a file apart from one put in its place or rewritten.
type fileStamp struct {
	ino, size uint64
	mtime     unix.StatxTimestamp
}

func stampOf(p string) (fileStamp, bool) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_SIZE|unix.STATX_MTIME, &st); err != nil {
		return fileStamp{}, false
	}
	return fileStamp{ino: st.Ino, size: st.Size, mtime: st.Mtime}, true
}

// guardLock records the lock of the protected file p as the command starts.
func (b *boundTree) guardLock(p string) {
	stamp, ok := stampOf(p)
	if !ok {
		return
	}
	_, err := os.Lstat(p + ".lock")
	b.locks = append(b.locks, guardedLock{lock: p + ".lock", existed: err == nil, file: stamp})
}

// lockGrace is how long a command that ended by itself waits for a new lock of a protected
// file to go before it takes the lock for its own (removeStaleLocks).
const lockGrace = time.Second

// waitForLocksToGo waits, up to lockGrace, until no lock that appeared during the command is
// there any more.
func (b *boundTree) waitForLocksToGo() {
	deadline := time.Now().Add(lockGrace)
	for {
		left := false
		for _, l := range b.locks {
			if _, err := os.Lstat(l.lock); err == nil && !l.existed {
				left = true
				break
			}
		}
		if !left || time.Now().After(deadline) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// removeStaleLocks removes the locks of protected files the command left (see above), and
// says which.
func (b *boundTree) removeStaleLocks() []string {
	if !sweptLive {
		// Nothing of the command was killed, and a git that ends any other way removes its
		// locks: a new lock there now is most likely another git's, mid-update — another
		// conversation's commit in its own worktree, whose rename would fail if the lock
		// went. Such a git ends its update in moments; a lock still there after
		// lockGrace is one the command made and left, and goes.
		b.waitForLocksToGo()
	}
	var notes []string
	for _, l := range b.locks {
		if l.existed {
			continue
		}
		fi, err := os.Lstat(l.lock)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if now, ok := stampOf(strings.TrimSuffix(l.lock, ".lock")); !ok || now != l.file {
			continue // the file changed: a git of the person's holds the lock
		}
		if err := os.Remove(l.lock); err != nil && !errors.Is(err, os.ErrNotExist) {
			notes = append(notes, fmt.Sprintf("The command was ended while git held %s, the lock of a file it may not change; removing it failed (%v): delete it by hand, or git refuses to change that file.", l.lock, err))
			continue
		}
		notes = append(notes, fmt.Sprintf("The command was ended while git held %s, the lock of a file it may not change, so the lock was removed (the file is unchanged).", l.lock))
	}
	return notes
}
