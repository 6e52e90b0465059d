package persistence

import (
	"errors"
	"fmt"
)

// Sentinels for the situations a caller handles differently. Compare with errors.Is; the
// wrapping error says which conversation or directory and what to do.
var (
	// ErrClosed: the store was closed; the caller is shutting down.
	ErrClosed = errors.New("the store is closed")
	// ErrNotFound: no conversation (or blob) with that id.
	ErrNotFound = errors.New("not found")
	// ErrExists: Create was given an id that is already taken.
	ErrExists = errors.New("already exists")
	// ErrLocked: another process (normally another Phoenix Desktop) has the data directory
	// open.
	ErrLocked = errors.New("data directory is locked")
	// ErrNotWritable: the data directory cannot be written.
	ErrNotWritable = errors.New("data directory is not writable")
	// ErrSequence: the messages of a commit leave a gap or overlap what is stored, or the
	// conversation's NextSeq does not follow them.
	ErrSequence = errors.New("message sequence mismatch")
	// ErrCorrupt: a stored value does not decode or contradicts its neighbours.
	ErrCorrupt = errors.New("stored data is corrupt")
	// ErrInvalid: the caller passed a conversation or message the store refuses to write.
	ErrInvalid = errors.New("invalid record")
	// ErrTooLarge: one message or image, or one commit, is larger than the store takes.
	ErrTooLarge = errors.New("too large to store")
	// ErrSchema: the database was written by a newer version of the app, or has no schema
	// version although it holds data.
	ErrSchema = errors.New("unsupported schema version")
)

// CorruptError names the conversation and key whose value could not be decoded. It matches
// ErrCorrupt with errors.Is, and the decoding error too.
type CorruptError struct {
	// ID is the conversation the value belongs to, or empty for a blob or meta key.
	ID string
	// Key is the Badger key that holds the value.
	Key string
	Err error
}

func (e *CorruptError) Error() string {
	if e.ID == "" {
		return fmt.Sprintf("stored data is corrupt: key %q: %v", e.Key, e.Err)
	}
	return fmt.Sprintf("conversation %s: stored data is corrupt (key %q): %v; "+
		"the other conversations are unaffected; keep a copy of the data directory if you want to recover it", e.ID, e.Key, e.Err)
}

// Unwrap lets errors.Is find both ErrCorrupt and the underlying decoding error.
func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

func corrupt(id, key string, err error) error {
	return &CorruptError{ID: id, Key: key, Err: err}
}

// LockedError says that another process has the data directory open: normally another
// Phoenix Desktop. It matches ErrLocked with errors.Is.
type LockedError struct {
	Dir string
	// Detail, when set, says what holds the lock if it is not Phoenix Desktop's own.
	Detail string
}

func (e *LockedError) Error() string {
	msg := "Phoenix Desktop is already running with data in " + e.Dir
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg + ": close the other window first, or pass --data-dir to use another directory"
}

// Unwrap makes errors.Is(err, ErrLocked) true.
func (e *LockedError) Unwrap() error { return ErrLocked }
