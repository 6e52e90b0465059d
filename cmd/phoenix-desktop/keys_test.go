package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/phoenix-desktop/phoenix/assets"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/providers"
	"github.com/phoenix-desktop/phoenix/secrets"
)

// TestChatUsesTheKeySavedInSettings: the key saved in Settings (here in the private file, as
// on a machine without a keyring) reaches the model in headless chat, at the base URL and
// with the model Settings saved; a key in the environment wins over it, as in the window; and
// neither is ever printed.
func TestChatUsesTheKeySavedInSettings(t *testing.T) {
	// A configuration directory of this test's: where the window's preferences are found,
	// every command run in this process makes a Fyne app, which watches them with an
	// inotify instance it never closes (a user has 128, for every program). In TestMain's,
	// every later test's command would take one more, and the package's test binary held
	// them all while other packages' tests ran beside it (actors: "the conversation's
	// checkpoint repository does not watch its tree"). Fyne's goroutines write there after
	// the test, so it is removed without t.TempDir's check.
	config, err := os.MkdirTemp("", "phoenix-prefs-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(config) })
	t.Setenv("XDG_CONFIG_HOME", config)
	// No session bus: the store is the private file, as the window would use it here.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	for _, f := range []providers.Field{providers.FieldAPIKey, providers.FieldBaseURL, providers.FieldModel, providers.FieldPreset} {
		for _, name := range providers.EnvVars(f) {
			t.Setenv(name, "")
		}
	}
	const savedKey, envKey = "sk-saved-in-settings-7781", "sk-from-the-environment-9913"
	dir, err := secretsDir()
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(config, "phoenix-desktop") {
		t.Fatalf("the secrets file lives in %s, not under XDG_CONFIG_HOME", dir)
	}
	store, err := secrets.OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := (apiKeyStore{s: store}).SetAPIKey(savedKey); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Set(apiKeyName, "") })

	fake, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer fake.Close()
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		fake.ServeHTTP(w, r)
	}))
	defer srv.Close()
	// What the window's Settings saved besides the key, in the file Fyne keeps its
	// preferences in.
	prefsDir := filepath.Join(config, "fyne", assets.AppID)
	if err := os.MkdirAll(prefsDir, 0o700); err != nil {
		t.Fatal(err)
	}
	prefs, _ := json.Marshal(map[string]string{"settings.base_url": srv.URL + "/v1", "settings.model": "gpt-4o"})
	if err := os.WriteFile(filepath.Join(prefsDir, "preferences.json"), prefs, 0o600); err != nil {
		t.Fatal(err)
	}
	chat := func(wantKey string) {
		t.Helper()
		mu.Lock()
		auth = nil
		mu.Unlock()
		code, out, errs := cli(t, "chat", "--data-dir", t.TempDir(), "echo: keyed hello")
		if code != 0 || !strings.Contains(out, "keyed hello") {
			t.Fatalf("exit %d\n%s\n%s", code, out, errs)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(auth) == 0 {
			t.Fatal("the model was never asked")
		}
		for _, a := range auth {
			if a != "Bearer "+wantKey {
				t.Fatalf("the model got Authorization %q, want the key %s", a, providers.MaskKey(wantKey))
			}
		}
		for _, k := range []string{savedKey, envKey} {
			if strings.Contains(out+errs, k) {
				t.Fatalf("chat printed an API key:\n%s\n%s", out, errs)
			}
		}
	}
	chat(savedKey)
	t.Setenv(providers.EnvAPIKey, envKey)
	chat(envKey)
}

// Issue 25 item 4: the key file is not rewritten while its disk is short; the key saved
// before stays, and the refusal is in the disk's words.
func TestKeyFileNotWrittenOnAFullDisk(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir, err := secretsDir()
	if err != nil {
		t.Fatal(err)
	}
	store, err := secrets.OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := (apiKeyStore{s: store}).SetAPIKey("sk-before-the-disk-filled-1111"); err != nil {
		t.Fatal(err)
	}
	full := func(dir string, need int64) error {
		return &persistence.DiskFullError{Dir: dir, Free: 0, Need: persistence.DefaultReserve + need}
	}
	err = (apiKeyStore{s: store, space: full}).SetAPIKey("sk-after-the-disk-filled-2222")
	if !errors.Is(err, persistence.ErrDiskFull) || !strings.Contains(err.Error(), "The disk holding your conversations is full") {
		t.Fatalf("save on a full disk: %v", err)
	}
	if got, err := (apiKeyStore{s: store}).APIKey(); err != nil || got != "sk-before-the-disk-filled-1111" {
		t.Fatalf("after a refused save the key is %q (%v)", got, err)
	}
}
