package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "<missing>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func needGit(t *testing.T) {
	t.Helper()
	if err := checkpoint.Available(); err != nil {
		t.Skip(err)
	}
}

func TestCheckpointsUndoAndRewind(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, ".gitignore"), "build/\n")
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a1\n")
	c := h.create(NewConversation{Unrestricted: true})

	h.turn(c.ID, "patch: a.txt <<< a2\\n")
	userSeq1 := lastOf(h.history(c.ID), domain.KindUser).Seq
	h.turn(c.ID, "bash: echo b > b.txt && mkdir -p build && echo o > build/out.o")
	h.turn(c.ID, "patch: a.txt <<< a3\\n")

	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 3 {
		t.Fatalf("%d checkpoints, want one per patch/bash call", len(cps))
	}
	if cps[0].Tool != domain.ToolPatch || cps[0].MsgSeq != userSeq1 || !cps[0].Complete() ||
		len(cps[0].Files) != 1 || cps[0].Files[0] != (FileChange{Path: "a.txt", Status: checkpoint.Modified}) {
		t.Fatalf("first checkpoint = %+v", cps[0])
	}
	if len(cps[1].Files) != 1 || cps[1].Files[0].Path != "b.txt" {
		t.Fatalf("the bash checkpoint records %+v; ignored build output must not count", cps[1].Files)
	}

	// Undo the second patch: shows the diff, restores a.txt to a2 and leaves b.txt.
	plan, err := h.rt.PlanRestore(ctx, c.ID, RestoreUndo, cps[2].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Conflicts) != 0 || len(plan.Files) != 1 || !strings.Contains(plan.Diff, "-a3") || !strings.Contains(plan.Diff, "+a2") {
		t.Fatalf("undo plan = %+v", plan)
	}
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(h.cwd, "a.txt")); got != "a2\n" {
		t.Fatalf("a.txt = %q after Undo", got)
	}
	if readFile(t, filepath.Join(h.cwd, "b.txt")) != "b\n" {
		t.Fatal("Undo of one call touched another call's file")
	}
	// The agent is told, in the history and on its next request.
	// The person reads the notice too: it names the call by its time, not by its id.
	undone := lastOf(h.history(c.ID), domain.KindSystem).Text
	mustContain(t, undone, "undid the changes of your patch call at "+cps[2].At.Local().Format("15:04")+".")
	if strings.Contains(undone, cps[2].CallID) {
		t.Errorf("the Undo notice shows the call id %s:\n%s", cps[2].CallID, undone)
	}

	// A file the person changed after the call is theirs: kept unless they choose to
	// overwrite it.
	writeFile(t, filepath.Join(h.cwd, "b.txt"), "mine\n")
	plan, err = h.rt.PlanRestore(ctx, c.ID, RestoreUndo, cps[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Yours) != 1 || plan.Yours[0] != "b.txt" || len(plan.Conflicts) != 0 || len(plan.Files) != 0 || len(plan.AllFiles) != 1 {
		t.Fatalf("undo plan with the person's change: yours %q conflicts %q files %+v all %+v", plan.Yours, plan.Conflicts, plan.Files, plan.AllFiles)
	}
	if rec, err := h.rt.ApplyRestore(ctx, c.ID, plan, false); err != nil || rec.N != 0 {
		t.Fatalf("an Undo that keeps the person's change: %+v, %v; want nothing done", rec, err)
	}
	if readFile(t, filepath.Join(h.cwd, "b.txt")) != "mine\n" {
		t.Fatal("the person's change was overwritten without their choice")
	}
	// A plan made before the tree changed again is refused.
	writeFile(t, filepath.Join(h.cwd, "b.txt"), "mine again\n")
	plan.OverwriteYours = true
	if _, err := h.rt.ApplyRestore(ctx, c.ID, plan, true); !errors.Is(err, ErrRestoreConflict) {
		t.Fatalf("stale plan: %v", err)
	}

	// Rewind to the first message: the tree as it was before its turn.
	cp, ok, err := h.rt.CheckpointBeforeMessage(ctx, c.ID, userSeq1)
	if err != nil || !ok || cp.ID != cps[0].ID {
		t.Fatalf("checkpoint before message: %+v %v %v", cp, ok, err)
	}
	plan, err = h.rt.PlanRestore(ctx, c.ID, RestoreRewind, cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.AllFiles) != 2 || len(plan.Files) != 1 || len(plan.Yours) != 1 {
		t.Fatalf("rewind plan files %+v all %+v yours %q", plan.Files, plan.AllFiles, plan.Yours)
	}
	plan.OverwriteYours = true
	rec, err := h.rt.ApplyRestore(ctx, c.ID, plan, false)
	if err != nil || len(rec.Files) != 2 {
		t.Fatalf("rewind: %v %+v", err, rec)
	}
	if readFile(t, filepath.Join(h.cwd, "a.txt")) != "a1\n" || readFile(t, filepath.Join(h.cwd, "b.txt")) != "<missing>" {
		t.Fatal("rewind did not bring the tree back")
	}
	if readFile(t, filepath.Join(h.cwd, "build", "out.o")) != "o\n" {
		t.Fatal("rewind touched an ignored file")
	}
	// It names the message by its words and time, not by its sequence number.
	first, err := h.store.Message(c.ID, userSeq1)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text,
		"before the person's message “patch: a.txt <<< a2\\n” at "+first.At.Local().Format("15:04")+". These files changed:")
	// The restores published their own resting states.
	h.freshTurn(c.ID, "echo: ok")
	var notices []string
	for _, m := range h.srv.LastChat().Messages {
		if strings.Contains(m.Content.String(), "The person rewound the working directory") {
			notices = append(notices, m.Content.String())
		}
	}
	if len(notices) != 1 {
		t.Fatalf("the model was not told of the rewind: %q", notices)
	}
}

func TestRestrictedModeTakesNoCheckpoints(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	if !h.rt.Sandbox().Available {
		t.Skip("Landlock unavailable: every conversation is Unrestricted")
	}
	c := h.create(NewConversation{})
	h.turn(c.ID, "bash: ls")
	h.turn(c.ID, "patch: x.txt <<< refused anyway")
	if cps, err := h.rt.Checkpoints(context.Background(), c.ID); err != nil || len(cps) != 0 {
		t.Fatalf("checkpoints in Restricted mode: %+v %v", cps, err)
	}
	if _, err := os.Stat(h.store.FilesDir(c.ID)); !os.IsNotExist(err) {
		t.Fatalf("a shadow repository was created in Restricted mode: %v", err)
	}
}

func TestCheckpointsAndQueueArePrunedWithTheirConversation(t *testing.T) {
	needGit(t)
	h := newHarness(t)
	ctx := context.Background()
	c := h.create(NewConversation{Unrestricted: true})
	// Creating a conversation starts no git: a turn that runs no tool needs no repository.
	if _, err := os.Stat(filepath.Join(h.store.FilesDir(c.ID), "shadow.git")); !os.IsNotExist(err) {
		t.Fatalf("the checkpoint repository was made before the first request: %v", err)
	}
	// An Unrestricted conversation's tree is copied in the background once its first
	// request is on its way, so that its first patch only adds what changed.
	h.turn(c.ID, "echo: no tool")
	h.rt.bg.Wait()
	if _, err := os.Stat(filepath.Join(h.store.FilesDir(c.ID), "shadow.git", "index")); err != nil {
		t.Fatalf("the checkpoint repository was not warmed: %v", err)
	}
	h.turn(c.ID, "patch: a.txt <<< x")
	if cps, _ := h.rt.Checkpoints(ctx, c.ID); len(cps) != 1 {
		t.Fatalf("%d checkpoints", len(cps))
	}
	if _, err := h.rt.Enqueue(ctx, c.ID, "echo: waits", nil); err != nil {
		t.Fatal(err)
	}
	files := h.store.FilesDir(c.ID)
	// The app's Delete goes through the store's single delete path.
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(files); !os.IsNotExist(err) {
		t.Fatalf("the shadow repository outlived its conversation: %v", err)
	}
	if items, err := h.store.AuxList(c.ID, ""); err != nil || len(items) != 0 {
		t.Fatalf("the queue, instructions or checkpoint records outlived their conversation: %+v %v", items, err)
	}
}

// A command that changes nothing (true, ls, git status, go test) costs no git process in
// the steady state: the checkpoint repository's change detector tells that the tree is as it
// was. A change is still recorded, and a conversation that leaves memory gives its inotify
// instance back.
func TestReadOnlyToolRoundsRunNoGit(t *testing.T) {
	needGit(t)
	unwatched := make(chan string, 10)
	var passivated <-chan string
	h := newHarness(t, func(c *Config) {
		c.Passivation = Passivation{IdleAfter: -1, MaxResident: 1}
		passivated = passivations(c)
		c.checkpointsUnwatched = func(id string) { unwatched <- id }
	})
	ctx := context.Background()
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "a\n")
	c := h.create(NewConversation{Unrestricted: true})
	h.rt.bg.Wait()
	h.turn(c.ID, "bash: true")
	h.rt.ckpts.mu.Lock()
	repo := h.rt.ckpts.repos[c.ID]
	h.rt.ckpts.mu.Unlock()
	if repo == nil || !repo.Watching() {
		t.Fatal("the conversation's checkpoint repository does not watch its tree")
	}
	runs := repo.GitRuns()
	h.turn(c.ID, "bash: ls && cat a.txt")
	h.turn(c.ID, "bash: true")
	if n := repo.GitRuns() - runs; n != 0 {
		t.Fatalf("two read-only bash rounds ran git %d times", n)
	}
	h.turn(c.ID, "bash: echo b > b.txt")
	cps, err := h.rt.Checkpoints(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	last := cps[len(cps)-1]
	if len(cps) != 4 || !last.Complete() || len(last.Files) != 1 || last.Files[0] != (FileChange{Path: "b.txt", Status: checkpoint.Added}) {
		t.Fatalf("checkpoints %+v", cps)
	}
	if ro := cps[1]; !ro.Complete() || ro.Before != ro.After || !ro.ChangedNothing() {
		t.Fatalf("the checkpoint of a read-only call: %+v", ro)
	}

	// Another conversation pushes this one out of memory (one resident at most).
	other := h.create(NewConversation{})
	h.turn(other.ID, "echo: hi")
	waitPassivated(t, passivated, c.ID)
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for waiting := true; waiting; {
		select {
		case id := <-unwatched:
			waiting = id != c.ID
		case <-timeout.C:
			t.Fatal("the passivated conversation's actor did not stop")
		}
	}
	if repo.Watching() {
		t.Fatal("a passivated conversation keeps watching its tree")
	}
	// An Undo planned while it is out of memory does not start the detector again.
	if _, err := h.rt.PlanRestore(ctx, c.ID, RestoreUndo, last.ID); err != nil {
		t.Fatal(err)
	}
	if repo.Watching() {
		t.Fatal("planning an Undo started the change detector")
	}
	// Its next tool call does, and sees what changed meanwhile.
	writeFile(t, filepath.Join(h.cwd, "a.txt"), "changed while out of memory\n")
	h.turn(c.ID, "bash: echo c > b.txt")
	cps, _ = h.rt.Checkpoints(ctx, c.ID)
	last = cps[len(cps)-1]
	if len(last.Files) != 1 || last.Files[0] != (FileChange{Path: "b.txt", Status: checkpoint.Modified}) || !repo.Watching() {
		t.Fatalf("after coming back: %+v, watching %v", last, repo.Watching())
	}
	h.close()
	if repo.Watching() {
		t.Fatal("the change detector outlived the runtime")
	}
}

// A call's checkpoint is completed after its result is sent; the next call's checkpoint waits
// for it, so back-to-back calls in one turn each own exactly what they changed.
func TestBackToBackCallsKeepTheirOwnChanges(t *testing.T) {
	needGit(t)
	// Each completion waits until the next call either waits for it (as it must) or has run
	// its tool (a bug: the completion would then take that call's file for its own), or the
	// turn has ended.
	waited, ran, ended := make(chan struct{}, 100), make(chan struct{}, 100), make(chan struct{})
	h := newHarness(t, func(c *Config) {
		c.checkpointWaited = func(string) { waited <- struct{}{} }
		c.checkpointCompleting = func(string) {
			select {
			case <-waited:
			case <-ran:
			case <-ended:
			}
		}
		c.Tools = signallingTools{inner: c.Tools, ran: ran, runs: new(atomic.Int32)}
	})
	c := h.create(NewConversation{Unrestricted: true})
	var script strings.Builder
	const calls = 6
	for i := range calls {
		fmt.Fprintf(&script, "bash: echo %d > f%d.txt\n", i, i)
	}
	h.turn(c.ID, script.String())
	close(ended)
	cps, err := h.rt.Checkpoints(context.Background(), c.ID)
	if err != nil || len(cps) != calls {
		t.Fatalf("%d checkpoints, %v", len(cps), err)
	}
	for i, cp := range cps {
		want := FileChange{Path: fmt.Sprintf("f%d.txt", i), Status: checkpoint.Added}
		if !cp.Complete() || len(cp.Files) != 1 || cp.Files[0] != want {
			t.Errorf("checkpoint %d: %+v, want only %+v", i, cp, want)
		}
	}
}

// signallingTools reports each tool run after the first, once it has run.
type signallingTools struct {
	inner ToolRunner
	ran   chan struct{}
	runs  *atomic.Int32
}

func (s signallingTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	out := s.inner.Run(ctx, env, call)
	if s.runs.Add(1) > 1 {
		s.ran <- struct{}{}
	}
	return out
}

// Only the conversations that took a checkpoint most recently keep their change detector
// (each costs an inotify instance, of which a person has 128 for all their programs); the
// others run git once on their next call and watch again.
func TestCheckpointWatchersAreCapped(t *testing.T) {
	needGit(t)
	defer func(n int) { maxCheckpointWatchers = n }(maxCheckpointWatchers)
	maxCheckpointWatchers = 2
	h := newHarness(t)
	repoOf := func(id string) *checkpoint.Repo {
		h.rt.ckpts.mu.Lock()
		defer h.rt.ckpts.mu.Unlock()
		return h.rt.ckpts.repos[id]
	}
	var ids []string
	for range 3 {
		c := h.create(NewConversation{Unrestricted: true})
		h.turn(c.ID, "bash: true")
		ids = append(ids, c.ID)
	}
	if repoOf(ids[0]).Watching() || !repoOf(ids[1]).Watching() || !repoOf(ids[2]).Watching() {
		t.Fatalf("watching: %v %v %v, want only the two most recent", repoOf(ids[0]).Watching(), repoOf(ids[1]).Watching(), repoOf(ids[2]).Watching())
	}
	writeFile(t, filepath.Join(h.cwd, "x.txt"), "changed while not watched\n")
	h.turn(ids[0], "bash: echo y > y.txt")
	cps, err := h.rt.Checkpoints(context.Background(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	last := cps[len(cps)-1]
	if len(last.Files) != 1 || last.Files[0].Path != "y.txt" || !repoOf(ids[0]).Watching() || repoOf(ids[1]).Watching() {
		t.Fatalf("the first conversation's next call: %+v; watching %v %v", last, repoOf(ids[0]).Watching(), repoOf(ids[1]).Watching())
	}
}

// stoppableTools runs every call normally, except that a call whose command holds
// "slow-stop" writes its file only after it is released, ignoring the cancel meanwhile: a
// command that changes a file while Stop is killing it.
type stoppableTools struct {
	inner    ToolRunner
	started  chan struct{}
	release  chan struct{}
	lateFile string
}

func (s *stoppableTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	if !strings.Contains(call.Arguments, "slow-stop") {
		return s.inner.Run(ctx, env, call)
	}
	s.started <- struct{}{}
	<-s.release
	_ = os.WriteFile(s.lateFile, []byte("written while stopping\n"), 0o644)
	return tools.Output{Content: "stopped"}
}

// A stopped call may still be ending (and changing files) when the conversation is at rest
// again: the next call's checkpoint waits for the stopped one's, so each keeps its own files.
func TestStoppedCallKeepsItsChangesFromTheNextCall(t *testing.T) {
	needGit(t)
	st := &stoppableTools{started: make(chan struct{}, 1), release: make(chan struct{})}
	waited := make(chan string, 10)
	h := newHarness(t, func(c *Config) {
		c.checkpointWaited = func(id string) { waited <- id }
		st.inner = c.Tools
		c.Tools = st
	})
	// Set before any call runs (the send below orders it).
	st.lateFile = filepath.Join(h.cwd, "late.txt")
	c := h.create(NewConversation{Unrestricted: true})
	h.send(c.ID, "bash: echo slow-stop")
	<-st.started
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitRest(c.ID)
	// The next turn's call waits for the stopped one, which is still running.
	h.send(c.ID, "bash: echo next > next.txt")
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		t.Fatal("the next call's checkpoint did not wait for the stopped call")
	}
	close(st.release)
	h.waitRest(c.ID)
	cps, err := h.rt.Checkpoints(context.Background(), c.ID)
	if err != nil || len(cps) != 2 {
		t.Fatalf("%d checkpoints, %v", len(cps), err)
	}
	if f := cps[0].Files; len(f) != 1 || f[0].Path != "late.txt" {
		t.Errorf("the stopped call's checkpoint has %+v, want late.txt alone", f)
	}
	if f := cps[1].Files; len(f) != 1 || f[0].Path != "next.txt" {
		t.Errorf("the next call's checkpoint has %+v, want next.txt alone", f)
	}
}

// cancelLateTools runs every call normally, except that a call whose command holds
// "late-write" writes lateFile once it is cancelled and only then ends: a command that
// changes a file while it is being killed.
type cancelLateTools struct {
	inner    ToolRunner
	started  chan struct{}
	lateFile string
}

func (s *cancelLateTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	if !strings.Contains(call.Arguments, "late-write") {
		return s.inner.Run(ctx, env, call)
	}
	close(s.started)
	<-ctx.Done()
	_ = os.WriteFile(s.lateFile, []byte("written while stopping\n"), 0o644)
	return tools.Output{Content: "stopped"}
}

// Shutdown stops a running call and returns only once that call has completed its
// checkpoint: the snapshot writes into the data directory, which the app closes after
// Shutdown (and a test removes). Before, Shutdown left the stopped call's goroutine to
// snapshot the tree and save the checkpoint later, into a closed store, or to make the
// shadow repository while the directory was being removed (a flake of
// TestPassivationSparesBusyConversations: "TempDir RemoveAll cleanup: directory not empty").
func TestShutdownWaitsForTheCheckpointOfACallItStopped(t *testing.T) {
	needGit(t)
	ct := &cancelLateTools{started: make(chan struct{})}
	h := newHarness(t, func(c *Config) {
		ct.inner = c.Tools
		c.Tools = ct
	})
	// Set before any call runs (the send below orders it).
	ct.lateFile = filepath.Join(h.cwd, "late.txt")
	c := h.create(NewConversation{Unrestricted: true})
	h.send(c.ID, "bash: echo late-write")
	<-ct.started
	h.rt.Shutdown()
	h.rt.ckpts.mu.Lock()
	calls, pending := len(h.rt.ckpts.calls), len(h.rt.ckpts.afterPending)
	h.rt.ckpts.mu.Unlock()
	if calls != 0 || pending != 0 {
		t.Fatalf("Shutdown returned with %d calls still taking their checkpoint and %d completing one", calls, pending)
	}
	cps, err := h.rt.Checkpoints(context.Background(), c.ID)
	if err != nil || len(cps) != 1 {
		t.Fatalf("%d checkpoints, %v", len(cps), err)
	}
	if f := cps[0].Files; len(f) != 1 || f[0].Path != "late.txt" {
		t.Errorf("the stopped call's checkpoint has %+v, want late.txt", f)
	}
}

// A Rewind's notice quotes the start of the message it goes back before: one line, cut.
func TestQuoteStart(t *testing.T) {
	long := strings.Repeat("word ", 20)
	for in, want := range map[string]string{
		"":                "",
		"  fix the bug  ": "“fix the bug”",
		"first\nsecond":   "“first…”",
		long:              "“" + strings.TrimSpace(long[:quoteRunes]) + "…”",
	} {
		if got := quoteStart(in); got != want {
			t.Errorf("quoteStart(%q) = %q, want %q", in, got, want)
		}
	}
}
