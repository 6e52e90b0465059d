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
	// Reserve is the free space every write leaves on the data directory's file system
	// (space.go); zero means DefaultReserve and a negative value turns the check off.
	Reserve int64
	// FreeSpace reads the free space of a directory's file system; nil means FreeSpace.
	// Tests stand a full disk in here.
	FreeSpace func(dir string) (int64, error)
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
	// convs remembers the records the last commits wrote (convmemo.go).
	convs convMemo
	// auxFlushes counts the flushes of auxiliary records (for tests).
	auxFlushes atomic.Int64
	// stopSync ends the background flush; syncDone is closed when it has ended.
	stopSync chan struct{}
	syncDone chan struct{}
	// syncInterval is the background flush's period, <= 0 for none (kept to start it when a
	// read-only store turns writable).
	syncInterval time.Duration

	// The full disk (space.go): bopts opens Badger again when the store turns writable;
	// readOnly is set while Badger is open read-only; sinceAlloc counts the bytes written
	// since the last look for a memtable log to allocate.
	bopts      badger.Options
	reserve    int64
	freeSpace  func(dir string) (int64, error)
	readOnly   atomic.Bool
	sinceAlloc atomic.Int64
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
	s := &Store{log: opts.Logger, now: opts.Now, maxValue: MaxValueSize, reserve: opts.Reserve, freeSpace: opts.FreeSpace}
	if s.reserve == 0 {
		s.reserve = DefaultReserve
	}
	if s.freeSpace == nil {
		s.freeSpace = FreeSpace
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	// Badger's sizes, and why each: badgersizes.go.
	bopts := badgerOptions(opts.InMemory).WithLogger(badgerLogger{s.log})
	if opts.InMemory {
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
	s.bopts = bopts
	readOnly := false
	if !opts.InMemory {
		var err error
		if readOnly, err = s.openMode(); err != nil {
			s.unlock()
			return nil, err
		}
	}
	db, err := s.openDB(readOnly)
	if err != nil {
		s.unlock()
		return nil, err
	}
	s.db = db
	s.readOnly.Store(readOnly)
	if err := s.prepare(); err != nil {
		_ = s.closeDB()
		return nil, err
	}
	s.syncUser = !opts.InMemory && !opts.SyncWrites
	if !opts.InMemory && !opts.SyncWrites && opts.SyncInterval >= 0 {
		s.syncInterval = opts.SyncInterval
		if s.syncInterval == 0 {
			s.syncInterval = DefaultSyncInterval
		}
	}
	if !readOnly {
		s.startSync()
	}
	return s, nil
}

// openMode decides whether Badger opens read-write or, on a full disk, read-only. A
// read-write open creates a memtable log and flushes the ones a crash left, which needs room;
// a read-only open creates nothing, but Badger refuses it while a crash's memtable log waits
// to be cut to its last entry. Then the disk must have room for that flush, or the error says
// how much to free.
func (s *Store) openMode() (readOnly bool, err error) {
	free, err := s.freeSpace(s.dir)
	if err != nil || s.reserve < 0 || free >= s.reserve {
		return false, nil
	}
	logs, err := logFiles(s.dir)
	if err != nil {
		return false, err
	}
	var leftover int64
	for name, size := range logs {
		if filepath.Ext(name) == ".mem" {
			leftover += size
		}
	}
	if leftover == 0 {
		s.log.Warn((&DiskFullError{Dir: s.dir, Free: free, Need: s.reserve}).Error())
		return true, nil
	}
	if need := leftover + 4*memTableSize; free < need {
		return false, &DiskFullError{Dir: s.dir, Free: free, Need: need}
	}
	return false, nil
}

// openDB opens Badger, waiting briefly for a lock a child process may still hold (lockWait),
// with faults turned into errors; the logs a failed attempt created are removed.
func (s *Store) openDB(readOnly bool) (*badger.DB, error) {
	bopts := s.bopts
	if readOnly {
		// The store's own flock (phoenix.lock) keeps other instances out.
		bopts = bopts.WithReadOnly(true).WithBypassLockGuard(true)
		if s.dir != "" && neverCreated(s.dir) {
			// A database whose creation a full disk cut short (no MANIFEST: nothing was
			// ever committed to it) has nothing to read, and Badger opens none read-only
			// without its MANIFEST. An empty one in memory stands for it until there is
			// room: reopenWritable then creates the real one in the directory (issue 33).
			s.log.Warn("the data directory was never completely created: it opens empty until the disk has room", "dir", s.dir)
			bopts = bopts.WithReadOnly(false).WithDir("").WithValueDir("").WithInMemory(true)
		}
	}
	var before map[string]int64
	if s.dir != "" {
		var err error
		if before, err = logFiles(s.dir); err != nil {
			return nil, err
		}
	}
	var db *badger.DB
	open := func() error {
		var err error
		db, err = badger.Open(bopts)
		for deadline := time.Now().Add(lockWait); err != nil && isBadgerLocked(err) && time.Now().Before(deadline); {
			time.Sleep(lockPoll)
			db, err = badger.Open(bopts)
		}
		return err
	}
	// A crash may have left memtable logs written with bigger memtables than ours: they are
	// replayed into memtables of their size, and a writable store closes once (which flushes
	// them into tables and deletes them) to open again with its own.
	want := bopts.MemTableSize
	bopts.MemTableSize = LeftoverMemTableSize(s.dir, want)
	err := guardFault(func() error {
		if err := open(); err != nil || readOnly || bopts.MemTableSize == want {
			return err
		}
		s.log.Info("a crash left memtable logs bigger than the store's memtables: flushing them before opening again", "dir", s.dir)
		if err := db.Close(); err != nil {
			return err
		}
		bopts.MemTableSize = want
		return open()
	})
	if err == nil {
		if !readOnly && s.dir != "" {
			s.preallocate()
			s.keepBallast()
		}
		return db, nil
	}
	if s.dir != "" {
		s.removeNewLogs(before)
	}
	if errors.Is(err, ErrDiskFull) {
		free, _ := s.freeSpace(s.dir)
		return nil, &DiskFullError{Dir: s.dir, Free: free, Need: s.reserve}
	}
	if isBadgerLocked(err) {
		return nil, &LockedError{Dir: s.dir, Detail: "another process holds the database"}
	}
	return nil, fmt.Errorf("open the database in %s: %w; nothing was changed or deleted. "+
		"If this persists, move that directory aside (keep it: it holds your conversations) and start again, or pass --data-dir to use another", s.dir, err)
}

// neverCreated reports whether dir holds no Badger MANIFEST: Badger writes it first when it
// creates a database, and every commit is recorded through it.
func neverCreated(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "MANIFEST"))
	return errors.Is(err, os.ErrNotExist)
}

// prepare readies a freshly opened database: the schema, and the deletions a crash
// interrupted. A read-only store only checks the schema; the rest waits until it is writable.
func (s *Store) prepare() error {
	if err := s.migrate(); err != nil {
		return err
	}
	if s.readOnly.Load() {
		return nil
	}
	// A Delete that a crash interrupted is finished here, so that no half-deleted
	// conversation's messages linger under an id that could be reused.
	return s.finishDeletes()
}

func (s *Store) startSync() {
	if s.syncInterval <= 0 || s.stopSync != nil {
		return
	}
	s.stopSync, s.syncDone = make(chan struct{}), make(chan struct{})
	go s.syncLoop(s.syncInterval)
}

// acquireWrite is acquire for a method that writes: a store opened read-only on a full disk
// first turns writable if there is room now.
func (s *Store) acquireWrite() error {
	if s.readOnly.Load() {
		s.reopenWritable()
	}
	return s.acquire()
}

// reopenWritable reopens a read-only Badger read-write once the disk has room. On failure
// the store stays read-only (or, if even that fails, closed) and says why in the log.
func (s *Store) reopenWritable() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || !s.readOnly.Load() || s.Space() != nil {
		return
	}
	if err := s.db.Close(); err != nil {
		s.log.Warn("close the read-only database", "dir", s.dir, "err", err)
	}
	db, err := s.openDB(false)
	if err == nil {
		s.db = db
		s.readOnly.Store(false)
		if err = s.prepare(); err == nil {
			s.startSync()
			s.log.Info("the disk has room again: the store is writable", "dir", s.dir)
			return
		}
		_ = db.Close()
	}
	s.log.Warn("the store could not turn writable; it stays read-only", "dir", s.dir, "err", err)
	if s.db, err = s.openDB(true); err != nil {
		s.log.Error("the store could not be reopened; restart the app", "dir", s.dir, "err", err)
		s.db, s.closed = nil, true
		s.unlock()
		return
	}
	s.readOnly.Store(true)
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
		if !s.readOnly.Load() {
			s.dropBallast()
		}
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
	// A directory this call made is this user's, mode 0700, on a file system that just took
	// a new entry: it is writable, and the probe's file (created and removed: two changes to
	// the directory) would prove nothing more. Only a directory that was there is probed; a
	// cold chat in a new data directory skips it (issue 39).
	if err := os.Mkdir(dir, 0o700); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return notWritable(err)
	}
	writeProbes.Add(1)
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

// writeProbes counts the probes prepareDir wrote, for a test to tell a probed directory.
var writeProbes atomic.Int64

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
func (s *Store) update(fn func(txn *badger.Txn) error) error { return s.updateSized(0, fn) }

// updateSized is update for a write of about n bytes (a large value goes to the value log,
// which grows by it). The free space is checked first (space.go).
func (s *Store) updateSized(n int64, fn func(txn *badger.Txn) error) error {
	if err := s.checkWrite(n); err != nil {
		return err
	}
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
