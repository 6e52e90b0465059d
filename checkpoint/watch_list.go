package checkpoint

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// watchList works out what to watch: every directory of the work tree that .gitignore does
// not exclude (including empty ones and those holding only ignored files: a file created
// there later must be seen), each nested repository's git directory (a snapshot records a
// nested repository as its HEAD commit), and each file with more than one hard link (a
// write through another link reaches only that link's directory). skipped are the
// directories deliberately left out. It refuses a tree with more than limit paths to watch,
// or one on a file system whose changes inotify does not report.
func (r *Repo) watchList(ctx context.Context, w *treeWatch, limit int) (want, skipped map[string]bool, err error) {
	ignored, err := r.ignoredDirs(ctx)
	if err != nil {
		return nil, nil, err
	}
	want, skipped = map[string]bool{}, map[string]bool{}
	w.mu.Lock()
	scanFiles := !w.scanned
	links := make([]string, 0, len(w.links))
	for p := range w.links {
		links = append(links, p)
	}
	copied := len(links)
	w.mu.Unlock()
	var rootDev uint64
	if st, err := os.Stat(w.root); err == nil {
		rootDev = st.Sys().(*syscall.Stat_t).Dev
	}
	gitDir := r.gitDir
	if resolved, err := filepath.EvalSymlinks(gitDir); err == nil {
		gitDir = resolved
	}
	add := func(p string) error {
		want[p] = true
		if len(want) > limit {
			return fmt.Errorf("%w: more than %d directories to watch (the limit is there to leave inotify watches to other programs)", errNotWatchable, limit)
		}
		return nil
	}
	err = filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == w.root {
				return err
			}
			// An unreadable directory: git cannot read it either, and its parent is
			// watched (making it readable is an event there).
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if !d.IsDir() {
			if scanFiles && d.Type().IsRegular() {
				if info, err := d.Info(); err == nil && hardLinked(info) {
					links = append(links, p)
				}
			}
			return nil
		}
		rel, _ := filepath.Rel(w.root, p)
		switch {
		case p == gitDir || strings.HasPrefix(p, gitDir+string(filepath.Separator)):
			skipped[p] = true
			return filepath.SkipDir
		case d.Name() == ".git":
			// git never records what is in a .git directory. A nested repository is
			// recorded as its HEAD commit, so what decides that commit is watched; the
			// project's own repository (the work tree's .git) plays no part.
			skipped[p] = true
			if filepath.Dir(p) != w.root {
				if err := addGitDir(p, add); err != nil {
					return err
				}
			}
			return filepath.SkipDir
		case ignored[filepath.ToSlash(rel)+"/"]:
			skipped[p] = true
			return filepath.SkipDir
		}
		if info, err := d.Info(); err == nil && info.Sys().(*syscall.Stat_t).Dev != rootDev {
			if err := remoteFS(p); err != nil {
				return err
			}
		}
		if err := add(p); err != nil {
			return err
		}
		if p != w.root {
			// A nested repository whose .git is a file (a submodule, a linked worktree).
			gitFile := filepath.Join(p, ".git")
			if info, err := os.Lstat(gitFile); err == nil && info.Mode().IsRegular() {
				if dir, ok := gitFileDir(gitFile); ok {
					return addGitDir(dir, add)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	kept := map[string]bool{}
	for _, p := range links {
		if info, err := os.Lstat(p); err == nil && hardLinked(info) && want[filepath.Dir(p)] {
			kept[p] = true
			if err := add(p); err != nil {
				return nil, nil, err
			}
		}
	}
	w.mu.Lock()
	// A link an event recorded meanwhile is kept for the next sync, which its event asked for.
	for p := range w.links {
		if !slices.Contains(links[:copied], p) {
			kept[p] = true
		}
	}
	w.links, w.scanned = kept, true
	w.mu.Unlock()
	return want, skipped, nil
}

// addGitDir watches what decides a nested repository's HEAD commit: its git directory (HEAD,
// packed-refs, and the index and COMMIT_EDITMSG every commit writes) and its branch refs; for
// a linked worktree, the common directory's too.
func addGitDir(dir string, add func(string) error) error {
	dirs := []string{dir}
	if b, err := os.ReadFile(filepath.Join(dir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		dirs = append(dirs, filepath.Clean(common))
	}
	for _, d := range dirs {
		if err := add(d); err != nil {
			return err
		}
		err := filepath.WalkDir(filepath.Join(d, "refs", "heads"), func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return nil
			}
			return add(p)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// gitFileDir reads the "gitdir:" line of a .git file.
func gitFileDir(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return "", false
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(path), dir)
	}
	return filepath.Clean(dir), true
}

// ignoredDirs lists the directories .gitignore excludes, relative to the work tree with a
// trailing slash. `ls-files --directory` also names a directory whose files are all ignored
// though the directory itself is not (build/ under "*.o"): a file created there later is not
// ignored, so check-ignore keeps only the directories an ignore rule matches.
func (r *Repo) ignoredDirs(ctx context.Context) (map[string]bool, error) {
	out, err := r.git(ctx, nil, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, err
	}
	var dirs []byte
	for _, p := range strings.Split(string(out), "\x00") {
		if strings.HasSuffix(p, "/") {
			dirs = append(append(dirs, p...), 0)
		}
	}
	ignored := map[string]bool{}
	if len(dirs) == 0 {
		return ignored, nil
	}
	out, err = r.gitStatus(ctx, dirs, 1, "check-ignore", "-z", "--stdin")
	if err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			ignored[string(p)] = true
		}
	}
	return ignored, nil
}

// hardLinked reports whether a regular file has another name: a write through that name is
// reported to that name's directory only, so the file itself is watched.
func hardLinked(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && info.Mode().IsRegular() && st.Nlink > 1
}

// remoteFS refuses a file system on which inotify does not see every change: network file
// systems (another machine's writes) and FUSE (the daemon's own changes).
func remoteFS(path string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return fmt.Errorf("%w: %v", errNotWatchable, err)
	}
	if name, ok := remoteMagic[int64(st.Type)]; ok {
		return fmt.Errorf("%w: %s is on %s, whose changes from elsewhere inotify does not report", errNotWatchable, path, name)
	}
	return nil
}

var remoteMagic = map[int64]string{
	unix.NFS_SUPER_MAGIC:  "NFS",
	unix.SMB_SUPER_MAGIC:  "SMB",
	unix.SMB2_SUPER_MAGIC: "SMB",
	unix.CIFS_SUPER_MAGIC: "CIFS",
	unix.FUSE_SUPER_MAGIC: "FUSE",
	unix.V9FS_MAGIC:       "9p",
	unix.CEPH_SUPER_MAGIC: "Ceph",
	unix.AFS_SUPER_MAGIC:  "AFS",
	unix.AFS_FS_MAGIC:     "AFS",
	unix.CODA_SUPER_MAGIC: "Coda",
	0x01161970:            "GFS2",
	0x47504653:            "GPFS",
	0x0bd00bd0:            "Lustre",
}
