package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Snapshot records the working tree as it is now and returns its id. Files that .gitignore
// excludes are not recorded. Only files that changed since the last snapshot are read, and
// when the change detector saw nothing change, no git runs at all.
func (r *Repo) Snapshot(ctx context.Context) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", ErrClosed
	}
	return r.snapshot(ctx)
}

func (r *Repo) snapshot(ctx context.Context) (string, error) {
	w := r.currentWatch()
	if w != nil && r.tree != "" && w.clean(ctx) {
		return r.tree, nil
	}
	r.tree = ""
	need := int64(0)
	if _, err := os.Stat(filepath.Join(r.gitDir, "index")); errors.Is(err, os.ErrNotExist) {
		// The first snapshot copies the whole tree: refuse a tree that would fill the
		// data directory (a conversation started in the home directory, a dataset that no
		// .gitignore excludes).
		// A refusal is remembered for a while: counting a huge tree again before every
		// tool call would cost seconds each time.
		if r.refusal != nil && time.Since(r.refusedAt) < refusalMemory {
			return "", r.refusal
		}
		size, err := r.checkSize(ctx)
		if err != nil {
			if errors.Is(err, ErrTooLarge) {
				r.refusal, r.refusedAt = err, time.Now()
			}
			return "", err
		}
		r.refusal, need = nil, size
	}
	if err := r.checkSpace(need); err != nil {
		return "", err
	}
	// The watches are brought up to date before git reads the tree, and the dirty flag
	// is cleared just before: a change git may have missed is an event after that.
	if w = r.syncWatch(ctx, w); w != nil {
		w.startRun(ctx)
	}
	if _, err := r.git(ctx, nil, "add", "--all", "--ignore-errors", "."); err != nil {
		return "", err
	}
	if r.afterAdd != nil {
		r.afterAdd()
	}
	out, err := r.git(ctx, nil, "write-tree")
	if err != nil {
		return "", err
	}
	r.tree = strings.TrimSpace(string(out))
	return r.tree, nil
}

func (r *Repo) currentWatch() *treeWatch {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return r.watch
}

// syncWatch starts the change detector if there is none (and the tree may be watched), and
// works out its watch list again when the tree's directories may have changed. It returns
// the detector, or nil when every snapshot runs git for now. It never fails the snapshot.
func (r *Repo) syncWatch(ctx context.Context, w *treeWatch) *treeWatch {
	if w != nil {
		if err := w.failure(); err != nil {
			r.log.Debug("the checkpoint change detector lost track of the working tree; it starts again", "tree", r.workTree, "error", err)
			r.dropWatch(w)
			w = nil
		}
	}
	if w == nil {
		if r.refusedWatch != nil && time.Since(r.refusedWatchAt) < watchRetry {
			return nil
		}
		r.wmu.Lock()
		off := r.unwatched
		r.wmu.Unlock()
		if off {
			return nil
		}
		nw, err := newTreeWatch(r.workTree, r.gitDir)
		if err != nil {
			r.refuseWatch(err)
			return nil
		}
		r.wmu.Lock()
		if r.unwatched || r.watch != nil {
			r.wmu.Unlock()
			nw.close()
			return nil
		}
		r.watch = nw
		r.wmu.Unlock()
		w = nw
	}
	if !w.needsSync() {
		return w
	}
	want, skipped, err := r.watchList(ctx, w, r.watchLimit)
	if err == nil {
		err = w.apply(want, skipped)
	}
	if err != nil {
		r.dropWatch(w)
		if ctx.Err() == nil && !errors.Is(err, fsnotify.ErrClosed) {
			r.refuseWatch(err)
		}
		return nil
	}
	r.refusedWatch = nil
	return w
}

// refuseWatch records why the tree cannot be watched: every snapshot runs git until
// watchRetry has passed.
func (r *Repo) refuseWatch(err error) {
	r.refusedWatch, r.refusedWatchAt = err, time.Now()
	r.log.Debug("checkpoints cannot watch the working tree for changes, so every snapshot runs git", "tree", r.workTree, "retry_in", watchRetry, "error", err)
}

// dropWatch closes w if it is the repository's detector.
func (r *Repo) dropWatch(w *treeWatch) {
	r.wmu.Lock()
	if r.watch == w {
		r.watch = nil
	}
	r.wmu.Unlock()
	w.close()
}

// Limits of the tree a first snapshot copies.
var (
	MaxFiles       = 20_000
	MaxBytes int64 = 512 << 20
)

// refusalMemory is how long a tree found too large is not counted again.
const refusalMemory = time.Minute

// ErrTooLarge refuses a working tree beyond MaxFiles or MaxBytes.
var ErrTooLarge = errors.New("the working directory is too large for checkpoints")

// checkSize counts the files a first snapshot would copy (those .gitignore does not
// exclude) without reading them, and returns their size.
func (r *Repo) checkSize(ctx context.Context) (int64, error) {
	out, err := r.git(ctx, nil, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return 0, err
	}
	var files int
	var bytes int64
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		files++
		if info, err := os.Lstat(filepath.Join(r.workTree, filepath.FromSlash(p))); err == nil {
			bytes += info.Size()
		}
		if files > MaxFiles || bytes > MaxBytes {
			return 0, fmt.Errorf("%w: more than %d files or %d MB not excluded by .gitignore (checkpoints copy them into the data directory); add a .gitignore for large or generated files, or work in a smaller directory",
				ErrTooLarge, MaxFiles, MaxBytes>>20)
		}
	}
	return bytes, nil
}
