package actors

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestHiddenPathsFromSettings: the person's hidden paths are checked, applied to the
// sandbox's secrets table at once and saved; a bad entry changes nothing.
func TestHiddenPathsFromSettings(t *testing.T) {
	file := filepath.Join(t.TempDir(), "cfg", "hidden-paths.txt")
	r := &Runtime{cfg: Config{HiddenPathsFile: file}}
	t.Cleanup(func() { _ = sandbox.SetExtraSecrets(nil) })
	secret := filepath.Join(t.TempDir(), "vault")
	if err := r.SetHiddenPaths([]string{secret}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range sandbox.Secrets() {
		found = found || s.Path == secret
	}
	if !found {
		t.Errorf("%s is not in the secrets table", secret)
	}
	got, err := r.HiddenPaths()
	if err != nil || len(got) != 1 || got[0] != secret {
		t.Errorf("read back %v, %v", got, err)
	}
	if err := r.SetHiddenPaths([]string{"relative/path"}); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("a relative path was accepted: %v", err)
	}
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), secret) || strings.Contains(string(b), "relative") {
		t.Errorf("the file holds:\n%s", b)
	}
}
