package persistence

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"golang.org/x/sys/unix"
)

// A full disk is a state of the store, not a crash (see doc.go, "A full disk").
//
// Badger writes its memtable logs (NNNNN.mem) and value logs (NNNNNN.vlog) through memory
// maps of files it sizes with ftruncate: sparse files whose blocks the kernel allocates when a
// page is first written. When the file system has no block left for that page, the write is
// not an error but a SIGBUS, on Badger's own write goroutine, which no recover can reach
// (debug.SetPanicOnFault works only on the goroutine that sets it, and that goroutine is
// Badger's). So the store never lets Badger get there:
//
//  1. Every write checks the free space of the data directory's file system first and is
//     refused with a DiskFullError while less than the reserve (plus the write) is free: the
//     reserve covers the rest of the current memtable log, the next one, the table a memtable
//     flush writes, compaction and the growth of the value log.
//  2. Badger's options keep those files small enough for such a reserve (memTableSize,
//     valueLogFileSize), and the store allocates the blocks of every memtable log Badger has
//     mapped (fallocate, preallocate), so its pages never wait on the file system at write
//     time. Badger has no option to preallocate itself (ristretto's z.OpenMmapFile truncates),
//     and a file created ahead of Badger would be truncated by its replay, so the store
//     allocates right after Badger creates a log: at Open, and whenever enough has been written
//     for a memtable to have turned over.
//  3. Opening on a full disk opens Badger read-only (no new memtable log is created, so none
//     is left behind), and the store turns writable again by itself once there is room.
//  4. Closing flushes the memtable into a level-0 table, again through a map Badger sizes
//     sparsely. The store keeps a ballast file of that size (ballastName) while there is
//     room, and removes it before Close when the disk is short, so the flush has its blocks.
//  5. badger.Open runs with debug.SetPanicOnFault, so a fault while it writes a new log's
//     header becomes an error, and the logs that attempt created are removed.

const (
	// memTableSize is Badger's memtable size: each memtable log is mapped at twice this
	// (Badger's own rule), 4 MiB instead of the default's 128 MiB. A conversation store
	// writes little per commit; smaller memtables only flush more often. What it bounds in
	// memory, and the transaction size it allows: badgersizes.go.
	memTableSize = 2 << 20
	// valueLogFileSize bounds one value log file (mapped at twice this). It must hold one
	// value of MaxValueSize; Badger's default is 1 GiB.
	valueLogFileSize = 2 * MaxValueSize
	// DefaultReserve is the free space every write leaves: the rest of the current memtable
	// log and the next one (2 × 2 × memTableSize), the level-0 table a flush writes and as
	// much again for compaction (2 × memTableSize); the value log grows by what a write puts
	// there, which the write adds to its own check.
	DefaultReserve = 6 * memTableSize
	// preallocEvery is how many bytes written between two looks for a new memtable log: well
	// below memTableSize, so a new log is allocated long before the next can turn over.
	preallocEvery = memTableSize / 4
	// ballastName is the file that keeps room for the flush on Close, ballastSize its size:
	// a level-0 table holds at most one memtable, which is at most memTableSize.
	ballastName = "space.reserve"
	ballastSize = 2 * memTableSize
	// Preallocated is the disk space a writable store holds on purpose, whatever it stores:
	// the current memtable log, allocated in full, and the ballast.
	Preallocated = 2*memTableSize + ballastSize
)

// ErrDiskFull: the file system holding the data has too little free space to write safely.
// Nothing committed is lost and everything can still be read.
var ErrDiskFull = errors.New("the disk is full")

// DiskFullError says that a write was refused (or the store opened read-only) because the
// data directory's file system has less free space than the store needs. It matches
// ErrDiskFull with errors.Is.
type DiskFullError struct {
	// Dir is the directory whose file system is full.
	Dir string
	// Free is what the file system has free for this user; Need is what the write needed.
	Free, Need int64
}

// DiskFullText is the one wording of a full disk, for the window's banner and the CLI alike:
// short is how much must be freed.
func DiskFullText(short int64) string {
	return fmt.Sprintf("The disk holding your conversations is full: free %s; nothing was lost", megabytes(short))
}

// megabytes rounds up to whole megabytes (10^6 bytes, as file managers count), so the advice
// is never short of what is needed.
func megabytes(n int64) string {
	const mb = 1000 * 1000
	if n < mb {
		n = mb
	}
	return fmt.Sprintf("%d MB", (n+mb-1)/mb)
}

// Banner is the short sentence for the window's banner.
func (e *DiskFullError) Banner() string { return DiskFullText(e.Need - e.Free) }

func (e *DiskFullError) Error() string {
	return e.Banner() + " (data in " + e.Dir + "). Reading, searching and exporting still work; " +
		"saving resumes by itself once there is room"
}

// Unwrap makes errors.Is(err, ErrDiskFull) true.
func (e *DiskFullError) Unwrap() error { return ErrDiskFull }

// FreeSpace returns the bytes an unprivileged user may still write on the file system that
// holds path.
func FreeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("read the free space of %s: %w", path, err)
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// CheckSpace refuses a write of need bytes into dir, with a DiskFullError, when its file
// system would be left with less than DefaultReserve free. The other writers beside the store
// (checkpoints, the search index, settings) call it before they write. A file system whose
// free space cannot be read is not refused: the write itself then says what is wrong.
func CheckSpace(dir string, need int64) error {
	return checkSpace(FreeSpace, dir, DefaultReserve+need)
}

func checkSpace(free func(string) (int64, error), dir string, need int64) error {
	have, err := free(dir)
	if err != nil || have >= need {
		return nil
	}
	return &DiskFullError{Dir: dir, Free: have, Need: need}
}

// Space reports whether the store could write now: nil, or the DiskFullError a write would
// get. The runtime asks it to show the banner and to notice when writing can resume.
func (s *Store) Space() error {
	if s.dir == "" || s.reserve < 0 {
		return nil
	}
	return checkSpace(s.freeSpace, s.dir, s.reserve)
}

// ReadOnly reports whether the store is open read-only because the disk was full.
func (s *Store) ReadOnly() bool { return s.readOnly.Load() }

// checkWrite is the check before every write of about n bytes. It also allocates a memtable
// log that Badger created since the last look (see preallocate).
func (s *Store) checkWrite(n int64) error {
	if s.dir == "" || s.reserve < 0 {
		return nil
	}
	if err := checkSpace(s.freeSpace, s.dir, s.reserve+n); err != nil {
		return err
	}
	if s.readOnly.Load() {
		// acquireWrite found no room to reopen writable a moment ago.
		return &DiskFullError{Dir: s.dir, Free: 0, Need: s.reserve}
	}
	if s.sinceAlloc.Add(n+1024) >= preallocEvery {
		s.sinceAlloc.Store(0)
		s.preallocate()
	}
	return nil
}

// preallocate allocates every block of the memtable logs Badger has mapped, so that writing
// one of their pages never needs a free block. It only fills holes (fallocate mode 0 leaves
// data and size alone), so it is harmless on a log Badger is writing. A file system without
// fallocate, or one that is full, is logged: the reserve still stands in front of it.
func (s *Store) preallocate() {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.log.Warn("list the data directory to allocate its logs", "dir", s.dir, "err", err)
		return
	}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".mem" || !e.Type().IsRegular() {
			continue
		}
		if err := allocateFile(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("allocate the blocks of a memtable log", "file", e.Name(), "err", err)
		}
	}
}

// allocateFile gives every hole of a file its blocks.
func allocateFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if st.Size == 0 || st.Blocks*512 >= st.Size {
		return nil
	}
	if err := unix.Fallocate(int(f.Fd()), 0, 0, st.Size); err != nil {
		return fmt.Errorf("fallocate %d bytes: %w", st.Size, err)
	}
	return nil
}

// logFiles lists Badger's memtable and value logs in dir, with their sizes.
func logFiles(dir string) (map[string]int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read data directory %s: %w", dir, err)
	}
	out := map[string]int64{}
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if (ext != ".mem" && ext != ".vlog") || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out[e.Name()] = info.Size()
	}
	return out, nil
}

// guardFault runs fn with faults on this goroutine turned into panics, and the panic into an
// error. It is for badger.Open, which writes the header of a new log through its map on the
// caller's goroutine.
func guardFault(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	defer func() {
		if p := recover(); p != nil {
			// A fault panics with a runtime.Error that has the faulting address.
			if _, ok := p.(interface{ Addr() uintptr }); ok {
				err = fmt.Errorf("writing a memory-mapped log failed (%v): %w", p, ErrDiskFull)
				return
			}
			panic(p)
		}
	}()
	return fn()
}

// removeNewLogs removes the logs that a failed badger.Open created (those not in before): they
// hold nothing, and each failed attempt would otherwise leave another behind.
func (s *Store) removeNewLogs(before map[string]int64) {
	after, err := logFiles(s.dir)
	if err != nil {
		return
	}
	for name := range after {
		if _, ok := before[name]; ok {
			continue
		}
		path := filepath.Join(s.dir, name)
		if err := os.Remove(path); err != nil {
			s.log.Warn("remove a log a failed open created", "file", path, "err", err)
			continue
		}
		s.log.Warn("removed a log a failed open created", "file", path)
	}
}

// keepBallast creates the ballast file when it is missing and the disk has room for it.
func (s *Store) keepBallast() {
	path := filepath.Join(s.dir, ballastName)
	if _, err := os.Stat(path); err == nil || s.reserve < 0 {
		return
	}
	if free, err := s.freeSpace(s.dir); err != nil || free < s.reserve+ballastSize {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		s.log.Warn("create the space reserve file", "file", path, "err", err)
		return
	}
	err = unix.Fallocate(int(f.Fd()), 0, 0, ballastSize)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.log.Warn("allocate the space reserve file", "file", path, "err", err)
		_ = os.Remove(path)
	}
}

// dropBallast frees the ballast's room when the disk is short, just before Badger needs it.
func (s *Store) dropBallast() {
	if s.dir == "" || s.Space() == nil {
		return
	}
	path := filepath.Join(s.dir, ballastName)
	if err := os.Remove(path); err == nil {
		s.log.Warn("the disk is full: freed the space reserve for the last flush", "dir", s.dir)
	}
}
