package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

// Runtime tests of issue 13 with the fake server's predictable model.

// REQ-BED-003 (issue 13 item 1): a text reply cut at the output limit is kept and marked; the
// limit sent is the model table's unless configured per model, and the fake server cuts at it
// as a provider does.
func TestCutOffTextReplyKeptAndMarked_REQ_BED_003(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *Config) { c.OutputLimits = map[string]int{domain.DemoModel: 20} })
	c := h.create(NewConversation{})
	long := strings.Repeat("abcdefghij", 20)
	end := h.turn(c.ID, "echo: "+long)
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s; want idle", end.State.Kind())
	}
	reply := lastOf(h.history(c.ID), domain.KindAssistant)
	if reply.StopReason != domain.StopLength || reply.Text != long[:80] {
		t.Fatalf("reply %q (stop %q); want the first 80 characters marked as cut", reply.Text, reply.StopReason)
	}
	if got := h.srv.LastChat().OutputLimit(); got != 20 || h.rt.OutputLimit(domain.DemoModel) != 20 {
		t.Fatalf("sent an output limit of %d; want the configured 20", got)
	}

	// Without a setting, the table's limit goes out, and a scripted early stop is marked too.
	h2 := newHarness(t)
	c2 := h2.create(NewConversation{})
	h2.turn(c2.ID, "stop: content_filter\necho: something")
	if got := h2.srv.LastChat().OutputLimit(); got != domain.MaxOutputFor(domain.DemoModel) {
		t.Fatalf("sent %d; want the table's %d", got, domain.MaxOutputFor(domain.DemoModel))
	}
	if r := lastOf(h2.history(c2.ID), domain.KindAssistant); r.StopReason != domain.StopContentFilter {
		t.Fatalf("reply stop reason %q; want content_filter", r.StopReason)
	}
}

// REQ-BED-003 (issue 13 item 1): a tool call cut at the output limit is not run; the calls
// before it are; the model is told and asked again with the attempt counted, and three cuts in
// a row end the turn in an error instead of looping.
func TestCutOffToolCallNotRun_REQ_BED_003(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{Unrestricted: true})
	marker := filepath.Join(h.cwd, "cut-call-ran")
	h.send(c.ID, "stop: length\nbash: echo complete ;; bash: touch "+marker)
	again := h.waitFor(c.ID, "the request after the cut", func(c domain.Conversation) bool {
		st, ok := c.State.(domain.LLMRequesting)
		return ok && st.Attempt == 2
	})
	_ = again
	end := h.waitRest(c.ID)
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s", end.State.Kind())
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the cut call ran (%v)", err)
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeSuccess || res[1].Outcome != domain.OutcomeError {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[1].Content, "Make the call smaller")

	loop := h.create(NewConversation{})
	end = h.turn(loop.ID, "stop: length\nbash: echo 1\nstop: length\nbash: echo 2\nstop: length\nbash: echo 3\necho: never")
	st, ok := end.State.(domain.Error)
	if !ok || st.ErrKind != domain.ErrorOutputLimit {
		t.Fatalf("after three cut calls the state is %+v; want Error(output_limit)", end.State)
	}
	if n := len(h.srv.Requests()); n != 2+3 {
		t.Fatalf("%d model requests; want 5 (2 for the first turn, 3 for the looping one)", n)
	}
}

// REQ-BED-016 (issue 13 item 3): switching to Restricted stops a command running with write
// access at once; its result says why; the rest of the round runs Restricted.
func TestDowngradeStopsRunningUnrestrictedCommand_REQ_BED_016(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{Unrestricted: true})
	sleeper := fmt.Sprintf("sleep 60.%d", time.Now().UnixNano()%100000)
	late := filepath.Join(h.cwd, "written-after-downgrade")
	h.send(c.ID, fmt.Sprintf("bash: %s; touch %s ;; bash: touch %s || echo refused", sleeper, late, late))
	h.waitState(c.ID, domain.StateToolExecuting)
	waitForProcess(t, sleeper, true)
	if err := h.rt.Downgrade(context.Background(), c.ID, domain.ModeRestricted); err != nil {
		t.Fatal(err)
	}
	waitForProcess(t, sleeper, false)
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeRestricted || end.State.Kind() != domain.StateIdle {
		t.Fatalf("mode %s, state %s", end.Mode, end.State.Kind())
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "switched the conversation to Restricted mode")
	// The second command ran read-only: its write failed.
	mustContain(t, res[1].Content, "refused")
	if _, err := os.Stat(late); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was written after the downgrade (%v)", err)
	}
}

// Issue 13 item 6: a tool result larger than what is left of the window is cut to fit and
// says so; without the cut the provider (here the fake server with a 20,000-token window)
// would refuse the next request, and the continuation flow could never start.
func TestHugeToolResultFitsTheWindow_REQ_BED_019(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	const window = 20_000
	c := h.create(NewConversation{ContextWindow: window})
	end := h.turn(c.ID, fmt.Sprintf("window: %d\nbash: head -c 150000 /dev/zero | tr '\\0' x", window))
	if end.State.Kind() == domain.StateError {
		t.Fatalf("the turn ended in an error: %+v", end.State)
	}
	msgs := h.history(c.ID)
	res := results(msgs)
	if len(res) != 1 {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "left out to fit what is left of the context window")
	if len(res[0].Content) >= 128*1024 {
		t.Fatalf("the result kept %d bytes", len(res[0].Content))
	}
	mustContain(t, lastOf(msgs, domain.KindAssistant).Text, "Done. bash:")
}

// syncBuffer is a bytes.Buffer safe for the logger's concurrent writes; wrote signals each.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		select {
		case s.wrote <- struct{}{}:
		default:
		}
	}()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitLog waits until the log holds a line with every one of parts.
func waitLog(t *testing.T, log *syncBuffer, parts ...string) {
	t.Helper()
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for {
		for _, line := range strings.Split(log.String(), "\n") {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(line, p)
			}
			if all {
				return
			}
		}
		select {
		case <-log.wrote:
		case <-timeout.C:
			t.Fatalf("no log line with %q in:\n%s", parts, log.String())
		}
	}
}

// Orchestration-design items 2 and 8 (issue 13 item 5): a dropped stale result and a click on
// an approval that is no longer pending leave a debug line with the conversation, the
// execution id and the kind.
func TestStaleThingsLeaveATrace(t *testing.T) {
	t.Parallel()
	log := newSyncBuffer()
	h := newHarness(t, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	c := h.create(NewConversation{})
	marker := fmt.Sprintf("sleep 50.%d", time.Now().UnixNano()%100000)
	h.send(c.ID, "bash: "+marker)
	exec := h.waitState(c.ID, domain.StateToolExecuting).State.(domain.ToolExecuting).Exec
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	// The killed command's own result arrives after the Stop and is dropped.
	waitLog(t, log, "dropped a stale result", "conversation="+c.ID, fmt.Sprintf("exec=%d", exec), "kind=domain.ToolComplete")

	err := h.rt.DecideUpgrade(context.Background(), c.ID, 99, domain.ModeUnrestricted)
	isErr(t, err, domain.ErrNoPendingApproval)
	waitLog(t, log, "approval decision for a request that is no longer pending", "conversation="+c.ID, "exec=99")
}
