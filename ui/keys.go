package ui

import "fyne.io/fyne/v2"

// KeyStore keeps the API key outside the preferences file: cmd/phoenix-desktop wires in the
// desktop's Secret Service (package secrets), or its private-file fallback. With none (nil
// Deps.Keys), the key stays in the preferences as before.
type KeyStore interface {
	// APIKey returns the saved key, or "" when none is saved.
	APIKey() (string, error)
	// SetAPIKey saves the key; "" forgets it.
	SetAPIKey(key string) error
	// Where says where the key is kept, for the Settings dialog.
	Where() string
	// Secure is false for the file fallback, which Settings points out.
	Secure() bool
}

// LegacyAPIKey is a key that an older version saved in the preferences file, for moving it to
// a KeyStore; RemoveLegacyAPIKey removes it from there once it is moved.
func LegacyAPIKey(p fyne.Preferences) string { return p.String(prefAPIKey) }

// RemoveLegacyAPIKey removes the key from the preferences file.
func RemoveLegacyAPIKey(p fyne.Preferences) { p.RemoveValue(prefAPIKey) }

// loadSettings reads the settings, with the key from the key store when there is one.
func (m *MainWindow) loadSettings() (Settings, error) {
	s := LoadSettings(m.app.Preferences())
	if m.deps.Keys == nil {
		return s, nil
	}
	key, err := m.deps.Keys.APIKey()
	s.APIKey = key
	return s, err
}

// saveSettings writes the settings; the key goes to the key store when there is one, never
// to the preferences file.
func (m *MainWindow) saveSettings(s Settings) error {
	if m.deps.Keys != nil {
		if err := m.deps.Keys.SetAPIKey(s.APIKey); err != nil {
			return err
		}
		s.APIKey = ""
	}
	SaveSettings(m.app.Preferences(), s)
	return nil
}

// keyHint says where the key is kept, below the API key field.
func (m *MainWindow) keyHint() string {
	if m.deps.Keys == nil {
		return "Kept in the app's preferences file."
	}
	hint := "Kept " + m.deps.Keys.Where() + "."
	if !m.deps.Keys.Secure() {
		hint = "No desktop keyring: " + hint
	}
	return hint
}
