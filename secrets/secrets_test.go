package secrets

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const testKey = "sk-test-0123456789abcdefSECRET"

func TestFileFallbackIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "config")
	f, err := OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Get("api-key"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store: %v", err)
	}
	if err := f.Set("api-key", testKey); err != nil {
		t.Fatal(err)
	}
	if got, err := f.Get("api-key"); err != nil || got != testKey {
		t.Fatalf("Get = %q, %v", got, err)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, f.Path(): 0o600} {
		info, err := os.Stat(path)
		if err != nil || info.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, want %v (%v)", path, info.Mode().Perm(), want, err)
		}
	}
	if f.Secure() || !strings.Contains(f.Where(), f.Path()) || !strings.Contains(f.Where(), "only you") {
		t.Fatalf("Where = %q", f.Where())
	}
	// An empty value removes the secret.
	if err := f.Set("api-key", ""); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f.Path()); bytes.Contains(b, []byte(testKey)) {
		t.Fatal("the removed key is still in the file")
	}

	// A file others could read is made private on open; a damaged one is reported without
	// quoting it.
	if err := os.WriteFile(f.Path(), []byte(`{"api-key": "`+testKey+`"`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err = OpenFile(dir)
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(f.Path()); info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v after open", info.Mode().Perm())
	}
	if _, err := f.Get("api-key"); err == nil || strings.Contains(err.Error(), testKey) {
		t.Fatalf("damaged file: %v", err)
	}
}

func TestOpenFallsBackWithoutSecretService(t *testing.T) {
	for name, env := range map[string][2]string{
		"a bus that does not answer": {"unix:path=" + filepath.Join(t.TempDir(), "no-bus"), ""},
		// No bus at all: nothing is started (dbus-launch would leave a daemon behind).
		"no session bus": {"", t.TempDir()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("DBUS_SESSION_BUS_ADDRESS", env[0])
			t.Setenv("XDG_RUNTIME_DIR", env[1])
			dir := t.TempDir()
			s, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if s.Secure() || !strings.Contains(s.Where(), dir) || !strings.Contains(s.Where(), "D-Bus") && !strings.Contains(s.Where(), "Secret Service") {
				t.Fatalf("Where = %q, Secure = %v", s.Where(), s.Secure())
			}
			// Settings shows it: words for the person, no environment variables (issue 36).
			if strings.Contains(s.Where(), "DBUS_SESSION_BUS_ADDRESS") {
				t.Errorf("Where names an environment variable: %q", s.Where())
			}
		})
	}
}

func TestMigrateKeepsTheOldCopyOnFailure(t *testing.T) {
	f, err := OpenFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	moved, err := Migrate(f, "api-key", testKey, func() error { removed = true; return nil })
	if err != nil || !moved || !removed {
		t.Fatalf("moved %v removed %v: %v", moved, removed, err)
	}
	// A store that cannot take it, or gives back something else, leaves the old copy alone.
	for _, s := range []Store{refusingStore{f}, forgetfulStore{f}} {
		removed = false
		if moved, err := Migrate(s, "other", "x", func() error { removed = true; return nil }); err == nil || moved || removed {
			t.Fatalf("%T: moved %v removed %v: %v", s, moved, removed, err)
		}
	}
}

// refusingStore fails every Set, like a locked keyring whose unlock prompt was dismissed.
type refusingStore struct{ *FileStore }

func (refusingStore) Set(string, string) error { return errors.New("the keyring is locked") }

// forgetfulStore accepts a Set and gives back nothing.
type forgetfulStore struct{ *FileStore }

func (forgetfulStore) Set(string, string) error { return nil }

// TestRealSecretService runs TestInsideSecretService in a private D-Bus session with a real
// gnome-keyring-daemon, unlocked for the test, and private HOME and runtime directories: no
// mock, and nothing of the person's keyring is touched.
func TestRealSecretService(t *testing.T) {
	for _, tool := range []string{"dbus-run-session", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (scripts/setup.sh installs gnome-keyring and dbus)", tool)
		}
	}
	home, runtime := t.TempDir(), t.TempDir()
	if err := os.Chmod(runtime, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("dbus-run-session", "--", "sh", "-c",
		`printf pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$0" -test.run '^TestInsideSecretService$' -test.v -test.count=1`,
		os.Args[0])
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+runtime, "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "PHOENIX_TEST_INSIDE_KEYRING=1")
	cmd.Env = withoutEnv(cmd.Env, "DBUS_SESSION_BUS_ADDRESS")
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the keyring session did not end within 2 minutes:\n%s", out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestInsideSecretService") {
		t.Fatalf("inside the keyring session: %v\n%s", err, out)
	}
	// The keyring on disk holds the key encrypted, not in plain text.
	keyrings, _ := filepath.Glob(filepath.Join(home, "data", "keyrings", "*"))
	if len(keyrings) == 0 {
		t.Fatalf("gnome-keyring wrote no keyring under %s:\n%s", home, out)
	}
	for _, k := range keyrings {
		if b, _ := os.ReadFile(k); bytes.Contains(b, []byte(testKey)) {
			t.Fatalf("%s holds the key in plain text", k)
		}
	}
}

func withoutEnv(env []string, name string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return out
}

func TestInsideSecretService(t *testing.T) {
	if os.Getenv("PHOENIX_TEST_INSIDE_KEYRING") != "1" {
		t.Skip("runs inside TestRealSecretService's D-Bus session")
	}
	// Nothing in this package logs; that the key never reaches the app's log is checked
	// where the app logs, by TestKeyMovesOutOfThePreferences in cmd/phoenix-desktop.
	fallback := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "phoenix-desktop")
	s, err := Open(fallback)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Secure() || !strings.Contains(s.Where(), "keyring") {
		t.Fatalf("the real Secret Service was not used: %s", s.Where())
	}
	// Migration from an old settings file: the key moves into the keyring and leaves the file.
	oldFile := filepath.Join(t.TempDir(), "preferences.json")
	if err := os.WriteFile(oldFile, []byte(`{"settings.api_key":"`+testKey+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	moved, err := Migrate(s, "api-key", testKey, func() error { return os.WriteFile(oldFile, []byte(`{}`), 0o600) })
	if err != nil || !moved {
		t.Fatalf("migrate: %v", err)
	}
	if got, err := s.Get("api-key"); err != nil || got != testKey {
		t.Fatalf("Get = %q, %v", got, err)
	}
	if b, _ := os.ReadFile(oldFile); bytes.Contains(b, []byte(testKey)) {
		t.Fatal("the key is still in the old file")
	}
	if _, err := os.Stat(filepath.Join(fallback, fileName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the fallback file was written although the keyring answers: %v", err)
	}
	// Another process (secret-tool) sees it under the app's service name.
	if _, err := exec.LookPath("secret-tool"); err == nil {
		out, err := exec.Command("secret-tool", "lookup", "service", Service, "username", "api-key").Output()
		if err != nil || strings.TrimSpace(string(out)) != testKey {
			t.Errorf("secret-tool lookup: %q, %v", out, err)
		}
	}
	if err := s.Set("api-key", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("api-key"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("after removing: %v", err)
	}
}
