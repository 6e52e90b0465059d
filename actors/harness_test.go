package actors

import (
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"

	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
	"github.com/phoenix-desktop/phoenix/persistence"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// TestMain lets the test binary serve as the sandbox helper (bash in Restricted mode is the
// binary re-executed), and checks that no test leaves a goroutine behind.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	mcptest.MaybeRunServer() // the test binary as the small MCP server (mcpask_test.go)
	goleak.VerifyTestMain(m)
}

// harness is a real runtime: real actors, a temporary Badger store, real tools and the fake
// OpenAI server over real HTTP.
type harness struct {
	t       testing.TB
	dir     string
	store   *persistence.Store
	srv     *fakellm.Server
	rt      *Runtime
	sub     *Subscription
	cwd     string
	cfg     Config
	stopped bool
}

type harnessOption func(*Config)

func withDeadline(d time.Duration) harnessOption {
	return func(c *Config) { c.SubAgentDeadline = d }
}

func withTools(r ToolRunner) harnessOption { return func(c *Config) { c.Tools = r } }

func newHarness(t testing.TB, opts ...harnessOption) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), cwd: t.TempDir()}
	srv, err := fakellm.Start()
	if err != nil {
		t.Fatal(err)
	}
	h.srv = srv
	t.Cleanup(srv.Close)
	h.open(opts...)
	t.Cleanup(h.close)
	return h
}

func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// open starts (or restarts) the runtime on the harness's data directory.
func (h *harness) open(opts ...harnessOption) {
	h.t.Helper()
	store, err := persistence.Open(h.dir, persistence.Options{Logger: quietLogger()})
	if err != nil {
		h.t.Fatal(err)
	}
	client, err := llm.New(llm.Config{BaseURL: h.srv.URL(), APIKey: "test", Model: domain.DemoModel}, store)
	if err != nil {
		h.t.Fatal(err)
	}
	cfg := Config{Store: store, LLM: client, Tools: tools.NewRegistry(), Sandbox: sandbox.Describe(),
		Logger: quietLogger(), DefaultModel: domain.DemoModel, TempRoot: filepath.Join(h.dir, "sandbox-tmp")}
	for _, o := range opts {
		o(&cfg)
	}
	rt, err := Start(cfg)
	if err != nil {
		h.t.Fatal(err)
	}
	h.store, h.rt, h.cfg, h.stopped = store, rt, cfg, false
	h.sub = rt.Subscribe()
}

func (h *harness) close() {
	if h.stopped {
		return
	}
	h.stopped = true
	h.sub.Close()
	h.rt.Shutdown()
	if err := h.store.Close(); err != nil {
		h.t.Errorf("close store: %v", err)
	}
}

// restart stops the runtime as the app does on exit and opens it again on the same data.
func (h *harness) restart() {
	h.close()
	h.open()
}

func (h *harness) create(p NewConversation) domain.Conversation {
	h.t.Helper()
	if p.Cwd == "" {
		p.Cwd = h.cwd
	}
	c, err := h.rt.Create(context.Background(), p)
	if err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (h *harness) send(id, text string) {
	h.t.Helper()
	if err := h.rt.Send(context.Background(), id, text, nil); err != nil {
		h.t.Fatalf("send %q: %v", text, err)
	}
}

// waitFor waits for a StateChanged of the conversation that satisfies ok, and returns it.
func (h *harness) waitFor(id string, what string, ok func(domain.Conversation) bool) domain.Conversation {
	h.t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			if sc, is := ev.(StateChanged); is && sc.Conv.ID == id && ok(sc.Conv) {
				return sc.Conv
			}
		case <-timeout.C:
			c, err := h.store.Get(id)
			h.t.Fatalf("timed out waiting for %s; conversation is %s (%v)", what, c.State.Kind(), err)
		}
	}
}

func (h *harness) waitRest(id string) domain.Conversation {
	h.t.Helper()
	return h.waitFor(id, "rest", func(c domain.Conversation) bool { return !domain.Busy(c.State) })
}

func (h *harness) waitState(id string, kind domain.StateKind) domain.Conversation {
	h.t.Helper()
	return h.waitFor(id, string(kind), func(c domain.Conversation) bool { return c.State.Kind() == kind })
}

// turn sends text and waits until the turn is at rest and its last call's checkpoint is
// complete. That completion runs off the round's path, and with the fake model a turn can
// end before it has; a person's edit right after the turn would then count as the call's.
// In use the model's reply takes far longer than the snapshot.
func (h *harness) turn(id, text string) domain.Conversation {
	h.t.Helper()
	h.send(id, text)
	c := h.waitRest(id)
	h.waitCheckpoint(id)
	return c
}

// freshTurn is turn for a conversation whose resting states from before the send may still
// be queued on the subscription: a restore, a model change, a worktree's removal and return
// publish their own, and turn would take the first of them for this turn's end. Only a rest
// of an execution started after the send counts.
func (h *harness) freshTurn(id, text string) domain.Conversation {
	h.t.Helper()
	before, err := h.store.Get(id)
	if err != nil {
		h.t.Fatal(err)
	}
	h.send(id, text)
	c := h.waitFor(id, "the end of the turn of "+strconv.Quote(text), func(c domain.Conversation) bool {
		return !domain.Busy(c.State) && c.LastExec > before.LastExec
	})
	h.waitCheckpoint(id)
	return c
}

// waitCheckpoint waits until the last call's checkpoint of the conversation is complete.
func (h *harness) waitCheckpoint(id string) {
	h.t.Helper()
	if err := h.rt.waitCheckpointAfter(context.Background(), id); err != nil {
		h.t.Fatal(err)
	}
}

// history loads the committed messages and checks they are valid for the API.
func (h *harness) history(id string) []domain.Message {
	h.t.Helper()
	_, msgs, err := h.store.Load(id)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := domain.ValidateHistory(msgs, false); err != nil {
		h.t.Fatalf("history is not valid for the API: %v", err)
	}
	return msgs
}

func results(msgs []domain.Message) []domain.ToolResult {
	var out []domain.ToolResult
	for _, m := range msgs {
		if m.Kind == domain.KindToolResult {
			out = append(out, *m.ToolResult)
		}
	}
	return out
}

func lastOf(msgs []domain.Message, kind domain.MessageKind) domain.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Kind == kind {
			return msgs[i]
		}
	}
	return domain.Message{}
}

func mustContain(t testing.TB, got, want string) {
	t.Helper()
	if !strings.Contains(got, want) {
		t.Fatalf("%q does not contain %q", got, want)
	}
}

func isErr(t testing.TB, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}
