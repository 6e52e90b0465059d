package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
)

// TestQueueAndCheckpointsSurviveSIGKILL kills the CLI while a tool runs, with a message
// queued behind the turn and checkpoints taken before it: both are in the store afterwards,
// the queue is held (a crash is not a turn that came to rest) until released, and a
// checkpoint restores the files.
func TestQueueAndCheckpointsSurviveSIGKILL(t *testing.T) {
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
	bin := cliBinary(t)
	dataDir, cwd, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	env := cleanEnv("TMPDIR="+tmp, "XDG_CONFIG_HOME="+t.TempDir())
	if err := os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, res := newCLIConversation(t, env, dataDir, "--demo", "--cwd", cwd, "--unrestricted", "echo: start")
	if res.code != 0 {
		t.Fatalf("first turn: %s", res)
	}
	marker := fmt.Sprintf("sleep 28.%06d", os.Getpid()%1_000_000)
	cmd := exec.Command(bin, "chat", "--demo", "--data-dir", dataDir, "--continue", id,
		"--queue", "echo: queued before the crash",
		`patch: a.txt <<< v2\n`+"\nbash: "+marker)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitToolProcess(t, cmd, marker, 60*time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed on purpose
	if waitNoProcess(marker, strayGrace) >= strayGrace {
		killMatching(marker)
		t.Fatalf("the tool's process survived the kill")
	}

	var q actors.Queue
	res = runCLI(t, env, "queue", id, "--data-dir", dataDir, "--json")
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &q) != nil || len(q.Items) != 1 || q.Items[0].Text != "echo: queued before the crash" {
		t.Fatalf("the queued message did not survive the kill: %s", res)
	}
	var cps []actors.Checkpoint
	res = runCLI(t, env, "checkpoints", id, "--data-dir", dataDir, "--json")
	if res.code != 0 || json.Unmarshal([]byte(res.stdout), &cps) != nil || len(cps) != 2 {
		t.Fatalf("checkpoints after the kill: %s", res)
	}
	if cps[0].Tool != domain.ToolPatch || !cps[0].Complete() || cps[1].Tool != domain.ToolBash || cps[1].Complete() {
		t.Fatalf("checkpoints = %+v; want the patch's complete and the killed bash's open", cps)
	}

	// The next turn first recovers the interrupted one; the queue is held, not sent.
	res = runCLI(t, env, "chat", "--demo", "--data-dir", dataDir, "--continue", id, "echo: after the crash")
	if res.code != 0 {
		t.Fatalf("a turn after the kill: %s", res)
	}
	res = runCLI(t, env, "queue", id, "--data-dir", dataDir)
	if !strings.Contains(res.stdout, "Held: The app stopped") || !strings.Contains(res.stdout, "queued before the crash") {
		t.Fatalf("queue after recovery:\n%s", res)
	}

	// The patch's checkpoint brings a.txt back.
	res = runCLI(t, env, "rewind", id, strconv.FormatUint(uint64(cps[0].ID), 10), "--data-dir", dataDir)
	if res.code != 0 || !strings.Contains(res.stdout, "a.txt") {
		t.Fatalf("rewind: %s", res)
	}
	if b, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(b) != "v1\n" {
		t.Fatalf("a.txt = %q after rewind", b)
	}

	// Released, the queue goes after the next turn.
	if res = runCLI(t, env, "queue", id, "--data-dir", dataDir, "--release"); res.code != 0 {
		t.Fatalf("release: %s", res)
	}
	res = runCLI(t, env, "chat", "--demo", "--data-dir", dataDir, "--continue", id, "echo: go on")
	if res.code != 0 || !strings.Contains(res.stdout, "queued before the crash") {
		t.Fatalf("the released queue was not sent:\n%s", res)
	}
	res = runCLI(t, env, "queue", id, "--data-dir", dataDir)
	if !strings.Contains(res.stdout, "No queued messages") {
		t.Fatalf("queue after sending:\n%s", res)
	}
}
