package remote

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAgentBinaryIsTheOneShippedBesideTheApp: the app copies the agent built alone when its
// package put one beside it (bin/, or /usr/lib/phoenix-desktop for /usr/bin), and itself
// only when there is none.
func TestAgentBinaryIsTheOneShippedBesideTheApp(t *testing.T) {
	write := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, agent string // agent: where the package put it, "" for nowhere
	}{
		{"beside", "bin/" + AgentBinaryName},
		{"deb", "lib/phoenix-desktop/" + AgentBinaryName},
		{"none", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			app := filepath.Join(root, "bin", "phoenix-desktop")
			write(app)
			want := app
			if tc.agent != "" {
				want = filepath.Join(root, tc.agent)
				write(want)
			}
			// Started through a link (/usr/local/bin/phoenix-desktop → the package's), the
			// app looks beside the file the link points at.
			link := filepath.Join(root, "link")
			if err := os.Symlink(app, link); err != nil {
				t.Fatal(err)
			}
			got, err := agentBinaryFor(link)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Clean(got) != filepath.Clean(want) {
				t.Errorf("agent binary = %s, want %s", got, want)
			}
		})
	}
}
