package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"
)

// The change detector: a Repo watches its work tree with inotify (through fsnotify) so that
// a snapshot of a tree in which nothing changed since the last one returns the last tree id
// without starting git. See doc.go for why it never misses a change, and what it cannot see.

// DefaultWatchLimit caps the watches one repository takes (directories, plus files with
// more than one hard link). Before Linux 5.11 a user's programs share 8,192 watches in all
// (fs.inotify.max_user_watches), and editors, file managers and sync clients take their part:
// one conversation must leave them most of it. A tree of 20,000 files (MaxFiles) rarely has
// more than 2,000 directories that .gitignore does not exclude. Past the cap the repository
// runs git for every snapshot, as it would without the detector.
const DefaultWatchLimit = 4096

// watchRetry is how long a repository that could not watch its tree (too many directories,
// no inotify instance or watch left, a file system whose changes inotify does not see) runs
// git for every snapshot before it tries again.
const watchRetry = 10 * time.Minute

// barrierTimeout bounds the wait for the detector to catch up with the kernel's queue; past
// it the snapshot runs git (it only happens when the machine is very slow or the queue lost
// the marker, which the detector then reports as an overflow anyway).
const barrierTimeout = 2 * time.Second

// syncDirName is the directory, inside the shadow repository, where the detector writes its
// marker (see barrier). git never looks into it, and it is the only part of the shadow
// repository that is watched: git's own writes there must not count as changes.
const syncDirName = "phoenix-watch"

// markerPrefix begins the name of the barrier's marker file in the sync directory; a number
// follows, a new one each time the marker is made again (see barrier).
const markerPrefix = "barrier-"

// errNotWatchable refuses a tree that inotify cannot follow.
var errNotWatchable = errors.New("the working tree cannot be watched for changes")

// treeWatch follows one work tree. Its flags are set by the goroutine that reads the events
// and read by the snapshot, which holds the Repo's lock.
type treeWatch struct {
	fs   *fsnotify.Watcher
	root string // the work tree, symbolic links resolved (event names start with it)
	// workTree is the work tree as the repository names it, and rootID the identity of the
	// directory it named when the watch began: a work tree moved away and made again at
	// the same path, or a symbolic link pointed elsewhere, sends no event to any watch.
	workTree string
	rootID   fileID
	syncDir  string
	done     chan struct{} // closed when the event goroutine has ended

	mu sync.Mutex
	// dirty: something may have changed since it was last cleared. A new watcher starts
	// dirty: what changed before its watches existed is unknown.
	dirty bool
	// structural: the set of directories to watch may have changed (a directory created,
	// removed or renamed, a .gitignore changed, a file with a second hard link appeared).
	structural bool
	// broken: the watcher lost events or failed; it is replaced at the next snapshot.
	broken error
	// watched are the paths added (directories, and files with several hard links).
	watched map[string]bool
	// links are the files of the tree known to have more than one hard link: found by the
	// first sync, which looks at every file, and by the events of files created (or whose
	// attributes changed) since; later syncs only walk the directories.
	links   map[string]bool
	scanned bool
	// seen is set while a barrier waits, and closed when the event of its write to the
	// marker arrives.
	seen chan struct{}
	// marker is the barrier's marker file, kept open (the first is created before the sync
	// directory is watched, so its creation is no event); markerPath names it. stale: a
	// barrier stopped waiting for its event, so the next one makes a marker of a new name
	// (markerSeq) and the late event, naming the old one, is never taken for its own.
	marker     *os.File
	markerPath string
	markerSeq  uint64
	stale      bool

	// beforeEvent, when set (tests only), is called with each event before it is handled.
	beforeEvent atomic.Pointer[func(fsnotify.Event)]
	// markerWritten, when set (tests only), is called once a barrier has written its marker.
	markerWritten atomic.Pointer[func()]
}

// newTreeWatch starts an empty watcher for root; sync adds the watches.
func newTreeWatch(root, gitDir string) (*treeWatch, error) {
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotWatchable, err)
	}
	rootID, err := identify(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotWatchable, err)
	}
	if err := remoteFS(resolved); err != nil {
		return nil, err
	}
	syncDir := filepath.Join(gitDir, syncDirName)
	// Markers a crash left behind would collide with this watcher's names.
	_ = os.RemoveAll(syncDir)
	if err := os.MkdirAll(syncDir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s: %w", syncDir, err)
	}
	if resolvedSync, err := filepath.EvalSymlinks(syncDir); err == nil {
		syncDir = resolvedSync
	}
	markerPath := filepath.Join(syncDir, markerPrefix+"0")
	marker, err := os.OpenFile(markerPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create the marker %s: %w", markerPath, err)
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		_ = marker.Close()
		return nil, fmt.Errorf("%w: no inotify instance (fs.inotify.max_user_instances reached?): %v", errNotWatchable, err)
	}
	if err := fw.Add(syncDir); err != nil {
		_ = fw.Close()
		_ = marker.Close()
		return nil, fmt.Errorf("%w: watch %s: %v", errNotWatchable, syncDir, err)
	}
	w := &treeWatch{fs: fw, root: resolved, workTree: root, rootID: rootID, syncDir: syncDir, done: make(chan struct{}),
		dirty: true, structural: true, watched: map[string]bool{}, links: map[string]bool{},
		marker: marker, markerPath: markerPath}
	go w.run()
	return w, nil
}

// close stops the watcher and waits for its goroutines.
func (w *treeWatch) close() {
	_ = w.fs.Close()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	// The marker goes with its watcher, unless a newer watcher has made its own at the path.
	if mine, err := w.marker.Stat(); err == nil {
		if there, err := os.Lstat(w.markerPath); err == nil && os.SameFile(mine, there) {
			_ = os.Remove(w.markerPath)
		}
	}
	_ = w.marker.Close()
}

func (w *treeWatch) run() {
	defer close(w.done)
	// A barrier waiting when the watcher closes must not wait for its timeout.
	defer w.fail(fsnotify.ErrClosed)
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			if hook := w.beforeEvent.Load(); hook != nil {
				(*hook)(ev)
			}
			w.event(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			w.fail(err)
		}
	}
}

func (w *treeWatch) event(ev fsnotify.Event) {
	if ev.Name == w.syncDir || filepath.Dir(ev.Name) == w.syncDir {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch {
		case ev.Name == w.markerPath && (ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create)):
			// Only a barrier writes (or makes) the marker, one at a time, and after one that
			// stopped waiting the marker has a new name (see barrier): this is the waiting
			// barrier's event.
			if w.seen != nil {
				close(w.seen)
				w.seen = nil
			}
		case ev.Name == w.markerPath && (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)):
			// Someone removed or moved the marker: the next barrier makes it again, rather
			// than write into a file whose events may no longer name it.
			w.stale = true
		case ev.Name == w.syncDir:
			// The shadow repository itself went (the conversation is being deleted).
			w.failLocked(fmt.Errorf("%s was removed or moved", w.syncDir))
		}
		return
	}
	structural := w.structural0(ev)
	w.mu.Lock()
	w.dirty = true
	w.structural = w.structural || structural
	w.mu.Unlock()
}

// structural0 says whether an event may change the set of paths to watch.
func (w *treeWatch) structural0(ev fsnotify.Event) bool {
	if filepath.Base(ev.Name) == ".gitignore" {
		return true
	}
	if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Chmod) {
		// A new directory, or one that became readable, is to be watched; so is a file
		// that gained a second name.
		info, err := os.Lstat(ev.Name)
		if err != nil {
			return ev.Has(fsnotify.Create) // gone again: look at the tree again
		}
		if hardLinked(info) {
			w.mu.Lock()
			defer w.mu.Unlock()
			known := w.links[ev.Name]
			w.links[ev.Name] = true
			return !known
		}
		return info.IsDir()
	}
	if ev.Has(fsnotify.Rename) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.watched[ev.Name] {
			// A watched directory (or hard-linked file) moved: the kernel keeps the watches
			// of everything below it, but fsnotify still names them by their old paths, and
			// a directory made again at such a path would never be watched. Start afresh.
			w.failLocked(fmt.Errorf("%s was moved", ev.Name))
			return true
		}
		return false
	}
	if ev.Has(fsnotify.Remove) {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.watched[ev.Name]
	}
	return false
}

// fileID is a file's identity: its device and inode.
type fileID struct{ dev, ino uint64 }

// identify is the identity of the file at path, symbolic links followed.
func identify(path string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return fileID{}, err
	}
	return fileID{dev: uint64(st.Dev), ino: st.Ino}, nil
}

func (w *treeWatch) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failLocked(err)
}

func (w *treeWatch) failLocked(err error) {
	if w.broken == nil {
		w.broken = err
	}
	w.dirty = true
	if w.seen != nil {
		close(w.seen)
		w.seen = nil
	}
}

// clean reports whether nothing changed in the tree since the dirty flag was last cleared.
// Events reach the watcher through the kernel's queue and a goroutine, so a change made just
// before the call may not have been read yet: the barrier makes sure it has.
func (w *treeWatch) clean(ctx context.Context) bool {
	w.mu.Lock()
	if w.dirty || w.structural || w.broken != nil {
		w.mu.Unlock()
		return false
	}
	w.mu.Unlock()
	if id, err := identify(w.workTree); err != nil || id != w.rootID {
		w.fail(fmt.Errorf("the working tree %s is no longer the directory that was watched", w.workTree))
		return false
	}
	if !w.barrier(ctx) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.dirty && !w.structural && w.broken == nil
}

// barrier returns once every event the kernel queued before the call has been handled. One
// inotify instance has one queue, in order: a write to the marker file in the watched sync
// directory now queues its event behind every earlier one, so when the marker's event
// arrives, all earlier events have set their flags (the way watchman's cookie files work). It
// returns false when the marker was not seen (the watcher failed, ctx ended, or the wait
// timed out); the caller then treats the tree as changed.
//
// The marker is one byte written in place into a file kept open: one event, and no change
// to the directory. Renaming a marker from name to name (two events and a directory change)
// cost 16 µs of the kernel's time against 2 µs for the write, and creating a new file for
// each 0.25 ms on ext4, twice in every tool round (issue 39). Every write looks the same, so
// after a barrier that stopped waiting the next one makes a marker of a new name: the late
// event, naming the old one, is never taken for a later barrier's.
func (w *treeWatch) barrier(ctx context.Context) bool {
	w.mu.Lock()
	if w.broken != nil {
		// fail has run: nothing would close seen.
		w.mu.Unlock()
		return false
	}
	seen := make(chan struct{})
	w.seen = seen
	var err error
	if w.stale {
		err = w.newMarkerLocked()
	}
	made := w.stale && err == nil
	w.stale = false
	w.mu.Unlock()
	if err == nil && !made {
		_, err = w.marker.WriteAt(markerByte[:], 0)
	}
	if err != nil {
		w.fail(fmt.Errorf("write the marker %s: %w", w.markerPath, err))
		return false
	}
	if hook := w.markerWritten.Load(); hook != nil {
		(*hook)()
	}
	t := time.NewTimer(barrierTimeout)
	defer t.Stop()
	select {
	case <-seen:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	w.mu.Lock()
	if w.seen == seen {
		w.seen = nil
		w.stale = true
	}
	w.mu.Unlock()
	return false
}

// newMarkerLocked replaces the marker by a new file of a new name, whose creation is the
// waiting barrier's event; called with mu held.
func (w *treeWatch) newMarkerLocked() error {
	w.markerSeq++
	path := filepath.Join(w.syncDir, markerPrefix+strconv.FormatUint(w.markerSeq, 10))
	// The path is set before the file is made, so that its creation's event, handled once mu
	// is released, names the marker.
	old, oldPath := w.marker, w.markerPath
	w.markerPath = path
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Left by an earlier run: its creation is long past, so the marker is made again.
		_ = os.Remove(path)
		f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	}
	if err != nil {
		w.markerPath = oldPath
		return err
	}
	w.marker = f
	_ = old.Close()
	_ = os.Remove(oldPath)
	return nil
}

// markerByte is what a barrier writes into its marker.
var markerByte = [1]byte{'.'}

// startRun clears the dirty flag just before git reads the tree: an event from now on (a
// change git may or may not have seen) makes the next snapshot run git again. A barrier
// first reads every event the kernel queued before now — one write queues several (the
// truncation, the data), and the flag may have been set by the first while the others
// still wait in the queue — so that changes git is about to see do not make the next
// snapshot of an unchanged tree run git again. Should the barrier fail, the flag is
// cleared all the same: a late event then costs one more run, never a missed change.
func (w *treeWatch) startRun(ctx context.Context) {
	w.barrier(ctx)
	w.mu.Lock()
	w.dirty = false
	w.mu.Unlock()
}

// needsSync reports whether the watch list must be worked out again, and clears the flag
// (an event from now on asks again).
func (w *treeWatch) needsSync() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.structural
	w.structural = false
	return s
}

func (w *treeWatch) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.broken
}

// apply makes the watches those of want. It runs before git reads the tree (see
// Repo.snapshot), so what changed before a watch existed is read by that git run, and what
// changes after it is reported. A directory created inside a newly watched one after the
// walk but before its watch existed is reported to no one: each newly watched directory is
// listed again once its watch is in place, and a subdirectory the walk did not see asks for
// another sync at the next snapshot (by then the new directory's watch reports the rest).
func (w *treeWatch) apply(want, skipped map[string]bool) error {
	have := map[string]bool{}
	for _, p := range w.fs.WatchList() {
		have[p] = true
	}
	for p := range have {
		if !want[p] && p != w.syncDir {
			// A watch the kernel already dropped (its directory went) is no error.
			_ = w.fs.Remove(p)
		}
	}
	var unseen bool
	for p := range want {
		if have[p] {
			continue
		}
		if err := w.fs.Add(p); err != nil {
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
				// Gone since the walk (its parent's event may have been missed if the
				// parent is new too): look again.
				unseen = true
				continue
			}
			if errors.Is(err, unix.EACCES) {
				// A directory this user may not read (a volume another user owns): git
				// cannot read it either, and making it readable is an event in its
				// watched parent.
				continue
			}
			if errors.Is(err, fsnotify.ErrClosed) {
				return err
			}
			return fmt.Errorf("%w: watch %s: %v (fs.inotify.max_user_watches reached?)", errNotWatchable, p, err)
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			continue // a file (a hard-linked one), or unreadable
		}
		for _, e := range entries {
			sub := filepath.Join(p, e.Name())
			if e.IsDir() && !want[sub] && !skipped[sub] {
				unseen = true
			}
		}
	}
	w.mu.Lock()
	w.watched = want
	w.structural = w.structural || unseen
	w.mu.Unlock()
	return nil
}
