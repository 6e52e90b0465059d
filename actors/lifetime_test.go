package actors

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/search"
)

func (h *harness) waitDeleted(id string) {
	h.t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			if d, ok := ev.(ConversationDeleted); ok && d.ConvID == id {
				return
			}
		case <-timeout.C:
			h.t.Fatalf("no ConversationDeleted for %s", id)
		}
	}
}

func TestDeleteRemovesEverythingAndKeepsSharedImages(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	a := h.create(NewConversation{})
	b := h.create(NewConversation{})
	shared := pngBytes(t, 40, 30)
	for _, c := range []domain.Conversation{a, b} {
		if err := h.rt.Send(ctx, c.ID, "look", []Attachment{{Name: "shot.png", Data: shared}}); err != nil {
			t.Fatal(err)
		}
		h.waitRest(c.ID)
	}
	only := pngBytes(t, 20, 10)
	if err := h.rt.Send(ctx, a.ID, "and this", []Attachment{{Name: "mine.png", Data: only}}); err != nil {
		t.Fatal(err)
	}
	h.waitRest(a.ID)
	msgs := h.history(a.ID)
	sharedSHA, onlySHA := msgs[0].Images[0].SHA256, lastOf(msgs, domain.KindUser).Images[0].SHA256

	if err := h.rt.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	h.waitDeleted(a.ID)
	if _, err := h.store.Get(a.ID); !isNotFound(err) {
		t.Fatalf("conversation still stored: %v", err)
	}
	if _, err := h.store.Blob(onlySHA); !isNotFound(err) {
		t.Fatalf("an image only the deleted conversation used is still stored: %v", err)
	}
	if _, err := h.store.Blob(sharedSHA); err != nil {
		t.Fatalf("an image another conversation uses was deleted: %v", err)
	}
	list, err := h.rt.List(ctx, true)
	if err != nil || len(list) != 1 || list[0].ID != b.ID {
		t.Fatalf("list after delete = %+v, %v", list, err)
	}
	// Commands for it now say it does not exist, and a second delete too.
	if err := h.rt.Send(ctx, a.ID, "hello?", nil); err == nil {
		t.Fatal("a deleted conversation accepted a message")
	}
	if err := h.rt.Delete(ctx, a.ID); !isNotFound(err) {
		t.Fatalf("second delete: %v", err)
	}
}

// waitProcesses waits until at least n processes' command lines match the regular expression
// pattern, and returns them.
func waitProcesses(t *testing.T, pattern string, n int) []int {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		out, _ := exec.Command("pgrep", "-f", pattern).Output()
		var pids []int
		for _, f := range strings.Fields(string(out)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		if len(pids) >= n {
			return pids
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("%d processes matching %q, want %d", len(pids), pattern, n)
		}
	}
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, persistence.ErrNotFound) }

func TestDeleteStopsARunningConversationAndItsSubAgents(t *testing.T) {
	h := newHarness(t)
	c := h.create(NewConversation{Unrestricted: true})
	// A duration no other process uses names these commands' processes.
	marker := fmt.Sprintf("60.%d", time.Now().UnixNano()%100000)
	h.send(c.ID, fmt.Sprintf("agents: bash: sleep %s | bash: sleep %s", marker, marker))
	// Wait until a sub-agent runs its command.
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for running := false; !running; {
		select {
		case ev := <-h.sub.Events():
			sc, ok := ev.(StateChanged)
			running = ok && sc.Conv.ParentID == c.ID && sc.Conv.State.Kind() == domain.StateToolExecuting
		case <-timeout.C:
			t.Fatal("no sub-agent started its command")
		}
	}
	subs, err := h.store.Children(c.ID)
	if err != nil || len(subs) == 0 {
		t.Fatalf("sub-agents = %v, %v", subs, err)
	}
	// Both commands run before the delete, so the check below is about their trees dying.
	sleeps := waitProcesses(t, "^sleep "+regexp.QuoteMeta(marker)+"$", 2)
	trees := waitProcesses(t, regexp.QuoteMeta(marker), len(sleeps))
	if err := h.rt.Delete(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitDeleted(c.ID)
	// The delete stopped the work rather than waiting for it: sleep 60 would outlive this.
	if left := mcptest.WaitExited(trees, 10*time.Second); len(left) > 0 {
		t.Fatalf("processes of the deleted conversation still run: %v", left)
	}
	for _, s := range append(subs, c) {
		if _, err := h.store.Get(s.ID); !isNotFound(err) {
			t.Fatalf("%s still stored: %v", s.ID, err)
		}
	}
	if n, err := h.rt.Resident(context.Background()); err != nil || n != 0 {
		t.Fatalf("resident actors after delete = %d, %v", n, err)
	}
}

func TestDeleteRefusesSubAgentsAndUnknownIDs(t *testing.T) {
	h := newHarness(t)
	if err := h.rt.Delete(context.Background(), "no-such"); !isNotFound(err) {
		t.Fatalf("unknown id: %v", err)
	}
	c := h.create(NewConversation{})
	h.turn(c.ID, "agents: echo: hi")
	subs, err := h.store.Children(c.ID)
	if err != nil || len(subs) != 1 {
		t.Fatalf("sub-agents = %v, %v", subs, err)
	}
	if err := h.rt.Delete(context.Background(), subs[0].ID); err == nil {
		t.Fatal("a sub-agent was deleted on its own")
	}
}

// A conversation passivated mid-session comes back identical: same record, same history,
// and it takes the next message as if it had never gone.
func TestPassivatedConversationComesBackIdentical(t *testing.T) {
	var passivated <-chan string
	h := newHarness(t, func(c *Config) {
		c.Passivation = Passivation{IdleAfter: -1, MaxResident: 1}
		passivated = passivations(c)
	})
	ctx := context.Background()
	a := h.create(NewConversation{})
	h.turn(a.ID, "echo: first")
	before, beforeMsgs, err := h.store.Load(a.ID)
	if err != nil {
		t.Fatal(err)
	}
	b := h.create(NewConversation{})
	h.turn(b.ID, "echo: other")
	// Using b passivated a (the cap is one).
	waitPassivated(t, passivated, a.ID)
	if n := resident(t, h); n != 1 {
		t.Fatalf("resident actors = %d, want 1", n)
	}
	snap, err := h.rt.Snapshot(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snap.Conv, before) || !reflect.DeepEqual(snap.Messages, beforeMsgs) {
		t.Fatalf("passivated conversation changed:\n%+v\n%+v", snap.Conv, before)
	}
	after := h.turn(a.ID, "echo: second")
	if after.State.Kind() != domain.StateIdle || after.NextSeq != before.NextSeq+2 {
		t.Fatalf("after coming back: %s, next seq %d (was %d)", after.State.Kind(), after.NextSeq, before.NextSeq)
	}
	mustContain(t, lastOf(h.history(a.ID), domain.KindAssistant).Text, "second")
	waitPassivated(t, passivated, b.ID)
}

func TestPassivationSparesBusyConversations(t *testing.T) {
	var passivated <-chan string
	h := newHarness(t, func(c *Config) {
		c.Passivation = Passivation{IdleAfter: time.Millisecond, MaxResident: -1}
		passivated = passivations(c)
	})
	a := h.create(NewConversation{Unrestricted: true})
	h.send(a.ID, "bash: sleep 60")
	h.waitState(a.ID, domain.StateToolExecuting)
	// a was at rest between its creation and the send, and may have gone then (after 1 ms):
	// the send brought it back, and that was no passivation of a busy conversation. The
	// manager reported it before it routed the send, so it has been reported by now; a
	// passivation after the send would have stopped the turn short of running its tool.
	forgetPassivations(passivated)
	// Idle ticks keep coming while the tool runs: b, at rest, goes; a must stay to be
	// cancelled.
	b := h.create(NewConversation{})
	h.turn(b.ID, "echo: x")
	waitPassivatedNot(t, passivated, b.ID, a.ID)
	// Ticks came after b went too: a still must not have gone.
	refuseNowPassivated(t, passivated, a.ID)
	if err := h.rt.Cancel(context.Background(), a.ID); err != nil {
		t.Fatal(err)
	}
	if c := h.waitRest(a.ID); c.State.Kind() != domain.StateIdle {
		t.Fatalf("after cancel: %s", c.State.Kind())
	}
	// A passivated a would have been reloaded by Cancel and its tool answered by restart
	// recovery (interrupted); the actor that kept running answers the Stop (cancelled).
	if res := results(h.history(a.ID)); len(res) != 1 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("tool results of the busy conversation = %+v, want one cancelled", res)
	}
	waitPassivated(t, passivated, a.ID)
}

// passivations reports every passivation on a channel (Config.passivated).
func passivations(c *Config) <-chan string {
	ch := make(chan string, 100)
	c.passivated = func(id string) { ch <- id }
	return ch
}

func waitPassivated(t *testing.T, ch <-chan string, id string) {
	t.Helper()
	waitPassivatedNot(t, ch, id, "")
}

// waitPassivatedNot waits until id is passivated and fails if busy (when not empty) is
// passivated first.
func waitPassivatedNot(t *testing.T, ch <-chan string, id, busy string) {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case got := <-ch:
			if busy != "" && got == busy {
				t.Fatalf("busy conversation %s was passivated", busy)
			}
			if got == id {
				return
			}
		case <-timeout.C:
			t.Fatalf("conversation %s was not passivated", id)
		}
	}
}

// forgetPassivations drops the passivations reported so far.
func forgetPassivations(ch <-chan string) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// refuseNowPassivated fails if busy is among the passivations reported so far.
func refuseNowPassivated(t *testing.T, ch <-chan string, busy string) {
	t.Helper()
	for {
		select {
		case got := <-ch:
			if got == busy {
				t.Fatalf("busy conversation %s was passivated", busy)
			}
		default:
			return
		}
	}
}

func resident(t *testing.T, h *harness) int {
	t.Helper()
	n, err := h.rt.Resident(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openIndex opens a search index over the harness's store, closed when the test ends (after
// the runtime's Shutdown, as in the app).
func openIndex(t *testing.T, c *Config) *search.Index {
	x, err := search.Open(filepath.Join(t.TempDir(), "idx"), c.Store.(*persistence.Store), search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = x.Close() })
	return x
}

// recordingIndex is a search index that records what the runtime told it.
type recordingIndex struct {
	*search.Index
	mu       sync.Mutex
	notified map[string]int
	removed  []string
}

func (r *recordingIndex) Notify(id string) {
	r.mu.Lock()
	r.notified[id]++
	r.mu.Unlock()
	r.Index.Notify(id)
}

func (r *recordingIndex) Remove(id string) error {
	r.mu.Lock()
	r.removed = append(r.removed, id)
	r.mu.Unlock()
	return r.Index.Remove(id)
}

func TestSearchFollowsCommitsAndDeletes(t *testing.T) {
	var idx *recordingIndex
	h := newHarness(t, func(c *Config) {
		idx = &recordingIndex{Index: openIndex(t, c), notified: map[string]int{}}
		c.Search = idx
	})
	ctx := context.Background()
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: the flamingo report")
	if err := idx.Sync(); err != nil {
		t.Fatal(err)
	}
	res, err := h.rt.Search(ctx, SearchQuery{Text: "flamingo"})
	if err != nil || len(res.Hits) != 2 {
		t.Fatalf("search = %+v, %v", res, err)
	}
	idx.mu.Lock()
	n := idx.notified[c.ID]
	idx.mu.Unlock()
	if n == 0 {
		t.Fatal("the index was not told of the commits")
	}
	if err := h.rt.Delete(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitDeleted(c.ID)
	res, err = h.rt.Search(ctx, SearchQuery{Text: "flamingo"})
	if err != nil || len(res.Hits) != 0 {
		t.Fatalf("search after delete = %+v, %v", res, err)
	}
	idx.mu.Lock()
	defer idx.mu.Unlock()
	if len(idx.removed) != 1 || idx.removed[0] != c.ID {
		t.Fatalf("removed = %v", idx.removed)
	}
}

// blockingIndex is a search index whose Remove waits until released.
type blockingIndex struct {
	*search.Index
	entered, release chan struct{}
}

func (b *blockingIndex) Remove(id string) error {
	close(b.entered)
	<-b.release
	return b.Index.Remove(id)
}

// A quit while a delete is still removing the conversation waits for it: the delete's reply
// and ConversationDeleted are not lost, and the index is not closed under it.
func TestShutdownWaitsForARunningDelete(t *testing.T) {
	var idx *blockingIndex
	h := newHarness(t, func(c *Config) {
		idx = &blockingIndex{Index: openIndex(t, c), entered: make(chan struct{}), release: make(chan struct{})}
		c.Search = idx
	})
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: x")
	deleted := make(chan error, 1)
	go func() { deleted <- h.rt.Delete(context.Background(), c.ID) }()
	<-idx.entered
	done := make(chan struct{})
	go func() {
		h.rt.Shutdown()
		close(done)
	}()
	// With the delete held, Shutdown must not return. Correct code never returns here, so
	// this window only gives a Shutdown that does not wait the time to show it (it needs
	// milliseconds); it cannot make a correct run fail.
	select {
	case <-done:
		t.Fatal("Shutdown returned while a delete was still running")
	case <-time.After(500 * time.Millisecond):
	}
	close(idx.release)
	<-done
	if err := <-deleted; err != nil {
		t.Fatalf("delete: %v", err)
	}
	h.waitDeleted(c.ID)
}

// explodingStore panics when asked for the conversation "explode", from the manager's
// goroutine, so the manager restarts.
type explodingStore struct{ *persistence.Store }

func (s explodingStore) Get(id string) (domain.Conversation, error) {
	if id == "explode" {
		panic("store exploded")
	}
	return s.Store.Get(id)
}

// passivationTickers counts the running passivation ticker goroutines.
func passivationTickers() int {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	// One stack per goroutine (debug 2); the ticker is the goroutine's own function, not the
	// "created by" line.
	return strings.Count(b.String(), "actors.(*managerActor).startTicker.func1()")
}

// A restarted manager runs one passivation ticker, not one per incarnation.
func TestManagerRestartKeepsOnePassivationTicker(t *testing.T) {
	h := newHarness(t, func(c *Config) {
		c.Passivation = Passivation{IdleAfter: time.Hour, MaxResident: -1}
		c.Store = explodingStore{c.Store.(*persistence.Store)}
	})
	waitPassivationTickers(t, "before the restart", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := h.rt.Delete(ctx, "explode"); err == nil {
		t.Fatal("a delete whose store lookup panicked succeeded")
	}
	// The manager works again after its restart.
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: after the restart")
	waitPassivationTickers(t, "after a manager restart", 1)
}

// waitPassivationTickers waits until want passivation tickers run (they start and end on
// their own goroutines).
func waitPassivationTickers(t *testing.T, when string, want int) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for n := passivationTickers(); n != want; n = passivationTickers() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatalf("passivation tickers %s = %d, want %d", when, n, want)
		}
	}
}
