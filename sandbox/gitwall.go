//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// No new repository in the tree. A repository a command makes inside the project — `git init
// sub`, a clone, a worktree, a submodule checkout — brings hooks and a configuration
// (core.fsmonitor, core.hooksPath, aliases) that the person's own git runs the next time
// they use git in that directory, outside the sandbox. Codex refuses a .git created anywhere
// under a writable root; Project mode does the same, in two parts:
//
//   - The wall: when a Project command ends — after its whole process tree is swept, so
//     nothing of it can make one again — the supervisor walks the tree and removes every
//     repository that was not there when the command started, and the tool result says so,
//     as for the other protected files. A check by name when the command ends is the one
//     that holds against a hostile command: Landlock grants by place, not by name, so it
//     cannot forbid ".git" anywhere in a writable tree, and a filter on mkdir, open or rename
//     would have to read the name from the command's memory, which the command can change
//     after the check. Looking at what is there afterwards sees a repository however it was
//     made: mkdir, a rename of a directory called x to .git, a .git file with "gitdir:", a
//     symbolic link named .git, a bare repository, or a repository of a submodule under
//     .git/modules.
//   - The words: the git a Project command runs first on its PATH is a short script
//     (gitShim) that refuses `git init`, `git clone` and `git worktree add` into the tree and
//     submodule checkouts, saying why, before anything is made. A command can run the real git
//     by its path; the wall is what holds then.
//
// A repository that was there when the command started — a real submodule, a vendored
// repository — is left alone, wherever a command moves it: repositories are told apart by
// their inode and birth time, not their path, so neither `mv sub/.git sub/old && git init sub`
// keeps the new one, nor does moving the old one aside remove it. Its hooks and configuration
// are bound read-only before the command starts, as the tree's own (boundTree.bind), so the
// command cannot make it run a program either. The patch tool, which writes outside any
// command, refuses a repository's files instead (tools/protected.go).
//
// The walk looks at each directory of the tree before and after a command; a directory
// whose change time has not moved is not read again (readDir's kept listings), so a tree
// whose node_modules did not change costs a statx a directory (BenchmarkFindGitDirs: 2,100
// directories, 18 ms read, 2.7 ms kept). Two limits: what the person makes in
// the tree while a command runs is new to it and removed; an MCP server in Project mode is
// one long command, so what it makes is removed only when it ends, and the commands that run
// meanwhile take it for the person's.

// gitID identifies a repository's directory or pointer file across renames: its device,
// inode and, where the file system keeps one, birth time (an inode number freed by removing
// a repository can come back for a new one).
type gitID struct {
	dev, ino uint64
	btime    unix.StatxTimestamp
}

// gitDir is one repository found in the tree.
type gitDir struct {
	rel string // relative to the tree
	id  gitID
	// named says it was found by its name, .git; otherwise by its layout.
	named bool
}

// findGitDirs lists every place in tree that git would take for a repository: an entry
// named .git anywhere (a directory, or a file or symbolic link, which git follows), a
// directory laid out as a bare repository, and the repositories of submodules kept in a
// repository's modules directory. Symbolic links are not followed; a directory that cannot
// be read is skipped (the command could not have written in it either).
func findGitDirs(tree string) []gitDir {
	var out []gitDir
	add := func(p, rel string, named bool) {
		if id, ok := gitIDOf(p); ok {
			out = append(out, gitDir{rel: rel, id: id, named: named})
		}
	}
	// modules walks a repository's modules directory: a submodule named a/b is kept in
	// modules/a/b, and may have modules of its own.
	var modules func(dir, rel string)
	modules = func(dir, rel string) {
		for _, e := range readDir(dir) {
			if !e.IsDir() {
				continue
			}
			p, r := filepath.Join(dir, e.Name()), filepath.Join(rel, e.Name())
			sub := readDir(p)
			if looksLikeRepository(sub) {
				add(p, r, false)
				modules(filepath.Join(p, "modules"), filepath.Join(r, "modules"))
				continue
			}
			modules(p, r)
		}
	}
	// walk looks at the entries of dir, read once: each directory is read once, by the
	// walk of its parent, which needs its entries to tell a bare repository.
	var walk func(dir, rel string, entries []os.DirEntry)
	walk = func(dir, rel string, entries []os.DirEntry) {
		for _, e := range entries {
			p, r := filepath.Join(dir, e.Name()), filepath.Join(rel, e.Name())
			// Case-insensitive: on a file system that ignores case (a FAT or NTFS
			// mount), git finds .GIT as .git.
			if strings.EqualFold(e.Name(), ".git") {
				add(p, r, true)
				if e.IsDir() {
					modules(filepath.Join(p, "modules"), filepath.Join(r, "modules"))
				}
				continue
			}
			if !e.IsDir() {
				continue
			}
			sub := readDir(p)
			if looksLikeRepository(sub) {
				add(p, r, false)
				modules(filepath.Join(p, "modules"), filepath.Join(r, "modules"))
				continue
			}
			walk(p, r, sub)
		}
	}
	walk(tree, "", readDir(tree))
	return out
}

// readDir lists the entries of dir that tell where a repository is — subdirectories, and the
// names .git (any case), HEAD, objects and refs — unsorted, nil if it cannot be read. A
// symbolic link put in dir's place is not followed.
//
// The walk reads every directory before and after each Project command, and most of them
// (node_modules, vendored trees) never change: a listing is kept (listings) and used again
// while its directory keeps the same change time. Every entry made, removed or renamed in a
// directory moves its change time to now, and no command can set it back (utime sets the
// change time to now too); a listing read within racyWindow of its directory's last change
// is read again next time, for file systems whose times are coarser than the changes.
func readDir(dir string) []os.DirEntry {
	// A kept listing is looked up by the path's own identity (a symbolic link put in the
	// directory's place has another inode, and is then refused by the open below).
	var st unix.Statx_t
	statErr := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_CTIME, &st)
	key := listingKey{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino, ctime: st.Ctime}
	if statErr == nil {
		if entries, ok := listings.get(dir, key); ok {
			return entries
		}
	}
	readAt := time.Now()
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	all, _ := f.ReadDir(-1)
	entries := all[:0]
	for _, e := range all {
		switch name := e.Name(); {
		case e.IsDir(), strings.EqualFold(name, ".git"), name == "HEAD", name == "objects", name == "refs":
			entries = append(entries, e)
		}
	}
	entries = slices.Clip(entries)
	if statErr == nil {
		listings.put(dir, key, readAt, entries)
	}
	return entries
}

// racyWindow is how long after a directory's last change its listing is not kept: longer
// than the coarsest time stamps of the file systems a project lives on (FAT's two seconds).
// A variable for the tests, which use the kept listings on a tree made a moment ago.
var racyWindow = 3 * time.Second

// maxListings bounds the listings kept; past it they are all dropped and read again.
const maxListings = 500_000

// listingKey is what must be unchanged for a kept listing to hold.
type listingKey struct {
	dev, ino uint64
	ctime    unix.StatxTimestamp
}

type listing struct {
	key     listingKey
	entries []os.DirEntry
}

// listingCache is the directories' listings by path, safe for concurrent use.
type listingCache struct {
	mu sync.Mutex
	m  map[string]listing
}

var listings = listingCache{m: map[string]listing{}}

func (c *listingCache) get(dir string, key listingKey) ([]os.DirEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	l, ok := c.m[dir]
	return l.entries, ok && l.key == key
}

// put keeps a listing read at readAt, unless its directory changed too shortly before.
func (c *listingCache) put(dir string, key listingKey, readAt time.Time, entries []os.DirEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if readAt.Sub(time.Unix(key.ctime.Sec, int64(key.ctime.Nsec))) < racyWindow {
		delete(c.m, dir)
		return
	}
	if len(c.m) >= maxListings {
		c.m = map[string]listing{}
	}
	c.m[dir] = listing{key: key, entries: entries}
}

// looksLikeRepository says whether a directory's entries make it a repository for git:
// HEAD, objects and refs (what git's own check looks for).
func looksLikeRepository(entries []os.DirEntry) bool {
	var head, objects, refs bool
	for _, e := range entries {
		switch e.Name() {
		case "HEAD":
			head = !e.IsDir()
		case "objects":
			objects = e.IsDir()
		case "refs":
			refs = e.IsDir()
		}
	}
	return head && objects && refs
}

// gitIDOf identifies the file at p, not following a symbolic link.
func gitIDOf(p string) (gitID, bool) {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_INO|unix.STATX_BTIME, &st); err != nil {
		return gitID{}, false
	}
	id := gitID{dev: unix.Mkdev(st.Dev_major, st.Dev_minor), ino: st.Ino}
	if st.Mask&unix.STATX_BTIME != 0 {
		id.btime = st.Btime
	}
	return id, true
}

// gitDirIDs is the set of the repositories' identities.
func gitDirIDs(dirs []gitDir) map[gitID]bool {
	out := make(map[gitID]bool, len(dirs))
	for _, d := range dirs {
		out[d.id] = true
	}
	return out
}

// removeNewGitDirs removes each repository in tree that is not one of before (those there
// when the command started) and says what it did, for the tool result. The tree's own .git
// is left to the protected files' check (removeCreated), which removes it when the tree had
// none. A directory that was there before the command (born before started) and that the
// command laid out as a repository keeps what it held: only the entries the command added
// of the three that make it one go — the tree itself is such a directory, if it was not laid
// out as a repository before (rootWas). The command is over and swept when this runs, so
// nothing of it races the removal; what a path could be swapped for meanwhile lies in the
// tree or the temp dir, the only writable places of the mount view, which a command may
// change anyway.
func removeNewGitDirs(tree string, before map[gitID]bool, rootWas bool, started time.Time) []string {
	if before == nil {
		// The tree was never looked at (its set-up failed): nothing can be told new.
		return nil
	}
	const why = "which Project mode does not allow in the project (its hooks and configuration would run programs when the person uses git there)"
	var notes []string
	failed := func(rel string, err error) {
		notes = append(notes, fmt.Sprintf("The command made a git repository at %s, %s; removing it failed (%v): tell the person to remove it before they use git in that directory.", rel, why, err))
	}
	if !rootWas && looksLikeRepository(readDir(tree)) {
		if err := unmakeRepository(tree, started); err != nil {
			failed(".", err)
		} else {
			notes = append(notes, fmt.Sprintf("The command laid out the project's top directory as a git repository (HEAD, objects and refs), %s, so what it added of those was removed.", why))
		}
	}
	var removed []string
	for _, d := range findGitDirs(tree) {
		if before[d.id] || d.rel == pinnedDir {
			continue
		}
		if slices.ContainsFunc(removed, func(r string) bool { return isBelow(d.rel, r) }) {
			continue
		}
		p := filepath.Join(tree, d.rel)
		if !d.named && bornBefore(d.id, started) {
			if err := unmakeRepository(p, started); err != nil {
				failed(d.rel, err)
				continue
			}
			notes = append(notes, fmt.Sprintf("The command laid out %s, a directory that was there before, as a git repository (HEAD, objects and refs), %s, so what it added of those was removed.", d.rel, why))
			continue
		}
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			failed(d.rel, err)
			continue
		}
		removed = append(removed, d.rel)
		notes = append(notes, fmt.Sprintf("The command made a git repository at %s, %s, so it was removed: make repositories under $TMPDIR, or ask the person to run the command in Unrestricted mode.", d.rel, why))
	}
	return notes
}

// coarseNow is the clock file systems stamp birth times with (the kernel's coarse clock,
// which lags the precise one by up to a tick): a file made after it was read is born at or
// after what it returns.
func coarseNow() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return time.Now().Add(-time.Second)
	}
	return time.Unix(ts.Unix())
}

// bornBefore reports whether the file id names was made before t; false where the file
// system keeps no birth time.
func bornBefore(id gitID, t time.Time) bool {
	if id.btime == (unix.StatxTimestamp{}) {
		return false
	}
	return time.Unix(id.btime.Sec, int64(id.btime.Nsec)).Before(t)
}

// unmakeRepository removes from dir, which was there before the command, the entries of
// HEAD, objects and refs that the command made, so that git no longer takes dir for a
// repository and nothing of the person's goes. Where the file system keeps no birth times,
// HEAD goes: without it git takes no directory for a repository.
func unmakeRepository(dir string, started time.Time) error {
	var made []string
	for _, name := range []string{"HEAD", "objects", "refs"} {
		if id, ok := gitIDOf(filepath.Join(dir, name)); ok && id.btime != (unix.StatxTimestamp{}) && !bornBefore(id, started) {
			made = append(made, name)
		}
	}
	if len(made) == 0 {
		made = []string{"HEAD"}
	}
	for _, name := range made {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}
