package secrets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// Service is the name the app's secrets are filed under in the Secret Service.
const Service = "phoenix-desktop"

// ErrNotFound says no secret is stored under the name.
var ErrNotFound = errors.New("no secret is stored under that name")

// Store keeps named secrets.
type Store interface {
	// Get returns the secret, or ErrNotFound.
	Get(name string) (string, error)
	// Set stores the secret; an empty value deletes it.
	Set(name, value string) error
	// Where says, in words for Settings, where secrets are kept.
	Where() string
	// Secure is true for the Secret Service, false for the file fallback.
	Secure() bool
}

// Timeout bounds every wait on the Secret Service: the probe at start (a bus that does not
// answer must not hold up the app's start), and the window's reads and writes of the key (a
// locked keyring's prompt or a hung bus must not freeze it).
const Timeout = 3 * time.Second

// probeName is looked up to see whether the Secret Service answers; it is never stored.
const probeName = "probe (never stored)"

// Open returns the Secret Service when it answers, and otherwise the file fallback in
// fallbackDir (a directory only the person can read, such as the app's configuration
// directory), with the reason the Secret Service was not used.
func Open(fallbackDir string) (Store, error) {
	if err := probe(); err != nil {
		f, ferr := OpenFile(fallbackDir)
		if ferr != nil {
			return nil, fmt.Errorf("no Secret Service (%v), and the fallback file cannot be used: %w", err, ferr)
		}
		f.reason = err.Error()
		return f, nil
	}
	return keyringStore{}, nil
}

func probe() error {
	// Without a session bus, the D-Bus library would start one (dbus-launch), and with it a
	// keyring daemon that outlives the app and cannot unlock anything: a headless box or a
	// bare window manager gets the file instead.
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		rt := os.Getenv("XDG_RUNTIME_DIR")
		if _, err := os.Stat(filepath.Join(rt, "bus")); rt == "" || err != nil {
			return errors.New("this session has no desktop keyring to reach (no D-Bus session bus, as under a bare window manager or over SSH); " +
				"to keep keys in the keyring, start the app from a desktop session such as GNOME or KDE")
		}
	}
	err := Within(func() error {
		_, err := keyring.Get(Service, probeName)
		if errors.Is(err, keyring.ErrNotFound) {
			return nil
		}
		return err
	})
	switch {
	case errors.Is(err, ErrNoAnswer):
		return fmt.Errorf("the desktop's Secret Service did not answer within %s", Timeout)
	case err != nil:
		return fmt.Errorf("the desktop's Secret Service does not answer: %w", err)
	}
	return nil
}

// ErrNoAnswer is what Within returns for a call that did not answer within Timeout.
var ErrNoAnswer = errors.New("the secrets store did not answer in time")

// Within runs one call to a store on its own goroutine and waits at most Timeout for it: a
// locked keyring's prompt or a hung bus must not hold its caller forever. A call that does
// not answer in time goes on in the background, and its answer is dropped.
func Within(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Timeout):
		return ErrNoAnswer
	}
}

// keyringStore is the Secret Service.
type keyringStore struct{}

func (keyringStore) Get(name string) (string, error) {
	v, err := keyring.Get(Service, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("read %q from the desktop keyring: %w", name, err)
	}
	return v, nil
}

func (keyringStore) Set(name, value string) error {
	if value == "" {
		err := keyring.Delete(Service, name)
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			return fmt.Errorf("remove %q from the desktop keyring: %w", name, err)
		}
		return nil
	}
	if err := keyring.Set(Service, name, value); err != nil {
		return fmt.Errorf("save %q in the desktop keyring: %w", name, err)
	}
	return nil
}

func (keyringStore) Where() string {
	return "in the desktop's keyring (Secret Service)"
}

func (keyringStore) Secure() bool { return true }

// FileStore is the fallback: a JSON file readable and writable only by the person.
type FileStore struct {
	path   string
	reason string
	mu     sync.Mutex
}

// fileName is the fallback file inside its directory.
const fileName = "secrets.json"

// OpenFile uses the fallback file in dir, creating the directory (0700) if needed. A file
// that others can read is made private before anything is read from it.
func OpenFile(dir string) (*FileStore, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create %s for the secrets file: %w", dir, err)
	}
	path := filepath.Join(dir, fileName)
	if info, err := os.Stat(path); err == nil && info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("make %s readable only by you: %w", path, err)
		}
	}
	return &FileStore{path: path}, nil
}

func (f *FileStore) read() (map[string]string, error) {
	b, err := os.ReadFile(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.path, err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		// The error of the JSON decoder may quote the file's bytes: never pass it on.
		return nil, fmt.Errorf("%s is not a secrets file this app wrote; move it aside and enter the key again in Settings", f.path)
	}
	return m, nil
}

// Get implements Store.
func (f *FileStore) Get(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", ErrNotFound
	}
	return v, nil
}

// Set implements Store: the file is replaced atomically, private from its creation.
func (f *FileStore) Set(name, value string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	m, err := f.read()
	if err != nil {
		return err
	}
	if value == "" {
		delete(m, name)
	} else {
		m[name] = value
	}
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encode the secrets file: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".secrets-*")
	if err != nil {
		return fmt.Errorf("write the secrets file in %s: %w", filepath.Dir(f.path), err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing left to remove
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("make the secrets file private: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the secrets file: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("replace %s: %w", f.path, err)
	}
	return nil
}

// Where implements Store.
func (f *FileStore) Where() string {
	s := "in " + f.path + ", a file only you can read"
	if f.reason != "" {
		s += ", because " + f.reason
	}
	return s
}

// Secure implements Store.
func (f *FileStore) Secure() bool { return false }

// Path is the fallback file.
func (f *FileStore) Path() string { return f.path }

// Migrate moves a secret found in an old place (old, non-empty) into the store, checks that
// the store gives it back, and only then removes it from the old place. It reports whether
// it moved one. If anything fails, the secret stays where it was: nothing is lost.
func Migrate(s Store, name, old string, removeOld func() error) (bool, error) {
	if old == "" {
		return false, nil
	}
	if err := s.Set(name, old); err != nil {
		return false, fmt.Errorf("move %q out of the old settings: %w", name, err)
	}
	got, err := s.Get(name)
	if err != nil {
		return false, fmt.Errorf("move %q out of the old settings: read it back: %w", name, err)
	}
	if got != old {
		return false, fmt.Errorf("move %q out of the old settings: %s gave back another value; the old copy is kept", name, s.Where())
	}
	if err := removeOld(); err != nil {
		return true, fmt.Errorf("%q was moved but could not be removed from the old settings: %w", name, err)
	}
	return true, nil
}
