package remote

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
)

// TestRemoteCheckpointsLiveOnTheHost: a remote conversation's shadow repository is made on
// the remote machine, in the remote user's data folder, by the agent; snapshots, changes,
// diffs and a restore are served there; a restore whose files moved is refused with the
// checkpoint package's own error; after a dropped connection the new agent carries on with
// the same repository; a delete removes it there.
func TestRemoteCheckpointsLiveOnTheHost(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	proj := s.ProjectDir(t)
	ctx := context.Background()
	bash := func(cmd string) {
		t.Helper()
		out, err := sess.Run(ctx, Call{Conversation: "conv-1", Cwd: proj, Mode: domain.ModeUnrestricted},
			toolCall(t, domain.ToolBash, map[string]any{"command": cmd}), nil)
		if err != nil || out.Outcome != domain.OutcomeSuccess {
			t.Fatalf("bash %q: %v %+v", cmd, err, out)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(proj, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	bash("echo one > a.txt")
	repo := sess.Checkpoints("conv-1", proj)
	before, err := repo.Snapshot(ctx)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	shadow := filepath.Join(s.Home, ".local/share/phoenix-desktop/remote-checkpoints/conv-1/shadow.git")
	if fi, err := os.Stat(shadow); err != nil || !fi.IsDir() {
		t.Fatalf("no shadow repository on the remote side at %s: %v", shadow, err)
	} else if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != s.UID {
		t.Errorf("the shadow repository does not belong to the remote user")
	}
	bash("echo two > a.txt; echo new > b.txt")
	after, err := repo.Snapshot(ctx)
	if err != nil || after == before {
		t.Fatalf("snapshot after: %q %v", after, err)
	}
	changes, err := repo.Changes(ctx, before, after)
	if err != nil {
		t.Fatal(err)
	}
	if got := checkpoint.Paths(changes); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("changes = %+v", changes)
	}
	diff, err := repo.Diff(ctx, after, before, checkpoint.Paths(changes))
	if err != nil || !strings.Contains(diff, "-two") || !strings.Contains(diff, "+one") {
		t.Errorf("diff: %v\n%s", err, diff)
	}

	// The files are not as the plan saw them: refused with the error the app tells apart.
	if _, err := repo.Restore(ctx, before, before, checkpoint.Paths(changes)); !errors.Is(err, checkpoint.ErrMoved) {
		t.Errorf("a restore over moved files: %v, want checkpoint.ErrMoved", err)
	} else if !strings.Contains(err.Error(), "on "+s.Dest) {
		t.Errorf("the error does not say where: %v", err)
	}
	if _, err := repo.Restore(ctx, after, before, checkpoint.Paths(changes)); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if read("a.txt") != "one\n" || read("b.txt") != "<missing>" {
		t.Errorf("after the restore on the host: a.txt %q, b.txt %q", read("a.txt"), read("b.txt"))
	}

	// The connection drops; the next operation reconnects, and the new agent opens the same
	// repository: the tree is the one snapshotted before.
	sess.mu.Lock()
	c := sess.cur
	sess.mu.Unlock()
	killMaster(t, s)
	<-c.Lost()
	again, err := repo.Snapshot(ctx)
	if err != nil || again != before {
		t.Errorf("snapshot after a reconnection: %q %v, want %q", again, err, before)
	}
	if err := repo.Remove(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(shadow)); !os.IsNotExist(err) {
		t.Errorf("the conversation's checkpoints are still on the host: %v", err)
	}
	if _, err := sess.Checkpoints("../escape", proj).Snapshot(ctx); err == nil || !strings.Contains(err.Error(), "cannot name a checkpoint folder") {
		t.Errorf("a conversation id that leaves the folder: %v", err)
	}
	sess.Close()
	s.WaitNoProcesses(t)
}
