package remote

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/phoenix-desktop/phoenix/domain"
)

// toolCall builds a call with JSON arguments.
func toolCall(t *testing.T, name string, args map[string]any) domain.ToolCall {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return domain.ToolCall{ID: "c1", Name: name, Arguments: string(raw)}
}

func dial(t *testing.T, s *sshServer) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{Destination: s.Dest, ConfigFile: s.Config})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c
}

// forgetAgent removes the agent binaries from the remote user's cache, as a first connection
// finds it.
func (s *sshServer) forgetAgent(t *testing.T) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(s.Home, ".cache", "phoenix-desktop")); err != nil {
		t.Fatal(err)
	}
}

func TestDialCopiesOnceThenReuses(t *testing.T) {
	noLeaks(t)
	s := startSSHD(t)
	s.forgetAgent(t)

	c := dial(t, s)
	info := c.Info()
	if !info.Copied {
		t.Errorf("the first connection did not copy the agent")
	}
	if info.OS != "Linux" || info.Hello.Version == "" || info.Hello.PID == 0 {
		t.Errorf("info = %+v", info)
	}
	if !strings.HasPrefix(info.BinaryPath, s.Home+"/.cache/phoenix-desktop/bin/") {
		t.Errorf("binary at %q, want under the remote user's cache", info.BinaryPath)
	}
	fi, err := os.Stat(info.BinaryPath)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("remote binary: %v %v", fi, err)
	}
	if len(info.Hello.Layers.Layers) == 0 {
		t.Errorf("the agent reported no sandbox layers")
	}
	c.Close()

	c = dial(t, s)
	if c.Info().Copied {
		t.Errorf("the second connection copied the agent again")
	}
	proj := s.projectDir(t)
	out, err := c.Run(context.Background(), Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolBash, map[string]any{"command": "id -un; pwd"}))
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("bash: %v %+v", err, out)
	}
	if !strings.Contains(out.Content, testUser) || !strings.Contains(out.Content, proj) {
		t.Errorf("bash ran as someone else or elsewhere: %q", out.Content)
	}
	c.Close()
	s.waitNoUserProcesses(t)
}

// noLeaks checks, after every other cleanup of the test (sshd's end included), that no
// goroutine of the test is left.
func noLeaks(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
}
