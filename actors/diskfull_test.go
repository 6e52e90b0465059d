package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/tools"
)

// fullStore stands a full disk in front of the real store: while full is set, every commit
// and Space fail as the store fails on a full disk.
type fullStore struct {
	*persistence.Store
	full atomic.Bool
}

func (s *fullStore) err() error {
	return &persistence.DiskFullError{Dir: s.Dir(), Free: 0, Need: persistence.DefaultReserve}
}

func (s *fullStore) Commit(c domain.Conversation, msgs []domain.Message) (domain.Conversation, []domain.Message, error) {
	if s.full.Load() {
		return domain.Conversation{}, nil, s.err()
	}
	return s.Store.Commit(c, msgs)
}

func (s *fullStore) Space() error {
	if s.full.Load() {
		return s.err()
	}
	return s.Store.Space()
}

// blockingTools holds a bash call until released.
type blockingTools struct {
	inner            ToolRunner
	started, release chan struct{}
}

func (b blockingTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	b.started <- struct{}{}
	<-b.release
	return b.inner.Run(ctx, env, call)
}

// TestDiskFullDuringTurnWaitsAndRecovers fills the disk while a tool runs: its result cannot
// be committed. The actor does not crash or restart in a loop; the person is told in the
// banner's words; the committed message is kept; and once the disk has room the conversation
// comes to rest by itself, the interrupted call answered, and takes a new message.
func TestDiskFullDuringTurnWaitsAndRecovers(t *testing.T) {
	var fs *fullStore
	bt := blockingTools{inner: tools.NewRegistry(), started: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, func(c *Config) {
		fs = &fullStore{Store: c.Store.(*persistence.Store)}
		c.Store = fs
		c.Tools = bt
	})
	c := h.create(NewConversation{})
	h.send(c.ID, "bash: echo hi")
	<-bt.started
	fs.full.Store(true)
	close(bt.release)

	var notice Notice
	for notice.Text == "" {
		if n, ok := (<-h.sub.Events()).(Notice); ok && n.ConvID == c.ID {
			notice = n
		}
	}
	mustContain(t, notice.Text, "The disk holding your conversations is full: free")
	if err := h.rt.DiskSpace(); !errors.Is(err, persistence.ErrDiskFull) {
		t.Fatalf("DiskSpace on a full disk: %v", err)
	}
	if err := h.rt.Send(context.Background(), c.ID, "more", nil); !errors.Is(err, domain.ErrAgentBusy) && !errors.Is(err, persistence.ErrDiskFull) {
		t.Fatalf("Send while the interrupted turn waits for room: %v", err)
	}

	fs.full.Store(false)
	rest := h.waitRest(c.ID)
	if rest.State.Kind() != domain.StateIdle {
		t.Fatalf("after room returned: %s, want idle", rest.State.Kind())
	}
	hist := h.history(c.ID)
	if lastOf(hist, domain.KindUser).Text != "bash: echo hi" {
		t.Fatal("the person's message was lost")
	}
	if r := results(hist); len(r) != 1 || r[0].Outcome == domain.OutcomeSuccess {
		t.Fatalf("the interrupted call is answered as interrupted: %+v", r)
	}
	// The turn says it was not answered, and why; Retry sends the message again.
	last := hist[len(hist)-1]
	mustContain(t, last.Text, "Not answered: the app stopped while the agent's tools ran (the disk was full)")
	if m, ok := InterruptedTurn(hist); !ok || m.Text != "bash: echo hi" {
		t.Fatalf("InterruptedTurn = %+v, %t; want the person's message", m, ok)
	}
	if err := h.rt.Retry(context.Background(), c.ID); err != nil {
		t.Fatalf("Retry: %v", err)
	}
	<-bt.started
	h.waitRest(c.ID)
	hist = h.history(c.ID)
	if users := kinds(hist, domain.KindUser); len(users) != 2 || users[1].Text != "bash: echo hi" {
		t.Fatalf("after Retry the person's messages are %+v; want the interrupted one sent again", users)
	}
	if _, ok := InterruptedTurn(hist); ok {
		t.Fatal("after a retry that was answered the turn still reads as interrupted")
	}
	if err := h.rt.Retry(context.Background(), c.ID); !errors.Is(err, ErrNothingToRetry) {
		t.Fatalf("Retry of an answered turn: %v; want ErrNothingToRetry", err)
	}
	h.turn(c.ID, "after the disk had room")
}

// kinds returns the messages of one kind.
func kinds(msgs []domain.Message, k domain.MessageKind) []domain.Message {
	var out []domain.Message
	for _, m := range msgs {
		if m.Kind == k {
			out = append(out, m)
		}
	}
	return out
}

// TestFullDiskRefusesCheckpointsAndTempDirs (issue 25 item 4): on a disk that is short no
// checkpoint repository is made and no temp dir either. Without room for its checkpoint a
// call runs and the person is told, in the banner's words, that it cannot be undone; without
// its temp dir a command does not run at all. Once there is room both work again.
func TestFullDiskRefusesCheckpointsAndTempDirs(t *testing.T) {
	var full atomic.Int32 // 0: room; 1: the checkpoints' disk is full; 2: every disk is
	var tempParent string
	h := newHarness(t, func(c *Config) {
		tempParent = filepath.Dir(c.TempRoot)
		c.SpaceCheck = func(dir string, need int64) error {
			if f := full.Load(); f == 2 || (f == 1 && dir != tempParent) {
				return &persistence.DiskFullError{Dir: dir, Free: 0, Need: persistence.DefaultReserve + need}
			}
			return nil
		}
	})
	full.Store(1)
	c := h.create(NewConversation{Unrestricted: true})
	h.send(c.ID, "bash: echo one > a.txt")
	var notice Notice
	for notice.Text == "" {
		if n, ok := (<-h.sub.Events()).(Notice); ok && n.ConvID == c.ID {
			notice = n
		}
	}
	mustContain(t, notice.Text, "No checkpoint was taken before this bash call")
	mustContain(t, notice.Text, "The disk holding your conversations is full: free")
	h.waitRest(c.ID)
	if got := readFile(t, filepath.Join(h.cwd, "a.txt")); got != "one\n" {
		t.Fatalf("a.txt = %q; the call runs without its checkpoint", got)
	}
	if cps, err := h.rt.Checkpoints(context.Background(), c.ID); err != nil || len(cps) != 0 {
		t.Fatalf("checkpoints on a full disk: %+v, %v", cps, err)
	}

	// A conversation whose temp dir is not made yet runs no command while the disk is full.
	full.Store(2)
	c2 := h.create(NewConversation{Unrestricted: true})
	h.turn(c2.ID, "bash: echo two > b.txt")
	if r := results(h.history(c2.ID)); len(r) != 1 || r[0].Outcome == domain.OutcomeSuccess ||
		!strings.Contains(r[0].Content, "The disk holding your conversations is full") {
		t.Fatalf("the command without its temp dir: %+v; want it refused with the disk's words", r)
	}
	if _, err := os.Stat(filepath.Join(h.cwd, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran without its temp dir: %v", err)
	}

	full.Store(0)
	h.turn(c2.ID, "bash: echo two > b.txt")
	h.turn(c.ID, "bash: echo three > a.txt")
	if cps, err := h.rt.Checkpoints(context.Background(), c.ID); err != nil || len(cps) != 1 || !cps[0].Complete() {
		t.Fatalf("checkpoints once there is room: %+v, %v", cps, err)
	}
	if got := readFile(t, filepath.Join(h.cwd, "b.txt")); got != "two\n" {
		t.Fatalf("b.txt = %q once there is room", got)
	}
}

func TestCommitFailureTextOnAFullDiskIsShort(t *testing.T) {
	full := &persistence.DiskFullError{Dir: "/data", Free: 1 << 20, Need: 300 << 20}
	got := commitFailureText(fmt.Errorf("commit c1: %w", full))
	if want := "Could not save the conversation: " + full.Banner() + "."; got != want {
		t.Fatalf("commitFailureText = %q, want %q", got, want)
	}
}

// ctxBlockingTools holds a call until its context ends (Stop), then says so.
type ctxBlockingTools struct{ started chan struct{} }

func (b ctxBlockingTools) Run(ctx context.Context, _ tools.Env, call domain.ToolCall) tools.Output {
	b.started <- struct{}{}
	<-ctx.Done()
	return tools.Output{Outcome: domain.OutcomeCancelled, Content: "cancelled"}
}

// panicLog records whether the runtime logged an actor's panic.
type panicLog struct {
	slog.Handler
	panicked *atomic.Bool
}

func (h panicLog) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "panicked") {
		h.panicked.Store(true)
	}
	return h.Handler.Handle(ctx, r)
}

func (h panicLog) WithAttrs(as []slog.Attr) slog.Handler {
	return panicLog{Handler: h.Handler.WithAttrs(as), panicked: h.panicked}
}
func (h panicLog) WithGroup(name string) slog.Handler {
	return panicLog{Handler: h.Handler.WithGroup(name), panicked: h.panicked}
}

// Issue 33: Stop while the disk is full cannot save the turn's end. The actor does not panic
// and restart (applyPendingStop committing on the full disk did): it says the disk is full
// (DiskFullHold, which a headless chat ends on), holds, drops the stopped tool's late result,
// and comes to rest by itself once there is room, the call answered as interrupted.
func TestStopOnAFullDiskHoldsWithoutAPanic(t *testing.T) {
	var fs *fullStore
	var panicked atomic.Bool
	bt := ctxBlockingTools{started: make(chan struct{}, 1)}
	h := newHarness(t, func(c *Config) {
		fs = &fullStore{Store: c.Store.(*persistence.Store)}
		c.Store = fs
		c.Tools = bt
		c.Logger = slog.New(panicLog{Handler: c.Logger.Handler(), panicked: &panicked})
	})
	c := h.create(NewConversation{})
	h.send(c.ID, "bash: echo hi")
	<-bt.started
	fs.full.Store(true)
	if err := h.rt.Cancel(context.Background(), c.ID); !errors.Is(err, persistence.ErrDiskFull) {
		t.Fatalf("Stop on a full disk: %v; want the disk-full error", err)
	}
	var held bool
	for !held {
		switch ev := (<-h.sub.Events()).(type) {
		case DiskFullHold:
			held = ev.ConvID == c.ID && errors.Is(ev.Err, persistence.ErrDiskFull)
		case Notice:
			if ev.ConvID == c.ID && strings.Contains(ev.Text, "internal error") {
				t.Fatalf("the Stop on a full disk restarted the actor: %s", ev.Text)
			}
		}
	}
	fs.full.Store(false)
	// Stop again, now that there is room (or the retry brought it to rest first): either
	// way it rests, and the next turn's results are not dropped as the held turn's were.
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil && !errors.Is(err, domain.ErrNothingToStop) {
		t.Fatalf("Stop once there is room: %v", err)
	}
	rest := h.waitRest(c.ID)
	if rest.State.Kind() != domain.StateIdle {
		t.Fatalf("after room returned: %s, want idle", rest.State.Kind())
	}
	if panicked.Load() {
		t.Fatal("the conversation actor panicked on the way")
	}
	hist := h.history(c.ID)
	if r := results(hist); len(r) != 1 || r[0].Outcome == domain.OutcomeSuccess || r[0].Content == "cancelled" {
		t.Fatalf("the stopped call is answered as interrupted, not with its late result: %+v", r)
	}
	if rest := h.turn(c.ID, "echo: after the disk had room"); rest.State.Kind() != domain.StateIdle ||
		lastOf(h.history(c.ID), domain.KindAssistant).Text != "after the disk had room" {
		t.Fatalf("the turn after room returned: %s, %q", rest.State.Kind(), lastOf(h.history(c.ID), domain.KindAssistant).Text)
	}
}
