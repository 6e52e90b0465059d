package statcache

import (
	"io/fs"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Settle is how long after its last change a file's reading is not kept.
const Settle = 2 * time.Second

// MaxEntries bounds the files a Cache remembers: a few files in each working directory of
// the open conversations. Past it the cache starts again empty (a re-read costs what a
// miss does).
const MaxEntries = 256

// Cache keeps, for each path, what read made of the file. The zero value is ready to use.
type Cache[T any] struct {
	mu      sync.Mutex
	entries map[string]entry[T]
	// now is the clock of Settle; tests move it.
	now func() time.Time
}

type entry[T any] struct {
	id  identity
	v   T
	err error
}

type identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

// Load returns what read makes of the file at path, calling read only when the file is not
// the one read last time. When the file cannot be stat'ed (a missing file: fs.ErrNotExist)
// Load returns that error and read is not called. The value returned is shared with later
// calls: callers do not change it.
func (c *Cache[T]) Load(path string, read func(path string) (T, error)) (T, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		var zero T
		return zero, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	id := identity{dev: st.Dev, ino: st.Ino, size: st.Size,
		mtime: time.Unix(st.Mtim.Unix()).UnixNano(), ctime: time.Unix(st.Ctim.Unix()).UnixNano()}
	c.mu.Lock()
	e, ok := c.entries[path]
	now := time.Now
	if c.now != nil {
		now = c.now
	}
	c.mu.Unlock()
	if ok && e.id == id {
		return e.v, e.err
	}
	v, err := read(path)
	t := now()
	if t.Sub(time.Unix(0, id.mtime)) < Settle || t.Sub(time.Unix(0, id.ctime)) < Settle {
		return v, err
	}
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= MaxEntries {
		c.entries = map[string]entry[T]{}
	}
	c.entries[path] = entry[T]{id: id, v: v, err: err}
	c.mu.Unlock()
	return v, err
}
