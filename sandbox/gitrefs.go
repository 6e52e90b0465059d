//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// The branches a linked worktree's commands may not move (issue 34): the one the main
// working tree has checked out — the base a conversation's worktree merges back into — and
// the one every other linked worktree has checked out. Their HEADs and indexes are kept
// already (gitworktree.go); without this, `git update-ref refs/heads/main X` or `git branch
// -f main X` from the worktree would move the person's branch under their checkout.
//
// The rule, from how git's files backend writes a ref: an update writes <ref>.lock and
// renames it over the loose file <ref>; a deletion unlinks the loose file and, when the ref
// is packed too, rewrites packed-refs without it; and a loose file always wins over
// packed-refs. So each such branch is made a loose file (when it is only in packed-refs,
// the supervisor writes the loose file with the packed value first, as git itself would on
// its next update of it: the same ref, the same commit) and that file is bound read-only:
// a rename over a mount point or an unlink of one fails (EBUSY), whatever packed-refs then
// says. The directories on its path (refs, refs/heads, refs/heads/feature for
// feature/x) are bound over themselves writable, so that they cannot be renamed away to
// make the loose file disappear; creating, committing on and deleting other branches, a
// stash (refs/stash), tags and packed-refs stay writable. The branch's reflog
// (logs/refs/heads/…) is kept the same way, so a refused update leaves no entry there.
//
// A repository whose refs are in a reftable (extensions.refStorage=reftable) has one
// file for all of them: no file of one branch can be kept, so the reftable is bound
// read-only and commits there fail rather than the base being movable.

// protectCheckedOutBranches keeps the branches checked out in the main working tree and in
// the other linked worktrees of common (own is this worktree's directory in it).
func (b *boundTree) protectCheckedOutBranches(common, own string) error {
	reftable := filepath.Join(common, "reftable")
	if fi, err := os.Lstat(reftable); err == nil && fi.IsDir() {
		if !isMountRoot(reftable) {
			return b.mount(reftable, true)
		}
		return nil
	}
	for _, ref := range checkedOutBranches(common, own) {
		p := filepath.Join(common, filepath.FromSlash(ref))
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			if err := writeLooseRef(common, ref); err != nil {
				return err
			}
			fi, err = os.Lstat(p)
		}
		if err != nil {
			// Neither loose nor packed: a branch that does not exist yet (an unborn
			// HEAD) has no commit to keep.
			continue
		}
		if !fi.Mode().IsRegular() {
			continue // a symbolic ref of old gits: a bind would follow it
		}
		if err := b.keepFile(filepath.Join(common, "refs"), p); err != nil {
			return err
		}
		b.guardLock(p)
		// Its reflog too: git appends the update to logs/<ref> before the rename of the
		// lock fails, so a refused update would leave an entry in the person's reflog
		// saying the branch moved when it did not.
		logs := filepath.Join(common, "logs")
		lp := filepath.Join(logs, filepath.FromSlash(ref))
		if fi, err := os.Lstat(lp); err == nil && fi.Mode().IsRegular() {
			if err := b.keepFile(logs, lp); err != nil {
				return err
			}
		}
	}
	return nil
}

// keepFile binds p, a file under root, read-only, and each directory from root down to p's
// over itself (writable), so that neither p nor a directory on its path can be renamed away
// and replaced.
func (b *boundTree) keepFile(root, p string) error {
	for dir := root; ; {
		if !isMountRoot(dir) {
			if err := b.mount(dir, false); err != nil {
				return err
			}
		}
		rel, _ := filepath.Rel(dir, filepath.Dir(p))
		if rel == "." {
			break
		}
		dir = filepath.Join(dir, strings.Split(rel, string(filepath.Separator))[0])
	}
	if !isMountRoot(p) {
		return b.mount(p, true)
	}
	return nil
}

// checkedOutBranches are the refs/heads/… that the main working tree's HEAD and the other
// linked worktrees' HEADs point at (a detached HEAD points at none).
func checkedOutBranches(common, own string) []string {
	heads := []string{filepath.Join(common, "HEAD")}
	worktrees := filepath.Join(common, "worktrees")
	for _, e := range readDir(worktrees) {
		if d := filepath.Join(worktrees, e.Name()); e.IsDir() && d != own {
			heads = append(heads, filepath.Join(d, "HEAD"))
		}
	}
	var refs []string
	for _, h := range heads {
		b, err := os.ReadFile(h)
		if err != nil {
			continue
		}
		ref, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "ref: ")
		if ok && branchRef(ref) {
			refs = append(refs, ref)
		}
	}
	return refs
}

// branchRef says whether ref is a plain refs/heads/… name that stays below refs/heads.
func branchRef(ref string) bool {
	name, ok := strings.CutPrefix(ref, "refs/heads/")
	if !ok || name == "" || strings.HasPrefix(name, "/") || strings.Contains(name, "\\") {
		return false
	}
	for _, part := range strings.Split(name, "/") {
		if part == "" || part == "." || part == ".." || strings.HasSuffix(part, ".lock") {
			return false
		}
	}
	return true
}

// writeLooseRef writes ref's value from packed-refs as its loose file, taking git's lock
// (<ref>.lock) as git does, so that a git of the person's running meanwhile is not raced.
// Nothing is written when ref is not packed.
func writeLooseRef(common, ref string) error {
	oid := packedRef(filepath.Join(common, "packed-refs"), ref)
	if oid == "" {
		return nil
	}
	p := filepath.Join(common, filepath.FromSlash(ref))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("project mode: keep the branch %s of the repository %s: %w", ref, common, err)
	}
	lock := p + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("project mode: keep the branch %s of the repository %s: git is changing it (%w); try again when it has finished", ref, common, err)
	}
	_, werr := f.WriteString(oid + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	// Under the lock: the packed value read before it may have changed meanwhile.
	if werr == nil && packedRef(filepath.Join(common, "packed-refs"), ref) != oid {
		werr = errors.New("the branch moved while it was read")
	}
	if werr == nil {
		if _, err := os.Lstat(p); err == nil {
			_ = os.Remove(lock) // written meanwhile: the loose file is there
			return nil
		}
		werr = os.Rename(lock, p)
	}
	if werr != nil {
		_ = os.Remove(lock)
		return fmt.Errorf("project mode: keep the branch %s of the repository %s: %w; try again", ref, common, werr)
	}
	return nil
}

// packedRef is ref's object id in the packed-refs file at path, or "".
func packedRef(path, ref string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		oid, name, ok := strings.Cut(line, " ")
		if ok && name == ref && validOID(oid) {
			return oid
		}
	}
	return ""
}

// validOID says whether s is a SHA-1 or SHA-256 object id in hex.
func validOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// isMountRoot says whether p is the root of a mount in this view (bound already).
func isMountRoot(p string) bool {
	var st unix.Statx_t
	err := unix.Statx(unix.AT_FDCWD, p, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &st)
	return err == nil && st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
}
