package remote

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

func hookEvent(cwd, command string) custom.Input {
	raw, _ := json.Marshal(map[string]string{"command": command})
	return custom.Input{SessionID: "conv", Cwd: cwd, HookEventName: custom.PreToolUse, ToolName: domain.ToolBash,
		ToolAliases: []string{"Bash"}, ToolInput: raw}
}

// TestRemoteProjectHooksRunOnTheHost: a remote project's hooks are read on its host and, once
// the person approved exactly them for that host, run there — as the remote user, under the
// sandbox in the conversation's mode — and their refusal comes back; unapproved, approved for
// another host, or changed on the host since, they do not run. A hook that fails or hangs is
// a result that says so (killed at its timeout, nothing of it left running there) and the
// other hooks' results are kept.
func TestRemoteProjectHooksRunOnTheHost(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	proj := s.ProjectDir(t)
	hooksFile := filepath.Join(proj, ".phoenix", "hooks.json")
	writeAs(t, s, hooksFile, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
		{"command": "id -u > \"$CLAUDE_PROJECT_DIR/ran-by\" || exit 4; grep -q 'rm -rf' && { echo 'no rm here' >&2; exit 2; }; exit 0"},
		{"command": "echo failing; exit 3"},
		{"command": "sleep 30", "timeout": 1}
	]}]}}`, 0o644)
	marker := filepath.Join(proj, "ran-by")

	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	read, err := sess.ProjectHooks(ctx, proj, nil)
	if err != nil {
		t.Fatalf("ProjectHooks: %v", err)
	}
	if len(read.Files) != 1 || read.Files[0] != ".phoenix/hooks.json" || read.Config.Count() != 3 || read.Fingerprint == "" {
		t.Fatalf("the hooks read there: %+v", read)
	}

	// A patch's file is looked for there (Write or Edit to a hook).
	if ok, err := sess.PathExists(ctx, hooksFile); !ok || err != nil {
		t.Errorf("PathExists(the hooks file there) = %v, %v", ok, err)
	}
	if ok, err := sess.PathExists(ctx, filepath.Join(proj, "new.go")); ok || err != nil {
		t.Errorf("PathExists(a new file) = %v, %v", ok, err)
	}

	h := custom.OpenHooks(t.TempDir())
	onHost := func(mode domain.Mode) func(context.Context, custom.Input, string) (custom.ProjectHooks, []custom.Result, error) {
		return func(ctx context.Context, in custom.Input, approved string) (custom.ProjectHooks, []custom.Result, error) {
			return sess.RunHooks(ctx, Call{Conversation: "conv", Cwd: proj, Mode: mode}, approved, in, nil)
		}
	}
	run := func(host string, mode domain.Mode, command string) custom.Outcome {
		return h.Run(ctx, hookEvent(proj, command), custom.Runners{Host: host, OnHost: onHost(mode)})
	}

	// Not approved: nothing runs there, and the person is told where to allow them.
	out := run(s.Dest, domain.ModeProject, "rm -rf build")
	if out.Ran() || out.Blocked {
		t.Fatalf("unapproved hooks ran: %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an unapproved hook ran on the host")
	}
	if len(out.Notices) != 1 || !strings.Contains(out.Notices[0], "on "+s.Dest+" has hooks (.phoenix/hooks.json)") {
		t.Errorf("notices = %q", out.Notices)
	}

	// Approved for this host: not for another name, nor for the same folder here.
	now := func() (custom.ProjectHooks, error) { return sess.ProjectHooks(ctx, proj, nil) }
	if err := h.AllowProjectOn(s.Dest, proj, read.Fingerprint, now); err != nil {
		t.Fatalf("AllowProjectOn: %v", err)
	}
	if out := run("other-host", domain.ModeProject, "rm -rf build"); out.Ran() {
		t.Fatalf("the approval on %s ran the hooks for another host: %+v", s.Dest, out)
	}
	if h.Project(proj).Allowed {
		t.Error("the approval on the host allows the same folder on this machine")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook ran without its host's approval")
	}

	// Approved: they run there, as the remote user, the refusal and the failures come back.
	start := time.Now()
	out = run(s.Dest, domain.ModeProject, "rm -rf build")
	if !out.Blocked || out.Reason != "no rm here" || len(out.Results) != 3 {
		t.Fatalf("the approved hooks there: %+v", out)
	}
	b, err := os.ReadFile(marker)
	if err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(s.UID) {
		t.Fatalf("the hook's effect on the host: %q %v (want the remote user's uid %d)", b, err, s.UID)
	}
	if r := out.Results[1]; r.Exit != 3 || !strings.Contains(r.Line(), "failed (exit status 3); the turn goes on") {
		t.Errorf("the failing hook: %+v", r)
	}
	if r := out.Results[2]; !r.TimedOut || !strings.Contains(r.Line(), "was stopped after its 1s timeout") {
		t.Errorf("the hanging hook: %+v", r)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the hooks took %s: the hanging one was not stopped at its timeout", took)
	}
	os.Remove(marker)
	if out := run(s.Dest, domain.ModeProject, "ls"); out.Blocked || len(out.Results) != 3 {
		t.Errorf("a harmless command was refused: %+v", out)
	}

	// Restricted there: the hook runs under the walls a bash call has, so it cannot write.
	os.Remove(marker)
	out = run(s.Dest, domain.ModeRestricted, "ls")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a project hook wrote the project in Restricted mode")
	}
	if len(out.Results) != 3 || out.Results[0].Exit != 4 {
		t.Errorf("the hook's write in Restricted mode did not fail: %+v", out.Results)
	}

	// Changed on the host since the approval: it does not run (the person was told once).
	writeAs(t, s, hooksFile, `{"hooks": {"PreToolUse": [{"hooks": [{"command": "id -u > \"$CLAUDE_PROJECT_DIR/ran-by\""}]}]}}`, 0o644)
	if out := run(s.Dest, domain.ModeProject, "ls"); out.Ran() {
		t.Fatalf("a configuration changed on the host ran: %+v", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a changed hook ran on the host")
	}
	if err := h.AllowProjectOn(s.Dest, proj, read.Fingerprint, now); err != custom.ErrHooksChanged {
		t.Errorf("allowing what was shown before the change: %v", err)
	}

	// Stop while a hook hangs there: the run ends at once and its process there is killed.
	writeAs(t, s, hooksFile, `{"hooks": {"PreToolUse": [{"hooks": [{"command": "sleep 60"}]}]}}`, 0o644)
	fresh, err := now()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AllowProjectOn(s.Dest, proj, fresh.Fingerprint, now); err != nil {
		t.Fatal(err)
	}
	stopCtx, stop := context.WithCancel(ctx)
	done := make(chan custom.Outcome, 1)
	go func() {
		done <- h.Run(stopCtx, hookEvent(proj, "ls"), custom.Runners{Host: s.Dest, OnHost: onHost(domain.ModeProject)})
	}()
	waitFor(t, func() bool { return hasProcess(s, "sleep 60") })
	stop()
	select {
	case out := <-done:
		if out.Blocked || len(out.Results) != 1 || out.Results[0].Err == "" {
			t.Errorf("a stopped hook: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the hook's run on the host")
	}
	waitFor(t, func() bool { return !hasProcess(s, "sleep 60") })

	// The connection drops while a hook runs there: a result that says so within seconds,
	// the hook killed there with the agent; the next event reconnects.
	go func() {
		done <- h.Run(ctx, hookEvent(proj, "ls"), custom.Runners{Host: s.Dest, OnHost: onHost(domain.ModeProject)})
	}()
	waitFor(t, func() bool { return hasProcess(s, "sleep 60") })
	killMaster(t, s)
	select {
	case out := <-done:
		if len(out.Results) != 1 || !strings.Contains(out.Results[0].Line(), "was lost while the project's hooks ran") {
			t.Errorf("a hook whose connection dropped: %+v", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a dropped connection did not end the hook's run within 10 s")
	}
	waitFor(t, func() bool { return !hasProcess(s, "sleep 60") })
	writeAs(t, s, hooksFile, `{"hooks": {"PreToolUse": [{"hooks": [{"command": "echo back"}]}]}}`, 0o644)
	if fresh, err = now(); err != nil {
		t.Fatalf("reading again after the drop: %v", err)
	}
	if err := h.AllowProjectOn(s.Dest, proj, fresh.Fingerprint, now); err != nil {
		t.Fatal(err)
	}
	if out := run(s.Dest, domain.ModeProject, "ls"); len(out.Results) != 1 || strings.TrimSpace(out.Results[0].Stdout) != "back" {
		t.Errorf("after the reconnection: %+v", out)
	}
	sess.Close()
	s.WaitNoProcesses(t)
}

// hasProcess says whether the remote user runs a process whose command line contains text.
func hasProcess(s *remotetest.Server, text string) bool {
	for _, pid := range s.UserProcesses() {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), text) {
			return true
		}
	}
	return false
}

// waitFor waits, at most 20 s, until ok holds.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 20 s")
		}
		<-tick.C
	}
}
