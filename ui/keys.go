package ui

import (
	"errors"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
)

// KeyStore keeps the API key outside the preferences file: cmd/phoenix-desktop wires in the
// desktop's Secret Service (package secrets), or its private-file fallback. With none (nil
// Deps.Keys), the key stays in the preferences as before.
//
// The window never calls a KeyStore on its UI goroutine: a locked keyring's prompt or a hung
// bus must not freeze it. Calls run on their own goroutine, and the window stops waiting
// after Timeout.
type KeyStore interface {
	// APIKey returns the saved key, or "" when none is saved.
	APIKey() (string, error)
	// SetAPIKey saves the key; "" forgets it. The window passes "" only for the person's
	// explicit "Forget the saved key".
	SetAPIKey(key string) error
	// Where says where the key is kept, for the Settings dialog.
	Where() string
	// Secure is false for the file fallback, which Settings points out.
	Secure() bool
	// Timeout is how long the window waits for an answer (secrets.Timeout for the Secret
	// Service); zero waits without a limit, for a store that cannot hang.
	Timeout() time.Duration
}

// LegacyAPIKey is a key that an older version saved in the preferences file, for moving it to
// a KeyStore; RemoveLegacyAPIKey removes it from there once it is moved.
func LegacyAPIKey(p fyne.Preferences) string { return p.String(prefAPIKey) }

// RemoveLegacyAPIKey removes the key from the preferences file.
func RemoveLegacyAPIKey(p fyne.Preferences) { p.RemoveValue(prefAPIKey) }

// PreferencesKeys keeps the key in the preferences file, where older versions kept it. The
// app uses it when moving the key to the keyring failed (why says so in Settings), so the
// key stays usable where it is and is never removed from there by a Save.
func PreferencesKeys(p fyne.Preferences, why string) KeyStore { return prefKeys{p: p, why: why} }

type prefKeys struct {
	p   fyne.Preferences
	why string
}

func (k prefKeys) APIKey() (string, error) { return k.p.String(prefAPIKey), nil }

func (k prefKeys) SetAPIKey(key string) error {
	if key == "" {
		k.p.RemoveValue(prefAPIKey)
	} else {
		k.p.SetString(prefAPIKey, key)
	}
	return nil
}

func (k prefKeys) Where() string {
	if k.why == "" {
		return "in the app's preferences file"
	}
	return "in the app's preferences file, because " + k.why
}

func (k prefKeys) Secure() bool           { return false }
func (k prefKeys) Timeout() time.Duration { return 0 }

// keys is the window's key store: Deps.Keys, or the preferences file without one.
func (m *MainWindow) keys() KeyStore {
	if m.deps.Keys != nil {
		return m.deps.Keys
	}
	return PreferencesKeys(m.app.Preferences(), "")
}

// keyChange is what Save does with the stored key.
type keyChange int

const (
	// keyKeep leaves the stored key exactly as it is: the field was left empty, or the key
	// could not be read. Save never rewrites a key it did not read.
	keyKeep keyChange = iota
	// keySet stores the key typed in the field.
	keySet
	// keyForget deletes the stored key: only the person's "Forget the saved key" asks it.
	keyForget
)

// ReadAPIKey reads the stored key off the caller's goroutine and gives up after the store's
// Timeout, with an error that says what to do; the app's start and the Settings dialog use it.
func ReadAPIKey(k KeyStore) (string, error) {
	return withinTimeout(k, "read the saved API key", k.APIKey)
}

// writeAPIKey stores (or, with "", forgets) the key, bounded like ReadAPIKey.
func writeAPIKey(k KeyStore, key string) error {
	what := "save the API key"
	if key == "" {
		what = "forget the saved API key"
	}
	_, err := withinTimeout(k, what, func() (struct{}, error) { return struct{}{}, k.SetAPIKey(key) })
	return err
}

// errKeyTimeout marks a key store that did not answer in time.
var errKeyTimeout = errors.New("no answer in time")

// withinTimeout runs call on its own goroutine and waits at most k.Timeout() for it. A call
// that does not answer in time is left to finish on its own; its answer is dropped.
func withinTimeout[T any](k KeyStore, what string, call func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := call()
		done <- answer{v, err}
	}()
	limit := k.Timeout()
	if limit <= 0 {
		a := <-done
		return a.v, a.err
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case a := <-done:
		return a.v, a.err
	case <-timer.C:
		var zero T
		return zero, fmt.Errorf("%s: %w: the key is kept %s, which did not answer within %s (it may be locked and waiting for its password)",
			what, errKeyTimeout, k.Where(), limit)
	}
}

// saveSettings writes the settings: the key, as change says, to the key store, never to the
// preferences file (unless that is the store); the rest to the preferences. It runs off the
// UI goroutine.
func (m *MainWindow) saveSettings(s Settings, change keyChange) error {
	if m.deps.SettingsSpace != nil {
		if err := m.deps.SettingsSpace(); err != nil {
			return err
		}
	}
	switch change {
	case keySet:
		if err := writeAPIKey(m.keys(), s.APIKey); err != nil {
			return err
		}
	case keyForget:
		if err := writeAPIKey(m.keys(), ""); err != nil {
			return err
		}
	}
	saveSettingsButKey(m.app.Preferences(), s)
	return nil
}

// keyHint says where the key is kept, below the API key field.
func (m *MainWindow) keyHint() string {
	k := m.keys()
	hint := "Kept " + k.Where() + "."
	if _, prefs := k.(prefKeys); !prefs && !k.Secure() {
		hint = "No desktop keyring: " + hint
	}
	return hint
}
