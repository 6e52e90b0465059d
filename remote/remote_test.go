package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/imaging"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/tools"
)

// toolCall builds a call with JSON arguments.
func toolCall(t testing.TB, name string, args map[string]any) domain.ToolCall {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return domain.ToolCall{ID: "c1", Name: name, Arguments: string(raw)}
}

func dial(t testing.TB, s *remotetest.Server) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{Destination: s.Dest, ConfigFile: s.Config})
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	return c
}

func TestDialCopiesOnceThenReuses(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	s.ForgetAgent(t)

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
	proj := s.ProjectDir(t)
	out, err := c.Run(context.Background(), Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolBash, map[string]any{"command": "id -un; pwd"}))
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("bash: %v %+v", err, out)
	}
	if !strings.Contains(out.Content, remotetest.TestUser) || !strings.Contains(out.Content, proj) {
		t.Errorf("bash ran as someone else or elsewhere: %q", out.Content)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}

// noLeaks checks, after every other cleanup of the test (sshd's end included), that no
// goroutine of the test is left.
func noLeaks(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
}

func TestRemoteRestrictedRefusesWritesThere_REQ_BED_014(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	c := dial(t, s)
	defer c.Close()
	proj := s.ProjectDir(t)
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeRestricted}

	out, err := c.Run(context.Background(), where, toolCall(t, domain.ToolBash, map[string]any{"command": "echo x > written.txt"}))
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome == domain.OutcomeSuccess || !strings.Contains(out.Content, "Read-only file system") && !strings.Contains(out.Content, "Permission denied") {
		t.Errorf("a Restricted command was not refused its write by the remote sandbox: %+v", out)
	}
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolPatch, map[string]any{"path": "patched.txt",
		"patches": []map[string]any{{"operation": "overwrite", "new_text": "hello\n"}}}))
	if err != nil {
		t.Fatal(err)
	}
	if out.Outcome == domain.OutcomeSuccess {
		t.Errorf("a Restricted patch wrote on the remote side: %+v", out)
	}
	for _, f := range []string{"written.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(proj, f)); err == nil {
			t.Errorf("%s exists on the remote side after a Restricted call", f)
		}
	}
	// A Restricted command still reads the project and runs: the walls are the remote
	// kernel's sandbox, not a refusal of everything.
	remotetest.WriteFile(t, filepath.Join(proj, "seen.txt"), "visible\n")
	if err := os.Chown(filepath.Join(proj, "seen.txt"), s.UID, s.UID); err != nil {
		t.Fatal(err)
	}
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolBash, map[string]any{"command": "cat seen.txt"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Info().Hello.Layers.Available && (out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "visible")) {
		t.Errorf("a Restricted read failed on the remote side: %+v", out)
	}

	// Unrestricted, the same patch writes there, as the remote user.
	where.Mode = domain.ModeUnrestricted
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolPatch, map[string]any{"path": "patched.txt",
		"patches": []map[string]any{{"operation": "overwrite", "new_text": "hello\n"}}}))
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("Unrestricted patch: %v %+v", err, out)
	}
	b, err := os.ReadFile(filepath.Join(proj, "patched.txt"))
	if err != nil || string(b) != "hello\n" {
		t.Errorf("patched.txt = %q, %v", b, err)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}

// waitForFile waits until a command on the remote side wrote path, and returns its text.
func waitForFile(t testing.TB, path string) string {
	t.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(20 * time.Second)
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s was not written within 20 s", path)
		}
	}
}

// alive reports whether pid runs (a zombie waiting to be reaped has ended).
func alive(pid string) bool {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(b), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func TestRemoteStopKillsTheGroupThere_REQ_BED_005(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	c := dial(t, s)
	defer c.Close()
	proj := s.ProjectDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		out tools.Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := c.Run(ctx, Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted},
			toolCall(t, domain.ToolBash, map[string]any{"command": "sleep 300 & echo $! > pid; wait"}))
		done <- result{out, err}
	}()
	pid := waitForFile(t, filepath.Join(proj, "pid"))
	if !alive(pid) {
		t.Fatalf("the remote sleep %s is not running", pid)
	}
	cancel()
	r := <-done
	if r.err != nil || r.out.Outcome != domain.OutcomeCancelled {
		t.Fatalf("Run after Stop: %v %+v", r.err, r.out)
	}
	// The agent answers a cancel only once the command's group is dead.
	if alive(pid) {
		t.Errorf("the remote command's child %s survived Stop", pid)
	}
	// The connection is still good for the next call.
	out, err := c.Run(context.Background(), Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolBash, map[string]any{"command": "echo again"}))
	if err != nil || !strings.Contains(out.Content, "again") {
		t.Errorf("the call after Stop: %v %+v", err, out)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}

func TestRemoteConnectionKilledMidCommand(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	c := dial(t, s)
	defer c.Close()
	proj := s.ProjectDir(t)
	done := make(chan error, 1)
	var out tools.Output
	go func() {
		var err error
		out, err = c.Run(context.Background(), Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted},
			toolCall(t, domain.ToolBash, map[string]any{"command": "sleep 300 & echo $! > pid; wait"}))
		done <- err
	}()
	pid := waitForFile(t, filepath.Join(proj, "pid"))
	// The master is the one TCP connection: killing it is the network dropping.
	killMaster(t, s)
	killed := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, ErrConnectionLost) || out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "lost") {
			t.Errorf("Run after the drop: %v %+v", err, out)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not report the lost connection within 5 s")
	}
	select {
	case <-c.Lost():
	default:
		t.Error("the client does not say its connection is lost")
	}
	// The agent sees its input end and kills the command's group; then it and the user's
	// sshd session exit.
	t.Logf("reported after %v", time.Since(killed))
	s.WaitNoProcesses(t)
	t.Logf("remote side clean after %v", time.Since(killed))
	if alive(pid) {
		t.Errorf("the remote command's child %s survived the drop", pid)
	}
	c.Close()
}

// TestAgentCommandsDoNotLookStartedBySSHD: with SSH_CLIENT set and SHLVL 0 — the agent's
// environment as sshd and the login shell's exec leave it — bash skips $BASH_ENV, which holds
// the sandbox's gate, so a Restricted command could start before its restrictions were
// complete (and often failed: "let the command start: broken pipe"). The agent drops the
// variable, so every bash it starts reads $BASH_ENV.
func TestAgentCommandsDoNotLookStartedBySSHD(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	c := dial(t, s)
	defer c.Close()
	out, err := c.Run(context.Background(), Call{Conversation: "conv", Cwd: s.ProjectDir(t), Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolBash, map[string]any{"command": `echo "[${SSH_CLIENT-unset}] [${SSH2_CLIENT-unset}]"`}))
	if err != nil || !strings.Contains(out.Content, "[unset] [unset]") {
		t.Errorf("a command of the agent sees sshd's variables: %v %+v", err, out)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}

// TestRemoteSearchAndImageRunThere: keyword_search reads the remote folder and read_image
// returns the remote file's pixels, with the bytes to store here.
func TestRemoteSearchAndImageRunThere(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	c := dial(t, s)
	defer c.Close()
	proj := s.ProjectDir(t)
	remotetest.WriteFile(t, filepath.Join(proj, "notes.txt"), "the quokkaword lives only on the remote side\n")
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	var png bytes.Buffer
	if err := pngenc.Encode(&png, img); err != nil {
		t.Fatal(err)
	}
	remotetest.WriteFile(t, filepath.Join(proj, "pic.png"), png.String())
	for _, f := range []string{"notes.txt", "pic.png"} {
		if err := os.Chown(filepath.Join(proj, f), s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeRestricted, ImageLimits: imaging.DefaultLimits()}

	out, err := c.Run(context.Background(), where, toolCall(t, domain.ToolKeywordSearch,
		map[string]any{"query": "where the word lives", "search_terms": []string{"quokkaword"}}))
	if err != nil || out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "notes.txt") {
		t.Errorf("keyword_search: %v %+v", err, out)
	}
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolReadImage, map[string]any{"path": "pic.png"}))
	if err != nil || out.Outcome != domain.OutcomeSuccess || len(out.Images) != 1 || len(out.Images[0].Data) == 0 {
		t.Errorf("read_image: %v %+v", err, out)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}
