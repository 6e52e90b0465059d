//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Hiding the secrets table (secrets.go) from a command, in two ways:
//
//   - In the mount view, each entry is covered: a directory by an empty read-only tmpfs, a
//     file by a read-only bind of /dev/null. The command sees the name and nothing in it.
//     The conversation's own temp dir may lie below a covered directory (the app keeps the
//     temp dirs in its data directory): it is bound from a descriptor the app opened, so the
//     supervisor never needs the hidden path itself.
//   - Without the view, Landlock's read rule is no longer one rule on "/" but an allow-list
//     of everything that is not secret: on the way down to each hidden entry every sibling
//     gets the read rights, the directories on the way only the right to list them (so the
//     names in a hidden directory stay listable, their contents do not), and the entry
//     itself nothing.

// coverSet is what a supervisor in the mount view has covered. Its methods run on the
// supervisor's main goroutine, one command at a time.
type coverSet struct {
	// covered maps each covered path to whether it is a directory (a tmpfs).
	covered map[string]bool
	// below holds, for each covered directory, a descriptor of what the tmpfs hides, opened
	// before it was mounted: the way to a temp dir below it (a bind mount's source must be
	// a mount of this namespace, so the app's own descriptor of the temp dir cannot serve).
	below map[string]int
}

var covers coverSet

// update covers every path of hidden not covered yet, and uncovers what is no longer in it.
// It reports whether anything changed, which invalidates the temp dir's binding (a new cover
// above it would hide it).
func (c *coverSet) update(hidden []string) (changed bool, err error) {
	if c.covered == nil {
		c.covered, c.below = map[string]bool{}, map[string]int{}
	}
	for path := range c.covered {
		if !slices.Contains(hidden, path) {
			// Detach: a command's process cannot hold it, all of them are gone by now.
			_ = unix.Unmount(path, unix.MNT_DETACH)
			delete(c.covered, path)
			if fd, ok := c.below[path]; ok {
				_ = unix.Close(fd)
				delete(c.below, path)
			}
			changed = true
		}
	}
	for _, path := range hidden {
		if _, ok := c.covered[path]; ok {
			continue
		}
		below, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			// Gone since the app looked; the next command's list says so.
			continue
		}
		if err != nil {
			return changed, fmt.Errorf("mount view: open %s to hide it: %w", path, err)
		}
		dir, err := coverPath(path)
		if err != nil {
			_ = unix.Close(below)
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return changed, err
		}
		c.covered[path] = dir
		if dir {
			c.below[path] = below
		} else {
			_ = unix.Close(below)
		}
		changed = true
	}
	return changed, nil
}

// coverPath hides one path. It reports whether it was a directory.
func coverPath(path string) (bool, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return false, err
	}
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		// mode=0711: the command may pass through (to its own temp dir, bound below) but
		// not list what the supervisor made there.
		if err := unix.Mount("phoenix-hidden", path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0711,size=64k"); err != nil {
			return false, fmt.Errorf("mount view: hide %s: %w", path, err)
		}
		if err := setReadOnly(path, true); err != nil {
			_ = unix.Unmount(path, unix.MNT_DETACH)
			return false, err
		}
		return true, nil
	}
	if err := unix.Mount("/dev/null", path, "", unix.MS_BIND, ""); err != nil {
		return false, fmt.Errorf("mount view: hide %s: %w", path, err)
	}
	if err := setReadOnly(path, true); err != nil {
		_ = unix.Unmount(path, unix.MNT_DETACH)
		return false, err
	}
	return false, nil
}

func setReadOnly(path string, ro bool) error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if !ro {
		attr = unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, path, 0, &attr); err != nil {
		return fmt.Errorf("mount view: make %s read-only=%v: %w", path, ro, err)
	}
	return nil
}

// coveringDir returns the covered directory path lies below, or "", and the descriptor of
// what that cover hides.
func (c *coverSet) coveringDir(path string) (string, int) {
	for p, dir := range c.covered {
		if dir && isBelow(path, p) {
			return p, c.below[p]
		}
	}
	return "", -1
}

// openBelow opens path, which lies below the covered directory cover, through the
// descriptor of what the cover hides, without following symlinks on the way.
func openBelow(cover string, coverFd int, path string) (int, error) {
	rel, err := filepath.Rel(cover, path)
	if err != nil {
		return -1, err
	}
	fd, err := unix.Openat2(coverFd, rel, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return -1, fmt.Errorf("mount view: open the temp dir %s below the hidden %s: %w", path, cover, err)
	}
	return fd, nil
}

// makeMountPoint creates the directories of path inside the covering tmpfs at cover, so
// that the temp dir can be bound there; the tmpfs is writable only meanwhile.
func makeMountPoint(cover, path string) error {
	if err := setReadOnly(cover, false); err != nil {
		return err
	}
	defer setReadOnly(cover, true) //nolint:errcheck // a failure leaves a tmpfs of empty dirs writable only to this supervisor's commands, which Landlock keeps out
	rel, err := filepath.Rel(cover, path)
	if err != nil {
		return err
	}
	cur := cover
	for _, part := range strings.Split(rel, "/") {
		cur = filepath.Join(cur, part)
		if err := unix.Mkdir(cur, 0o711); err != nil && !errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("mount view: make the mount point %s: %w", cur, err)
		}
	}
	return nil
}

// fdPath names an open descriptor of this process for mount(2) and open(2).
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

// pathRule is one Landlock rule: access below path.
type pathRule struct {
	path   string
	access uint64
}

// readRules is the Landlock read half of the policy: one rule on "/" when nothing is hidden
// (or the mount view hides it), else the allow-list described at the top of this file. A
// temp dir below a hidden directory stays usable: its own rule adds to whatever is above it.
func readRules(hidden []string) ([]pathRule, error) {
	if len(hidden) == 0 {
		return []pathRule{{"/", accessRead}}, nil
	}
	hiddenSet := map[string]bool{}
	onTheWay := map[string]bool{}
	for _, h := range hidden {
		hiddenSet[h] = true
		for d := filepath.Dir(h); ; d = filepath.Dir(d) {
			onTheWay[d] = true
			if d == "/" {
				break
			}
		}
	}
	var rules []pathRule
	var walk func(dir string) error
	walk = func(dir string) error {
		rules = append(rules, pathRule{dir, ll.AccessFSReadDir})
		names, err := readDirNames(dir)
		if err != nil {
			return fmt.Errorf("landlock: list %s to leave the secrets out: %w", dir, err)
		}
		for _, name := range names {
			p := filepath.Join(dir, name)
			switch {
			case hiddenSet[p]:
			case onTheWay[p]:
				if err := walk(p); err != nil {
					return err
				}
			default:
				rules = append(rules, pathRule{p, accessRead})
			}
		}
		return nil
	}
	if err := walk("/"); err != nil {
		return nil, err
	}
	return rules, nil
}

// readDirNames lists a directory's entries with plain system calls (the supervisor must not
// register files with the runtime's poller while it restricts a thread).
func readDirNames(dir string) ([]string, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	buf := make([]byte, 8192)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// addRules adds rules to a ruleset, each cut down to the rights handled. A path that
// vanished since it was listed is skipped (nothing can be read there), and so is a symlink:
// a rule on it would follow it, perhaps into a hidden directory, while what it points to has
// a rule of its own where it lies.
func addRules(ruleset int, rules []pathRule, handled uint64) error {
	for _, r := range rules {
		err := addPathRuleNoFollow(ruleset, r.path, r.access&handled)
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EACCES) || errors.Is(err, errSymlink) {
			continue
		}
		if err != nil {
			return fmt.Errorf("landlock: allow %s: %w", r.path, err)
		}
	}
	return nil
}

var errSymlink = errors.New("a symlink")

// addPathRuleNoFollow is addPathRule for a path that must not be followed if it is a
// symlink.
func addPathRuleNoFollow(ruleset int, path string, access uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return errSymlink
	case unix.S_IFDIR:
	default:
		access &= ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	}
	return ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0)
}
