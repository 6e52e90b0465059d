package persistence

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"golang.org/x/sys/unix"
)

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// InMemory keeps everything in memory, for tests; the directory is ignored.
	InMemory bool
	// SyncWrites makes every commit wait until its write is flushed to the disk (fsync), so
	// that it survives a power cut or a kernel crash, not only a crash of the app.
	//
	// It is off by default, decided by measurement (BenchmarkCommit, one message per commit,
	// three runs on the development VM: 2 cores shared with other work, ext4 on virtio, whose
	// raw fsync takes a fast 0.2 ms; laptop SSDs are often slower):
	//
	//	                               p50            p99
	//	agent transitions, off         0.03 ms        0.14–0.17 ms
	//	agent transitions, on          0.29–0.38 ms   0.6–4.4 ms
	//	user messages (always flushed) 0.29–0.35 ms   0.5–3.5 ms
	//	typical session mix, off       0.08–0.10 ms   0.7–6 ms
	//	typical session mix, on        0.37–0.57 ms   8 ms
	//
	// Every transition commits (each tool result, each reply, each retry timer), so the
	// fsync would sit on the conversation's path dozens of times per turn, at ten times the
	// median and a far worse tail (the session mix even misses the 0.5 ms target), for a risk
	// the store covers differently:
	//   - Without SyncWrites, a commit is in the kernel's page cache when Commit returns
	//     (Badger writes its log through mmap), which survives SIGKILL, a panic and an OOM
	//     kill: the crash test checks every acknowledged commit after 50 SIGKILLs.
	//   - A commit that holds a user message is flushed before Commit returns anyway, so
	//     what the person typed, once acknowledged, survives a power cut too; at human pace
	//     its ~0.3 ms costs nothing. So is an auxiliary record (PutAux: a queued message),
	//     except one that holds none of the person's words (PutAuxUnflushed: a checkpoint,
	//     two per bash call, where the flush was most of the round's bookkeeping).
	//   - Everything else reaches the disk within SyncInterval (1 s): a power cut or kernel
	//     crash can lose at most the agent's last second of work, which recovery then
	//     treats like any interruption.
	SyncWrites bool
	// SyncInterval is how often, when SyncWrites is off, the store flushes its logs to the
	// disk in the background; zero means DefaultSyncInterval and a negative value turns the
	// background flush off.
	SyncInterval time.Duration
	// Logger receives Badger's warnings and errors (its info and debug chatter is dropped)
	// and the store's own warnings. Nil discards them.
	Logger *slog.Logger
	// Now stamps UpdatedAt and message times; nil means time.Now. Tests set it to order
	// conversations deterministically.
	Now func() time.Time
}

// MaxValueSize bounds one stored message (encoded) or image. Tool output is truncated long
// before this; the bound turns a runaway value into a clear ErrTooLarge rather than a Badger
// error with a hex dump. An in-memory store takes at most 1 MiB per value.
const MaxValueSize = 64 << 20

// DefaultSyncInterval bounds what a power cut can take when SyncWrites is off.
const DefaultSyncInterval = time.Second

// lockFileName is the file the store flocks, separately from Badger's own lock, so that a
// second instance gets ErrLocked from a real errno rather than from Badger's message text.
const lockFileName = "phoenix.lock"

// Store is the Badger-backed store. It is safe for concurrent use; each conversation is
// written only by its own actor (ARCHITECTURE rule 1), so commits of one conversation never
// race, and Badger's conflict detection turns any violation into an error instead of a lost
// update.
type Store struct {
	// mu keeps operations off a closed database: every exported method holds it for
	// reading while it uses db, and Close takes it for writing, because Badger panics
	// (rather than failing) when an iterator is opened after Close. Exported methods never
	// call each other, so the lock is never taken twice by one goroutine.
	mu     sync.RWMutex
	closed bool
	// blobMu serialises the transactions that change blob reference counts (commits that
	// reference images, and deletions), so that they do not conflict with each other and
	// exhaust their retries when many conversations attach the same image at once.
	blobMu sync.Mutex

	db   *badger.DB
	dir  string // empty in memory
	lock *os.File
	log  *slog.Logger
	now  func() time.Time
	// maxValue bounds one stored message or image (see MaxValueSize).
	maxValue int
	// syncUser flushes commits that hold a user message (see Options.SyncWrites).
	syncUser bool
	// auxFlushes counts the flushes of auxiliary records (for tests).
	auxFlushes atomic.Int64
	// stopSync ends the background flush; syncDone is closed when it has ended.
	stopSync chan struct{}
	syncDone chan struct{}
}

// DefaultDir is where the data lives unless --data-dir says otherwise:
// $XDG_DATA_HOME/phoenix-desktop, else ~/.local/share/phoenix-desktop. A relative
// XDG_DATA_HOME is ignored, as the XDG Base Directory specification requires.
func DefaultDir() (string, error) {
	if x := os.Getenv("XDG_DATA_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "phoenix-desktop"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find the data directory: %w; set XDG_DATA_HOME or pass --data-dir", err)
	}
	return filepath.Join(home, ".local", "share", "phoenix-desktop"), nil
}

// OpenInMemory opens an empty store that lives only in memory, for tests.
func OpenInMemory() (*Store, error) {
	return Open("", Options{InMemory: true})
}

// Open opens (creating if needed) the store in dir. It never deletes or repairs anything: when
// the directory is locked, not writable, or does not open, the error says where the data is
// and what to do. Call Recover once after Open, before any actor starts.
func Open(dir string, opts Options) (*Store, error) {
	s := &Store{log: opts.Logger, now: opts.Now, maxValue: MaxValueSize}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	bopts := badger.DefaultOptions("").
		WithLogger(badgerLogger{s.log}).
		WithMetricsEnabled(false).
		// A desktop app shares the machine: the default 256 MiB block cache is more than a
		// conversation store needs.
		WithBlockCacheSize(64 << 20).
		WithNumCompactors(2).
		WithNumMemtables(3)
	if opts.InMemory {
		bopts = bopts.WithInMemory(true)
		// Without a value log, Badger keeps every value in the LSM tree and refuses one
		// over its value threshold.
		s.maxValue = int(bopts.ValueThreshold)
	} else {
		if dir == "" {
			return nil, errors.New("open store: no data directory given; pass --data-dir or use the default")
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("open store: resolve data directory %s: %w", dir, err)
		}
		s.dir = abs
		if err := prepareDir(abs); err != nil {
			return nil, err
		}
		if s.lock, err = lockDir(abs); err != nil {
			return nil, err
		}
		if err := s.removeEmptyLogs(); err != nil {
			s.unlock()
			return nil, err
		}
		bopts = bopts.WithDir(abs).WithValueDir(abs).WithSyncWrites(opts.SyncWrites)
	}
	db, err := badger.Open(bopts)
	for deadline := time.Now().Add(lockWait); err != nil && isBadgerLocked(err) && time.Now().Before(deadline); {
		time.Sleep(lockPoll)
		db, err = badger.Open(bopts)
	}
	if err != nil {
		s.unlock()
		if isBadgerLocked(err) {
			return nil, &LockedError{Dir: s.dir, Detail: "another process holds the database"}
		}
		return nil, fmt.Errorf("open the database in %s: %w; nothing was changed or deleted. "+
			"If this persists, move that directory aside (keep it: it holds your conversations) and start again, or pass --data-dir to use another", s.dir, err)
	}
	s.db = db
	if err := s.migrate(); err != nil {
		_ = s.closeDB()
		return nil, err
	}
	// A Delete that a crash interrupted is finished here, so that no half-deleted
	// conversation's messages linger under an id that could be reused.
	if err := s.finishDeletes(); err != nil {
		_ = s.closeDB()
		return nil, err
	}
	s.syncUser = !opts.InMemory && !opts.SyncWrites
	if !opts.InMemory && !opts.SyncWrites && opts.SyncInterval >= 0 {
		interval := opts.SyncInterval
		if interval == 0 {
			interval = DefaultSyncInterval
		}
		s.stopSync, s.syncDone = make(chan struct{}), make(chan struct{})
		go s.syncLoop(interval)
	}
	return s, nil
}

// Dir is the data directory, or "" for an in-memory store.
func (s *Store) Dir() string { return s.dir }

// Close flushes and closes the database and releases the directory lock. It waits for
// operations in progress; later ones fail with ErrClosed. Closing twice is harmless.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if s.stopSync != nil {
		close(s.stopSync)
		<-s.syncDone
	}
	return s.closeDB()
}

// acquire lets an exported method use the database until it calls release.
func (s *Store) acquire() error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return ErrClosed
	}
	return nil
}

func (s *Store) release() { s.mu.RUnlock() }

func (s *Store) closeDB() error {
	var err error
	if s.db != nil {
		if err = s.db.Close(); err != nil {
			err = fmt.Errorf("close the database in %s: %w", s.dir, err)
		}
	}
	s.unlock()
	return err
}

// syncLoop bounds what a power cut can take when SyncWrites is off. A failed flush is
// logged, not fatal: the next commit or flush tries again, and the data is still in the page
// cache.
func (s *Store) syncLoop(interval time.Duration) {
	defer close(s.syncDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stopSync:
			return
		case <-t.C:
			if err := s.db.Sync(); err != nil {
				s.log.Warn("flush the store to disk", "dir", s.dir, "err", err)
			}
		}
	}
}

// prepareDir creates the directory and proves it writable, so that a read-only or foreign
// directory is reported as such rather than as an obscure Badger failure.
func prepareDir(dir string) error {
	notWritable := func(err error) error {
		return fmt.Errorf("%w: %s: %w; check that it is a directory you own and can write, or pass --data-dir to use another",
			ErrNotWritable, dir, err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return notWritable(err)
	}
	f, err := os.CreateTemp(dir, ".write-probe-*")
	if err != nil {
		return notWritable(err)
	}
	name := f.Name()
	if err := f.Close(); err != nil {
		return notWritable(err)
	}
	if err := os.Remove(name); err != nil {
		return notWritable(err)
	}
	return nil
}

// lockWait is how long Open waits for a directory lock that is held before it reports
// another instance. A child process this one is starting holds a copy of every descriptor
// until it execs — longer when it enters a user namespace, where it waits for its id maps (the
// sandbox's supervisors do) — and with the copy the flock: a lock held that briefly after
// Close is not another instance, and must not make a reopen fail.
const lockWait = time.Second

// lockPoll is how often Open tries a held lock again within lockWait.
const lockPoll = 5 * time.Millisecond

// isBadgerLocked tells Badger's own directory-lock error, which it has no sentinel for.
func isBadgerLocked(err error) bool {
	return strings.Contains(err.Error(), "Cannot acquire directory lock")
}

// lockDir takes an exclusive, non-blocking flock on the directory's lock file. The kernel
// drops it when the process dies, so a crash never leaves a stale lock behind.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, lockFileName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return nil, fmt.Errorf("%w: %s: %w; check its permissions, or pass --data-dir to use another", ErrNotWritable, dir, err)
		}
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	for deadline := time.Now().Add(lockWait); errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline); {
		time.Sleep(lockPoll)
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Dir: dir}
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	return f, nil
}

// removeEmptyLogs works around a Badger bug (dgraph-io/badger#2207, still open in v4.9.6):
// when the process dies between creating a new log file (a memtable's NNNNN.mem or a value
// log's NNNNNN.vlog) and sizing it, the next badger.Open fails with "Create a new file",
// because it does not expect an existing empty file. The crash test hits both within a few
// dozen SIGKILLs. Badger sizes a log before writing anything to it, so a zero-byte log holds
// no entries and removing it loses nothing; each removal is logged, and nothing else is
// touched.
func (s *Store) removeEmptyLogs() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("read data directory %s: %w", s.dir, err)
	}
	for _, e := range entries {
		name := e.Name()
		ext := filepath.Ext(name)
		stem := strings.TrimSuffix(name, ext)
		if (ext != ".mem" && ext != ".vlog") || stem == "" || strings.Trim(stem, "0123456789") != "" || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return fmt.Errorf("inspect %s in %s: %w", name, s.dir, err)
		}
		if info.Size() != 0 {
			continue
		}
		path := filepath.Join(s.dir, name)
		if err := os.Remove(path); err != nil {
			return fmt.Errorf("remove the empty log %s left by a crash: %w", path, err)
		}
		s.log.Warn("removed an empty log file left by a crash", "file", path)
	}
	return nil
}

func (s *Store) unlock() {
	if s.lock == nil {
		return
	}
	// Closing the descriptor releases the flock. The file itself stays: removing it would
	// race with another instance that has just opened it.
	if err := s.lock.Close(); err != nil {
		s.log.Warn("release the data directory lock", "dir", s.dir, "err", err)
	}
	s.lock = nil
}

// badgerLogger routes Badger's warnings and errors to slog and drops its info and debug
// messages, which describe routine compactions and would drown ours.
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(format string, args ...any) {
	b.l.Error("badger: " + strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (b badgerLogger) Warningf(format string, args ...any) {
	b.l.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}

// update runs fn in a read-write transaction, retrying when Badger reports a conflict with a
// concurrent transaction (such as a Delete dropping a blob that a Commit references). fn must
// only touch the transaction, so running it again is safe.
func (s *Store) update(fn func(txn *badger.Txn) error) error {
	const attempts = 5
	var err error
	for range attempts {
		err = s.db.Update(fn)
		if !errors.Is(err, badger.ErrConflict) {
			return err
		}
	}
	return fmt.Errorf("%w (after %d attempts)", err, attempts)
}
