package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/phoenix-desktop/phoenix/hostexec"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrUnavailable is returned when the git binary cannot be found.
var ErrUnavailable = errors.New("checkpoints need the git program, which was not found; install git to get Undo and Rewind")

// Available reports whether checkpoints can be taken on this machine.
func Available() error {
	if _, err := exec.LookPath("git"); err != nil {
		return ErrUnavailable
	}
	return nil
}

// Status says how a file differs between two snapshots.
type Status string

const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
)

// Change is one file that differs between two snapshots, relative to the working tree.
type Change struct {
	Path   string `json:"path"`
	Status Status `json:"status"`
}

// EmptyTree is the snapshot of a directory with no files.
const EmptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// Repo is the shadow repository of one working tree. It is safe for concurrent use.
type Repo struct {
	gitDir, workTree string
	// excluded are directories kept out of every snapshot (WithExcluded).
	excluded []string
	// gitPath is the git found when the repository was opened (never one in the tree).
	gitPath string
	// mu serialises the commands that use the shadow index (Snapshot, Restore), and guards
	// refusal and refusedAt: the last ErrTooLarge of a first snapshot, and when.
	mu        sync.Mutex
	refusal   error
	refusedAt time.Time
	// closed is set by Close under mu: the repository is about to be removed, and no command
	// may write into it again.
	closed bool
	// measure turns on the memory measurement of each git command (MeasureMemory); peakKiB
	// is the largest resident set seen.
	measure atomic.Bool
	peakKiB atomic.Int64
	// gitRuns counts the git processes started (GitRuns).
	gitRuns atomic.Int64

	// The change detector (watch.go). tree is the id the last snapshot that ran git
	// returned, "" when unknown (never taken, failed, or the index changed since); guarded by
	// mu. watchLimit caps the watches (DefaultWatchLimit); refusedWatch and refusedWatchAt
	// are why and when the tree could last not be watched; guarded by mu.
	tree           string
	watchLimit     int
	refusedWatch   error
	refusedWatchAt time.Time
	// wmu guards watch and unwatched, which SetWatching changes without waiting for a
	// running snapshot.
	wmu       sync.Mutex
	watch     *treeWatch
	unwatched bool
	log       *slog.Logger
	// afterAdd, when set (by tests), runs between git add and write-tree.
	afterAdd func()
	// space, when set, refuses a write of need bytes into a directory whose disk is short
	// (WithSpaceCheck).
	space func(dir string, need int64) error
}

// Option configures a Repo.
type Option func(*Repo)

// WithLogger makes the repository log to l (at debug level: when its tree cannot be watched
// and every snapshot runs git).
func WithLogger(l *slog.Logger) Option { return func(r *Repo) { r.log = l } }

// WithSpaceCheck has the repository ask check before anything is written into it (the
// repository's creation, each snapshot that runs git): on a disk that is short, the snapshot
// is refused with check's error and nothing is written, so a full disk never leaves a
// half-made repository or takes the room the conversations need. need is what the write is
// expected to add (the tree's size for the first snapshot, else 0). The app passes
// persistence.CheckSpace.
func WithSpaceCheck(check func(dir string, need int64) error) Option {
	return func(r *Repo) { r.space = check }
}

// WithExcluded keeps dirs out of every snapshot when they lie in the work tree: the app's
// own data directory, when a conversation works in a folder that holds it (the home folder),
// would otherwise be read into each snapshot as the store writes it, seconds a call.
func WithExcluded(dirs ...string) Option {
	return func(r *Repo) { r.excluded = append(r.excluded, dirs...) }
}

// checkSpace asks the space check, if there is one, for room beside the repository.
func (r *Repo) checkSpace(need int64) error {
	if r.space == nil {
		return nil
	}
	if err := r.space(filepath.Dir(r.gitDir), need); err != nil {
		return fmt.Errorf("no snapshot of %s: %w", r.workTree, err)
	}
	return nil
}

// GitRuns is the number of git processes the repository has started.
func (r *Repo) GitRuns() int64 { return r.gitRuns.Load() }

// SetWatching turns the change detector off (closing its inotify instance at once, without
// waiting for a running snapshot) or on again; it is on after Open. While it is off every
// snapshot runs git. The app turns it off for a conversation that leaves memory: inotify
// instances are few (fs.inotify.max_user_instances, 128 by default, for all of a person's
// programs).
func (r *Repo) SetWatching(on bool) {
	r.wmu.Lock()
	r.unwatched = !on
	w := r.watch
	if !on {
		r.watch = nil
	}
	r.wmu.Unlock()
	if !on && w != nil {
		w.close()
	}
}

// Watching reports whether the change detector follows the tree now.
func (r *Repo) Watching() bool {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	return r.watch != nil
}

// MeasureMemory makes the repository record the peak resident set of its git commands
// (PeakRSSKiB), for the bench. It costs a little CPU per command, so the app leaves it off.
func (r *Repo) MeasureMemory(on bool) { r.measure.Store(on) }

// PeakRSSKiB is the largest resident set size, in KiB, of the git commands run while
// MeasureMemory was on.
func (r *Repo) PeakRSSKiB() int64 { return r.peakKiB.Load() }

// runMeasured runs cmd while sampling its VmHWM. The rusage of a child started by a Go
// program cannot be used: the child is forked with the parent's address space (vfork), so
// its ru_maxrss includes the parent's resident set before the exec. VmHWM read after the
// exec is git's own high-water mark; the last sample is taken just before git exits.
func (r *Repo) runMeasured(cmd *exec.Cmd) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		path := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			if kib := vmHWM(path); kib > 0 && isGit(cmd.Process.Pid) {
				for {
					old := r.peakKiB.Load()
					if kib <= old || r.peakKiB.CompareAndSwap(old, kib) {
						break
					}
				}
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	<-sampled
	return err
}

// isGit reports whether the process has executed git yet (before the exec it is still a
// copy of this program, whose memory must not be counted).
func isGit(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return err == nil && strings.TrimSpace(string(b)) == "git"
}

// vmHWM reads the VmHWM line of a /proc status file, in KiB; 0 when it cannot.
func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kib int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d", &kib); err == nil {
				return kib
			}
		}
	}
	return 0
}

// GitDir is where the shadow repository lives.
func (r *Repo) GitDir() string { return r.gitDir }

// Open opens (creating it on first use) the shadow repository in gitDir for workTree.
func Open(ctx context.Context, gitDir, workTree string, opts ...Option) (*Repo, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	// git runs as the person with the tree as its working directory: it is found once, on
	// PATH but never inside the tree, and kept, so a git the agent puts on PATH later is
	// never run either.
	git, err := hostexec.LookPath("git", workTree)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	r := &Repo{gitDir: gitDir, workTree: workTree, gitPath: git, watchLimit: DefaultWatchLimit, log: slog.New(slog.DiscardHandler)}
	for _, o := range opts {
		o(r)
	}
	if initialised(gitDir) {
		return r, r.writeInfo(gitDir)
	}
	if err := r.checkSpace(0); err != nil {
		return nil, err
	}
	// The repository is made beside its place and renamed into it once init and its
	// configuration are done: an init that was killed half-way (the app quitting while the
	// first snapshot warmed) must not leave a directory that looks like a repository, has no
	// objects, or lacks gc.auto=0 (a later gc would drop the snapshots). What such an earlier
	// build left holds no snapshot, so it is removed.
	if err := os.RemoveAll(gitDir); err != nil {
		return nil, fmt.Errorf("remove the unfinished checkpoint repository %s: %w", gitDir, err)
	}
	staging := &Repo{gitDir: gitDir + ".init", workTree: workTree, gitPath: git}
	if err := os.RemoveAll(staging.gitDir); err != nil {
		return nil, fmt.Errorf("remove the unfinished checkpoint repository %s: %w", staging.gitDir, err)
	}
	if err := os.MkdirAll(staging.gitDir, 0o700); err != nil {
		return nil, fmt.Errorf("create the checkpoint repository %s: %w", gitDir, err)
	}
	if _, err := staging.git(ctx, nil, "init", "--quiet"); err != nil {
		return nil, err
	}
	for _, kv := range [][2]string{
		// Trees are referenced by the store, not by refs: an automatic gc would drop them.
		{"gc.auto", "0"}, {"gc.pruneExpire", "never"},
		// Bytes are restored exactly as they were.
		{"core.autocrlf", "false"}, {"core.safecrlf", "false"},
		{"core.fsmonitor", "false"}, {"core.quotePath", "false"},
	} {
		if _, err := staging.git(ctx, nil, "config", kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	if err := r.writeInfo(staging.gitDir); err != nil {
		return nil, err
	}
	if err := os.Rename(staging.gitDir, gitDir); err != nil {
		return nil, fmt.Errorf("put the checkpoint repository in place at %s: %w", gitDir, err)
	}
	return r, nil
}

// initialised reports whether gitDir holds a finished repository (see Open).
func initialised(gitDir string) bool {
	for _, name := range []string{"HEAD", "objects", "refs", "config"} {
		if _, err := os.Stat(filepath.Join(gitDir, name)); err != nil {
			return false
		}
	}
	return true
}

// noFilters is the shadow repository's info/attributes, which outranks every .gitattributes
// of the tree: no filter driver, no end-of-line or encoding conversion. A snapshot keeps the
// bytes as they are, and no .gitattributes the agent writes can make the app run a filter
// (git-lfs's smudge, say, fetching from a URL a .lfsconfig in the tree names) outside the
// sandbox.
const noFilters = "* !filter !text !eol !ident !working-tree-encoding\n"

// writeInfo puts the shadow repository's info files in place (repositories made before them
// get them too): noFilters as its attributes, and the excluded directories inside the work
// tree as its exclude patterns (anchored, so only those directories).
func (r *Repo) writeInfo(gitDir string) error {
	var exclude strings.Builder
	for _, d := range r.excluded {
		rel, err := filepath.Rel(r.workTree, d)
		if d == "" || err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		exclude.WriteString("/" + filepath.ToSlash(rel) + "/\n")
	}
	for name, content := range map[string]string{"attributes": noFilters, "exclude": exclude.String()} {
		path := filepath.Join(gitDir, "info", name)
		if b, err := os.ReadFile(path); err == nil && string(b) == content {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("prepare the checkpoint repository's %s: %w", name, err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			return fmt.Errorf("write the checkpoint repository's %s: %w", name, err)
		}
	}
	return nil
}

// WorkTree is the directory the repository snapshots.
func (r *Repo) WorkTree() string { return r.workTree }

// git runs one git command on the shadow repository and returns its standard output.
func (r *Repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.gitStatus(ctx, stdin, 0, args...)
}

// gitStatus is git for a command whose exit status up to okStatus is an answer, not a
// failure (check-ignore exits with 1 when no path is ignored).
func (r *Repo) gitStatus(ctx context.Context, stdin []byte, okStatus int, args ...string) ([]byte, error) {
	return r.gitIndex(ctx, filepath.Join(r.gitDir, "index"), stdin, okStatus, args...)
}

// gitIndex is gitStatus with index as git's index file (Compose builds a tree in an index of
// its own, leaving the shadow index to the snapshots).
func (r *Repo) gitIndex(ctx context.Context, index string, stdin []byte, okStatus int, args ...string) ([]byte, error) {
	return r.gitEnv(ctx, index, nil, stdin, okStatus, args...)
}

// gitEnv is gitIndex with extra environment (a read that may take objects from the
// person's repository, review.go).
func (r *Repo) gitEnv(ctx context.Context, index string, extra []string, stdin []byte, okStatus int, args ...string) ([]byte, error) {
	r.gitRuns.Add(1)
	// Never a hook: a person's core.hooksPath may be relative, that is, inside the tree.
	cmd := exec.CommandContext(ctx, r.gitPath, args...)
	cmd.Dir = r.workTree
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+os.DevNull,
		"GIT_DIR="+r.gitDir, "GIT_WORK_TREE="+r.workTree,
		"GIT_INDEX_FILE="+index,
		"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C",
		// The person's own repository must never be touched, even if git looked for one.
		"GIT_CEILING_DIRECTORIES="+filepath.Dir(r.workTree))
	cmd.Env = append(cmd.Env, extra...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	var err error
	if r.measure.Load() {
		err = r.runMeasured(cmd)
	} else {
		err = cmd.Run()
	}
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && ctx.Err() == nil && exit.ExitCode() > 0 && exit.ExitCode() <= okStatus {
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		return nil, fmt.Errorf("git %s in the checkpoint repository %s: %w: %s", args[0], r.gitDir, err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// ErrClosed refuses a snapshot or restore after Close: the repository is being removed with
// its conversation.
var ErrClosed = errors.New("the checkpoint repository was closed: its conversation is being deleted")

// Close waits for a running snapshot or restore to end and refuses every later one, so that
// the repository's directory can be removed without a git command writing into it meanwhile.
func (r *Repo) Close() {
	r.SetWatching(false)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
}
