package main

import (
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/search"
)

// The search index and the network proxy are opened when first used, not when the app
// starts: a one-turn `chat` that searches nothing and runs no Project-mode command must not
// wait for a second Badger database (20–70 ms on a busy machine) or for the mount view the
// proxy needs. Both are derived from what is on disk, so opening them late loses nothing.

// lazyIndex is the runtime's search index (actors.Searcher), opened on the first search or
// delete. A commit before that is not lost: the index catches up with the store when it
// opens (search.Open), as after any run that did not open it.
type lazyIndex struct {
	open func() (*search.Index, error)
	log  *slog.Logger

	mu     sync.Mutex // held while opening, so one caller opens it
	tried  bool
	closed bool
	err    error
	// idx is set once the index is open; Notify reads it without the lock, because it must
	// never wait for an open in progress.
	idx atomic.Pointer[search.Index]
}

var _ actors.Searcher = (*lazyIndex)(nil)

func newLazyIndex(store *persistence.Store, log *slog.Logger) *lazyIndex {
	return &lazyIndex{open: func() (*search.Index, error) { return openIndex(store, log) }, log: log}
}

// errIndexClosed says the app is closing.
var errIndexClosed = errors.New("the search index is closed because the app is closing")

func (l *lazyIndex) get() (*search.Index, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, errIndexClosed
	}
	if !l.tried {
		l.tried = true
		idx, err := l.open()
		if err != nil {
			l.err = err
			l.log.Error("search is unavailable", "error", err)
		} else {
			l.idx.Store(idx)
		}
	}
	if l.err != nil {
		return nil, l.err
	}
	return l.idx.Load(), nil
}

// Notify tells an open index that a conversation changed; before the index is open it does
// nothing, since opening catches up with every conversation.
func (l *lazyIndex) Notify(convID string) {
	if idx := l.idx.Load(); idx != nil {
		idx.Notify(convID)
	}
}

// Remove drops a deleted conversation's entries. An index that is not open yet is not opened
// for it: it drops the conversations the store no longer holds when it opens.
func (l *lazyIndex) Remove(convID string) error {
	if idx := l.idx.Load(); idx != nil {
		return idx.Remove(convID)
	}
	return nil
}

func (l *lazyIndex) Search(q search.Query) (search.Result, error) {
	idx, err := l.get()
	if err != nil {
		return search.Result{}, err
	}
	return idx.Search(q)
}

// Warm opens the index in the background (the window does, once it shows, so that the first
// search does not wait for the catch-up).
func (l *lazyIndex) Warm() { go func() { _, _ = l.get() }() }

// Close closes the index if it was opened; later calls fail with errIndexClosed.
func (l *lazyIndex) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if idx := l.idx.Swap(nil); idx != nil {
		return idx.Close()
	}
	return nil
}

// lazyProxy is the runtime's network proxy (actors.HostProxy and actors.HostRules), started
// when a Project-mode command first needs it or Settings first shows the allowed hosts.
// Where Project mode is unavailable, or the proxy cannot start (logged once), it behaves as
// no proxy did before: commands get no socket and Settings no allowed hosts.
type lazyProxy struct {
	open func() (*appProxy, error)
	log  *slog.Logger

	mu     sync.Mutex
	tried  bool
	closed bool
	p      *appProxy
}

var (
	_ actors.HostProxy = (*lazyProxy)(nil)
	_ actors.HostRules = (*lazyProxy)(nil)
)

func (l *lazyProxy) get() *appProxy {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tried && !l.closed {
		l.tried = true
		p, err := l.open()
		if err != nil {
			l.log.Error("the network proxy for Project mode could not start; Project-mode commands have no network", "error", err)
		}
		l.p = p
	}
	return l.p
}

// started is the proxy if it runs, without starting it.
func (l *lazyProxy) started() *appProxy {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.p
}

// Available reports whether a proxy runs (starting it): actors asks before it offers the
// allowed hosts.
func (l *lazyProxy) Available() bool { return l.get() != nil }

// Listen returns the conversation's socket; "" without a proxy (the command has no network).
func (l *lazyProxy) Listen(project, conversation string) (string, error) {
	if p := l.get(); p != nil {
		return p.Listen(project, conversation)
	}
	return "", nil
}

func (l *lazyProxy) Forget(conversation string) {
	if p := l.started(); p != nil {
		p.Forget(conversation)
	}
}

func (l *lazyProxy) TakeRefusals(conversation string) []string {
	if p := l.started(); p != nil {
		return p.TakeRefusals(conversation)
	}
	return nil
}

func (l *lazyProxy) AllowedHosts(project string) []string {
	if p := l.get(); p != nil {
		return p.AllowedHosts(project)
	}
	return nil
}

func (l *lazyProxy) AddHost(project, pattern string) error {
	if p := l.get(); p != nil {
		return p.AddHost(project, pattern)
	}
	return actors.ErrNoHostRules
}

func (l *lazyProxy) RemoveHost(project, pattern string) error {
	if p := l.get(); p != nil {
		return p.RemoveHost(project, pattern)
	}
	return actors.ErrNoHostRules
}

func (l *lazyProxy) Registries(project string) bool {
	if p := l.get(); p != nil {
		return p.Registries(project)
	}
	return false
}

func (l *lazyProxy) SetRegistries(project string, on bool) error {
	if p := l.get(); p != nil {
		return p.SetRegistries(project, on)
	}
	return actors.ErrNoHostRules
}

// Close stops the proxy if it was started; it is not started afterwards.
func (l *lazyProxy) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.p != nil {
		l.p.Close()
		l.p = nil
	}
}
