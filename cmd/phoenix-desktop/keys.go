package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/secrets"
	"github.com/phoenix-desktop/phoenix/ui"
)

// apiKeyName is the API key's name in the secrets store.
const apiKeyName = "api-key"

// apiKeyStore is the secrets store as the window's Settings use it (ui.KeyStore).
type apiKeyStore struct {
	s secrets.Store
	// space is persistence.CheckSpace, or a full disk in tests.
	space func(dir string, need int64) error
}

func (k apiKeyStore) APIKey() (string, error) {
	v, err := k.s.Get(apiKeyName)
	if errors.Is(err, secrets.ErrNotFound) {
		return "", nil
	}
	return v, err
}

// SetAPIKey saves the key; in the private file (no keyring), only while its disk has room.
func (k apiKeyStore) SetAPIKey(key string) error {
	if !k.s.Secure() {
		space := k.space
		if space == nil {
			space = persistence.CheckSpace
		}
		if dir, err := secretsDir(); err == nil {
			if err := space(dir, int64(len(key))+settingsRoom); err != nil {
				return fmt.Errorf("save the API key: %w", err)
			}
		}
	}
	return k.s.Set(apiKeyName, key)
}

// settingsRoom is what saving the settings (or the key file) may write: small files,
// rewritten whole.
const settingsRoom = 64 << 10

// settingsSpace refuses to save the settings while the disk holding Fyne's preferences (the
// configuration directory) is short, in the words of a full disk everywhere.
func settingsSpace() error {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	return persistence.CheckSpace(dir, settingsRoom)
}
func (k apiKeyStore) Where() string          { return k.s.Where() }
func (k apiKeyStore) Secure() bool           { return k.s.Secure() }
func (k apiKeyStore) Timeout() time.Duration { return secrets.Timeout }

// secretsDir is where the file fallback lives: the app's own configuration directory.
func secretsDir() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the configuration directory for the secrets file: %w", err)
	}
	return filepath.Join(dir, "phoenix-desktop"), nil
}

// openKeys opens the desktop's Secret Service (or the private file) and moves a key an older
// version left in the preferences file there. Nil means neither works: the key then stays in
// the preferences, as before, and the log says why. fileLevel is the level of the note that
// the key is in the private file (a warning in the window; the headless commands keep quiet
// about it unless --verbose).
func openKeys(prefs fyne.Preferences, log *slog.Logger, fileLevel slog.Level) ui.KeyStore {
	dir, err := secretsDir()
	var s secrets.Store
	if err == nil {
		s, err = secrets.Open(dir)
	}
	if err != nil {
		log.Error("the API key cannot be kept in a keyring or a private file; it stays in the preferences", "error", err)
		return nil
	}
	if !s.Secure() {
		log.Log(context.Background(), fileLevel, "no desktop keyring answers; the API key is kept in a private file", "where", s.Where())
	}
	return keyStore(prefs, s, log)
}

// keyStore is where the window keeps the key: s, once a key an older version left in the
// preferences file is moved there; while moving it fails, the preferences file, so the key
// keeps working where it is and stays there until a later start has moved it and read it back.
func keyStore(prefs fyne.Preferences, s secrets.Store, log *slog.Logger) ui.KeyStore {
	if err := migrateKey(prefs, s, log); err != nil {
		return ui.PreferencesKeys(prefs, "it could not be moved out of it ("+err.Error()+"); the next start tries again")
	}
	return apiKeyStore{s: s}
}

// loadSettings is what the window's Settings saved: the provider, base URL and model from the
// app's preferences, and the API key from keys (nil: from the preferences, as before).
func loadSettings(prefs fyne.Preferences, keys ui.KeyStore, log *slog.Logger) ui.Settings {
	saved := ui.LoadSettings(prefs)
	if keys != nil {
		key, err := ui.ReadAPIKey(keys)
		if err != nil {
			log.Error("the saved API key could not be read; starting without it (unlock the keyring and open Settings)", "error", err)
		}
		saved.APIKey = key
	}
	return saved
}

// headlessSettings is loadSettings for the headless commands, so that they resolve the model
// exactly as the window does: a flag, then the environment, then what Settings saved (the key
// from the same keyring or private file). When the environment sets the key, the key store is
// not asked at all (no keyring unlock prompt for a key that would not be used). The key is
// never printed; only the log's errors say that it could not be read. The Settings it returns
// also carry the reply limits and reasoning efforts saved there (without the key).
func headlessSettings(log *slog.Logger) (llm.Config, ui.Settings) {
	prefs, ok := windowPrefs()
	if !ok {
		return llm.Config{}, ui.Settings{}
	}
	if _, from := providers.Choose(providers.FieldAPIKey, "", "", os.Getenv, ""); from.Overrides {
		s := ui.LoadSettings(prefs)
		s.APIKey = ""
		return settingsConfig(s), s
	}
	s := loadSettings(prefs, openKeys(prefs, log, slog.LevelInfo), log)
	cfg := settingsConfig(s)
	s.APIKey = ""
	return cfg, s
}

// windowPrefs opens the preferences the window saved, if it ever ran: where it has not, it
// saved nothing, and Fyne, asked for the preferences, would complain on stderr about its
// missing directory. Reading them opens no window and needs no display.
func windowPrefs() (fyne.Preferences, bool) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil, false
	}
	if _, err := os.Stat(filepath.Join(dir, "fyne", assets.AppID)); err != nil {
		return nil, false
	}
	return app.NewWithID(assets.AppID).Preferences(), true
}

// migrateKey moves the key out of the preferences file into the store. An error means the key
// is still in the preferences file and must be used from there.
func migrateKey(prefs fyne.Preferences, s secrets.Store, log *slog.Logger) error {
	moved, err := secrets.Migrate(s, apiKeyName, ui.LegacyAPIKey(prefs), func() error {
		ui.RemoveLegacyAPIKey(prefs)
		return nil
	})
	if err != nil {
		log.Error("the API key could not be moved out of the preferences file; it stays there", "error", err)
		if ui.LegacyAPIKey(prefs) != "" {
			return err
		}
		return nil // moved, only the old copy could not be removed
	}
	if moved {
		log.Info("moved the API key out of the preferences file", "to", s.Where())
	}
	return nil
}
