package actors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm"
	"github.com/phoenix-desktop/phoenix/tools"
)

func TestTextTurn_REQ_BED_003(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "echo: hello there")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s, want idle", end.State.Kind())
	}
	msgs := h.history(c.ID)
	if got := lastOf(msgs, domain.KindAssistant).Text; got != "hello there" {
		t.Fatalf("reply = %q", got)
	}
	if end.Usage.Total() == 0 {
		t.Fatal("usage was not tracked (REQ-BED-012)")
	}
}

func TestThreeToolsRunSeriallyInOrder_REQ_BED_004(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.turn(c.ID, "bash: echo one ;; bash: echo two ;; bash: echo three")
	msgs := h.history(c.ID)
	res := results(msgs)
	if len(res) != 3 {
		t.Fatalf("got %d results, want 3", len(res))
	}
	for i, want := range []string{"one", "two", "three"} {
		if res[i].Outcome != domain.OutcomeSuccess {
			t.Fatalf("result %d: %s %q", i, res[i].Outcome, res[i].Content)
		}
		mustContain(t, res[i].Content, want)
	}
	mustContain(t, lastOf(msgs, domain.KindAssistant).Text, "Done.")
}

func TestCancelDuringLLMRequest_REQ_BED_005(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "delay: 20000\necho: too late")
	h.waitState(c.ID, domain.StateLLMRequesting)
	waitForRequests(t, h, 1)
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.srv.Disconnected():
	case <-time.After(5 * time.Second):
		t.Fatal("the server did not see the request aborted")
	}
	conv, err := h.store.Get(c.ID)
	if err != nil || conv.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %v (%v), want idle", conv.State, err)
	}
	for _, m := range h.history(c.ID) {
		if m.Kind == domain.KindAssistant {
			t.Fatalf("a partial response was persisted: %+v", m)
		}
	}
}

func waitForRequests(t *testing.T, h *harness, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(h.srv.Requests()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server got %d requests, want %d", len(h.srv.Requests()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestCancelDuringTool_REQ_BED_005(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	marker := fmt.Sprintf("100.%d", time.Now().UnixNano()%100000)
	h.send(c.ID, fmt.Sprintf("bash: sleep %s & sleep %s; wait ;; bash: echo never", marker, marker))
	h.waitState(c.ID, domain.StateToolExecuting)
	waitForProcess(t, "sleep "+marker, true)
	// How fast is the bench's job (cancel to idle; BenchmarkCancelDuringTool): a timed
	// assertion here would only be noise on a shared machine. This test checks what Stop does.
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	waitForProcess(t, "sleep "+marker, false)
	conv, _ := h.store.Get(c.ID)
	if conv.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s, want idle", conv.State.Kind())
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeCancelled || res[1].Outcome != domain.OutcomeSkipped {
		t.Fatalf("results = %+v, want cancelled then skipped", res)
	}
}

// waitForProcess waits until a process whose command line contains pattern exists (or not).
func waitForProcess(t *testing.T, pattern string, present bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := exec.Command("pgrep", "-f", pattern).Run()
		if (err == nil) == present {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %q present=%v did not happen", pattern, present)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestRetryTwiceThenSucceed_REQ_BED_006(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "fail: 500 x2\necho: third time lucky")
	var attempts []int
	end := h.waitFor(c.ID, "rest", func(c domain.Conversation) bool {
		if st, ok := c.State.(domain.LLMRequesting); ok && st.RetryPending {
			attempts = append(attempts, st.Attempt)
		}
		return !domain.Busy(c.State)
	})
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %+v", end.State)
	}
	if fmt.Sprint(attempts) != "[2 3]" {
		t.Fatalf("retry states = %v, want [2 3]", attempts)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindAssistant).Text, "third time lucky")
}

func TestRetriesExhaustedThenMessageRecovers_REQ_BED_006(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "fail: 429 always\necho: never")
	st, ok := end.State.(domain.Error)
	if !ok || st.ErrKind != domain.ErrorRateLimit {
		t.Fatalf("state = %+v, want Error(rate_limit)", end.State)
	}
	mustContain(t, st.Message, "3 attempts")
	if n := len(h.srv.Requests()); n != 3 {
		t.Fatalf("server saw %d requests, want 3", n)
	}
	// REQ-BED-006: a message in Error continues the conversation.
	end = h.turn(c.ID, "echo: back again")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("after a new message: %s", end.State.Kind())
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindAssistant).Text, "back again")
}

func TestAuthErrorAtOnce_REQ_BED_006(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "fail: 401 always\necho: never")
	if st, ok := end.State.(domain.Error); !ok || st.ErrKind != domain.ErrorAuth {
		t.Fatalf("state = %+v, want Error(auth)", end.State)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Fatalf("server saw %d requests, want 1 (auth is not retried)", n)
	}
	msgs := h.history(c.ID)
	if lastOf(msgs, domain.KindError).ErrorKind != domain.ErrorAuth {
		t.Fatal("the error was not recorded for the person")
	}
}

func TestMessageWhileBusyIsRejected_REQ_BED_002(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "delay: 20000\necho: slow")
	err := h.rt.Send(context.Background(), c.ID, "are you there?", nil)
	isErr(t, err, domain.ErrAgentBusy)
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(h.history(c.ID)); n != 1 {
		t.Fatalf("history has %d messages, want only the first user message", n)
	}
}

func TestSubAgentsInParallelAggregatedInOrder_REQ_BED_008(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.turn(c.ID, "agents: first task | bash: echo from-two | third task")
	msgs := h.history(c.ID)
	res := results(msgs)
	if len(res) != 1 || res[0].Name != domain.ToolSpawnAgents {
		t.Fatalf("results = %+v", res)
	}
	text := res[0].Content
	i1, i2, i3 := strings.Index(text, "first task"), strings.Index(text, "from-two"), strings.Index(text, "third task")
	if i1 < 0 || i2 < 0 || i3 < 0 || i1 > i2 || i2 > i3 {
		t.Fatalf("results not aggregated in spawn order:\n%s", text)
	}
	if res[0].Display == nil || len(res[0].Display.SubAgents) != 3 {
		t.Fatalf("display lacks the sub-agents: %+v", res[0].Display)
	}
	for _, o := range res[0].Display.SubAgents {
		if o.Status != domain.SubAgentSucceeded {
			t.Fatalf("sub-agent %s: %+v", o.AgentID, o)
		}
	}
	// REQ-BED-009: sub-agents are not listed, but are stored under their parent.
	list, _ := h.rt.List(context.Background(), false)
	if len(list) != 1 {
		t.Fatalf("list has %d conversations, want only the parent", len(list))
	}
	snap, err := h.rt.Snapshot(context.Background(), c.ID)
	if err != nil || len(snap.SubAgents) != 3 {
		t.Fatalf("snapshot sub-agents = %d (%v)", len(snap.SubAgents), err)
	}
	for _, sub := range snap.SubAgents {
		if h.cfg.Sandbox.Available && sub.Mode != domain.ModeRestricted {
			t.Fatalf("sub-agent %s runs %s, want restricted (REQ-BED-018)", sub.ID, sub.Mode)
		}
		if sub.State.Kind() != domain.StateCompleted {
			t.Fatalf("sub-agent %s is %s", sub.ID, sub.State.Kind())
		}
	}
	// REQ-BED-009, REQ-BED-018: a sub-agent is offered submit_result, never spawn_agents or
	// request_mode_upgrade.
	for _, r := range h.srv.Requests() {
		if r.Chat == nil {
			continue
		}
		names := strings.Join(r.Chat.ToolNames(), ",")
		if strings.Contains(names, domain.ToolSubmitResult) &&
			(strings.Contains(names, domain.ToolSpawnAgents) || strings.Contains(names, domain.ToolRequestModeUpgrade)) {
			t.Fatalf("a sub-agent was offered %s", names)
		}
	}
}

func TestSubAgentTimeoutAndFailureReported_REQ_BED_008(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withDeadline(2*time.Second))
	c := h.create(NewConversation{})
	// The second sub-agent answers in plain text twice: once before the reminder to call
	// submit_result and once after it (issue 13 item 4). Its last answer is longer than the
	// 500 characters the parent used to get, and ends with a word the parent must see.
	last := strings.Repeat("still thinking about it ", 40) + "FINAL-WORD"
	h.turn(c.ID, "agents: bash: sleep 30 | echo: I will not submit\\necho: "+last)
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Display == nil || len(res[0].Display.SubAgents) != 2 {
		t.Fatalf("results = %+v", res)
	}
	timedOut, noResult := res[0].Display.SubAgents[0], res[0].Display.SubAgents[1]
	if timedOut.Status != domain.SubAgentFailed || timedOut.Kind != domain.ErrorDeadline {
		t.Fatalf("first sub-agent = %+v, want a deadline failure", timedOut)
	}
	if noResult.Status != domain.SubAgentFailed || noResult.Kind != domain.ErrorNoResult || noResult.Result != last {
		t.Fatalf("second sub-agent = %+v, want no_result with its whole last answer", noResult)
	}
	mustContain(t, res[0].Content, "timed out")
	mustContain(t, res[0].Content, "FINAL-WORD")
	sub := h.history(noResult.AgentID)
	if r := lastOf(sub, domain.KindSystem); r.Text != domain.SubmitReminderText {
		t.Fatalf("the sub-agent was not reminded to call submit_result: %+v", sub)
	}
}

// Issue 13 item 4: a sub-agent that forgets submit_result once is reminded and then delivers
// its result; the parent sees a success.
func TestSubAgentRemindedToSubmit_REQ_BED_008(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.turn(c.ID, "agents: echo: here is my answer in plain text")
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Display == nil || len(res[0].Display.SubAgents) != 1 {
		t.Fatalf("results = %+v", res)
	}
	got := res[0].Display.SubAgents[0]
	if got.Status != domain.SubAgentSucceeded {
		t.Fatalf("sub-agent = %+v; want it to succeed after the reminder", got)
	}
	kinds := []domain.MessageKind{}
	for _, m := range h.history(got.AgentID) {
		kinds = append(kinds, m.Kind)
	}
	want := []domain.MessageKind{domain.KindUser, domain.KindAssistant, domain.KindSystem, domain.KindAssistant, domain.KindToolResult}
	if !slices.Equal(kinds, want) {
		t.Fatalf("sub-agent history %v; want %v (answer, reminder, submit_result)", kinds, want)
	}
}

func TestModeUpgradeApprovedThenDowngrade_REQ_BED_015_016(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{})
	h.send(c.ID, "upgrade: write the notes file\npatch: notes.txt <<< hello")
	waiting := h.waitState(c.ID, domain.StateAwaitingModeApproval)
	st := waiting.State.(domain.AwaitingModeApproval)
	mustContain(t, st.Reason, "notes file")
	if err := h.rt.DecideUpgrade(context.Background(), c.ID, st.Exec, domain.ModeUnrestricted); err != nil {
		t.Fatal(err)
	}
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeUnrestricted {
		t.Fatalf("mode = %s", end.Mode)
	}
	data, err := os.ReadFile(filepath.Join(h.cwd, "notes.txt"))
	if err != nil || strings.TrimSpace(string(data)) != "hello" {
		t.Fatalf("patch did not write the file: %q %v", data, err)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "Unrestricted")
	// A second decision for the same request is refused.
	isErr(t, h.rt.DecideUpgrade(context.Background(), c.ID, st.Exec, domain.ModeUnrestricted), domain.ErrNoPendingApproval)

	if err := h.rt.Downgrade(context.Background(), c.ID, domain.ModeRestricted); err != nil {
		t.Fatal(err)
	}
	conv, _ := h.store.Get(c.ID)
	if conv.Mode != domain.ModeRestricted {
		t.Fatalf("after downgrade mode = %s", conv.Mode)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindSystem).Text, "Restricted")
}

func TestModeUpgradeDenied_REQ_BED_015(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{})
	h.send(c.ID, "upgrade: write the notes file\npatch: notes.txt <<< hello")
	st := h.waitState(c.ID, domain.StateAwaitingModeApproval).State.(domain.AwaitingModeApproval)
	if err := h.rt.DecideUpgrade(context.Background(), c.ID, st.Exec, DenyUpgrade); err != nil {
		t.Fatal(err)
	}
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeRestricted {
		t.Fatalf("mode = %s, want restricted", end.Mode)
	}
	if _, err := os.Stat(filepath.Join(h.cwd, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written although the upgrade was denied: %v", err)
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || !strings.Contains(res[0].Content, "Denied") || !strings.Contains(res[1].Content, "request_mode_upgrade") {
		t.Fatalf("results = %+v", res)
	}
}

func TestContinuationAt90PercentNamesRejectedTools_REQ_BED_019_020_021(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "usage: 95000\nbash: echo must not run")
	ex, ok := end.State.(domain.ContextExhausted)
	if !ok {
		t.Fatalf("state = %s, want context exhausted", end.State.Kind())
	}
	if ex.Summary == "" || ex.Summary == domain.FallbackSummary {
		t.Fatalf("summary = %q", ex.Summary)
	}
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeSkipped {
		t.Fatalf("the tool of the threshold response ran: %+v", res)
	}
	last := h.srv.LastChat()
	if len(last.Tools) != 0 {
		t.Fatalf("the continuation request offered %d tools", len(last.Tools))
	}
	mustContain(t, last.Messages[len(last.Messages)-1].Content.String(), "- bash")
	// REQ-BED-021: the conversation is read-only now.
	isErr(t, h.rt.Send(context.Background(), c.ID, "one more thing", nil), domain.ErrContextExhausted)

	next, seed, err := h.rt.ContinueInNew(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if next.ContinuedFrom != c.ID || next.Cwd != c.Cwd {
		t.Fatalf("new conversation not linked: %+v", next)
	}
	mustContain(t, seed, ex.Summary)
	if end := h.turn(next.ID, "echo: fresh start"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("new conversation: %s", end.State.Kind())
	}
}

func TestManualContinuation_REQ_BED_023(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "usage: 85000\necho: getting full")
	if !domain.AtWarning(end.Usage, end.ContextWindow) || end.State.Kind() != domain.StateIdle {
		t.Fatalf("state %s usage %d/%d", end.State.Kind(), end.Usage.Total(), end.ContextWindow)
	}
	if err := h.rt.WrapUp(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	if end := h.waitRest(c.ID); end.State.Kind() != domain.StateContextExhausted {
		t.Fatalf("after wrap-up: %s", end.State.Kind())
	}
}

func TestStopMidToolAndReopen_REQ_BED_007(t *testing.T) {
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "bash: sleep 60 ;; bash: echo after")
	h.waitState(c.ID, domain.StateToolExecuting)
	// A temp dir a crashed run left behind is swept by the next start.
	leftover := filepath.Join(h.cfg.TempRoot, "conv-crashed")
	if err := os.Mkdir(leftover, 0o700); err != nil {
		t.Fatal(err)
	}
	h.restart()
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Fatalf("the leftover temp dir survived the start: %v", err)
	}
	conv, err := h.store.Get(c.ID)
	if err != nil || conv.State.Kind() != domain.StateIdle {
		t.Fatalf("after restart: %v %v", conv.State, err)
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeInterrupted || res[1].Outcome != domain.OutcomeInterrupted {
		t.Fatalf("results = %+v", res)
	}
	if end := h.turn(c.ID, "echo: still here"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("after restart the conversation is %s", end.State.Kind())
	}
}

// panickyTools panics in the named tool and runs the others normally.
type panickyTools struct {
	inner ToolRunner
	tool  string
}

func (p panickyTools) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	if call.Name == p.tool {
		panic("tool exploded")
	}
	return p.inner.Run(ctx, env, call)
}

func TestPanicInToolBecomesErrorResult(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withTools(panickyTools{inner: tools.NewRegistry(), tool: domain.ToolThink}))
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "think: boom")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s", end.State.Kind())
	}
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeError {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "internal error")
}

// panickyLLM panics on its first request and then behaves.
type panickyLLM struct {
	inner  LLMClient
	panics atomic.Int32
}

func (p *panickyLLM) Stream(ctx context.Context, req llm.Request, onDelta func(llm.Delta)) (llm.Response, error) {
	if p.panics.Add(1) == 1 {
		panic("client exploded")
	}
	return p.inner.Stream(ctx, req, onDelta)
}

func TestPanicInLLMRequestIsRetried(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.close()
	h.open(func(c *Config) { c.LLM = &panickyLLM{inner: c.LLM} })
	c := h.create(NewConversation{})
	end := h.turn(c.ID, "echo: survived")
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %+v", end.State)
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindAssistant).Text, "survived")
}

func TestPanicInConversationActorRestartsFromStore(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Failing the commit of the reply makes the conversation actor panic and restart.
	failOnce(h, func(m domain.Message) bool { return m.Kind == domain.KindAssistant })
	c := h.create(NewConversation{})
	h.send(c.ID, "echo: lost in the fire")
	var notice bool
	deadline := time.After(20 * time.Second)
	for !notice {
		select {
		case ev := <-h.sub.Events():
			if n, ok := ev.(Notice); ok && n.ConvID == c.ID && strings.Contains(n.Text, "reloaded") {
				notice = true
			}
		case <-deadline:
			t.Fatal("no notice of the restart")
		}
	}
	conv := h.waitRest(c.ID)
	if conv.State.Kind() != domain.StateIdle {
		t.Fatalf("after the restart: %s", conv.State.Kind())
	}
	if end := h.turn(c.ID, "echo: fine again"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("the conversation did not recover: %s", end.State.Kind())
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindAssistant).Text, "fine again")
}

func TestCreateRejectsMissingDirectory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	_, err := h.rt.Create(context.Background(), NewConversation{Cwd: filepath.Join(h.cwd, "missing")})
	isErr(t, err, ErrNotDirectory)
}

// TestEventsRoundTripAsJSON: the CLI prints events as JSON lines, so every event a real turn
// publishes must encode, and a state change must decode back to the same state.
func TestEventsRoundTripAsJSON(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "echo: json ;; think: and a tool")
	seen := map[string]bool{}
	deadline := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case ev := <-h.sub.Events():
			b, err := json.Marshal(ev)
			if err != nil {
				t.Fatalf("%T does not encode: %v", ev, err)
			}
			seen[fmt.Sprintf("%T", ev)] = true
			if sc, ok := ev.(StateChanged); ok && sc.Conv.ID == c.ID {
				var back StateChanged
				if err := json.Unmarshal(b, &back); err != nil || back.Conv.State.Kind() != sc.Conv.State.Kind() {
					t.Fatalf("state %s came back as %v (%v)", sc.Conv.State.Kind(), back.Conv.State, err)
				}
				done = !domain.Busy(sc.Conv.State)
			}
		case <-deadline:
			t.Fatalf("the turn did not end; saw %v", seen)
		}
	}
	for _, kind := range []string{"actors.StateChanged", "actors.MessageCommitted", "actors.TextDelta"} {
		if !seen[kind] {
			t.Fatalf("no %s during the turn; saw %v", kind, seen)
		}
	}
}

func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSendWithImages_REQ_BED_013(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	// A file that is not an image is refused with its name, and nothing is sent.
	err := h.rt.Send(context.Background(), c.ID, "look", []Attachment{{Name: "notes.txt", Data: []byte("plain text")}})
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("error = %v, want one naming notes.txt", err)
	}
	if n := len(h.history(c.ID)); n != 0 {
		t.Fatalf("a refused message left %d messages", n)
	}
	isErr(t, h.rt.Send(context.Background(), c.ID, "  ", nil), domain.ErrEmptyMessage)

	// Two images, one larger than the provider accepts: both reach the model, downscaled.
	images := []Attachment{{Name: "small.png", Data: pngBytes(t, 64, 48)}, {Name: "big.png", Data: pngBytes(t, 3000, 1000)}}
	if err := h.rt.Send(context.Background(), c.ID, "", images); err != nil {
		t.Fatal(err)
	}
	end := h.waitRest(c.ID)
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s", end.State.Kind())
	}
	msgs := h.history(c.ID)
	if len(msgs[0].Images) != 2 || msgs[0].Images[1].Width > 2048 {
		t.Fatalf("stored images = %+v", msgs[0].Images)
	}
	urls := h.srv.LastChat().Messages[1].Content.ImageURLs()
	if len(urls) != 2 {
		t.Fatalf("the server saw %d images, want 2", len(urls))
	}
	mustContain(t, lastOf(msgs, domain.KindAssistant).Text, "2 images")
}

func TestRestartWhileAwaitingSubAgentsComesToRest(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Failing the commit of the deadline's result restarts the parent while its sub-agents run.
	failOnce(h, func(m domain.Message) bool {
		return m.Kind == domain.KindToolResult && m.ToolResult.Name == domain.ToolSpawnAgents
	}, withDeadline(time.Second))
	c := h.create(NewConversation{})
	h.send(c.ID, "agents: bash: sleep 30")
	end := h.waitFor(c.ID, "idle after the restart", func(c domain.Conversation) bool {
		return c.State.Kind() == domain.StateIdle
	})
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s", end.State.Kind())
	}
	// The conversation answers commands again, and its sub-agent is not left running.
	if end := h.turn(c.ID, "echo: alive"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("after the restart: %s", end.State.Kind())
	}
	snap, err := h.rt.Snapshot(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range snap.SubAgents {
		if domain.Busy(sub.State) {
			t.Fatalf("sub-agent %s still %s", sub.ID, sub.State.Kind())
		}
	}
}

func TestCancelDuringSubAgentsThenContinue_REQ_BED_005(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "agents: bash: sleep 30 | bash: sleep 31")
	h.waitState(c.ID, domain.StateAwaitingSubAgents)
	// Each sub-agent comes to rest in its own actor, after the parent has moved on; this
	// subscription sees it happen.
	subs := h.rt.Subscribe()
	defer subs.Close()
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("results = %+v", res)
	}
	// Orchestration item 20: the next message after an interrupt continues normally. The
	// cancel's own resting state is still queued, and turn would take it for this turn's end.
	if end := h.freshTurn(c.ID, "echo: next"); end.State.Kind() != domain.StateIdle {
		t.Fatalf("after cancel: %s", end.State.Kind())
	}
	mustContain(t, lastOf(h.history(c.ID), domain.KindAssistant).Text, "next")
	snap, _ := h.rt.Snapshot(context.Background(), c.ID)
	rested := map[string]bool{}
	for _, sub := range snap.SubAgents {
		rested[sub.ID] = !domain.Busy(sub.State)
	}
	timeout := time.NewTimer(10 * time.Second)
	defer timeout.Stop()
	for id, ok := range rested {
		for !ok {
			select {
			case ev := <-subs.Events():
				if sc, is := ev.(StateChanged); is && sc.Conv.ID == id && !domain.Busy(sc.Conv.State) {
					ok = true
				}
			case <-timeout.C:
				t.Fatalf("sub-agent %s still busy after the cancel", id)
			}
		}
	}
}

// TestEventOrder_REQ_BED_011 checks the contract of events.go: a transition's messages come
// before its state, and a state is announced before anything it started reports.
func TestEventOrder_REQ_BED_011(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if !h.cfg.Sandbox.Available {
		t.Skip("needs Restricted mode for the upgrade request")
	}
	c := h.create(NewConversation{})
	h.send(c.ID, "echo: streamed words here ;; upgrade: need to write")
	var kinds []string
	var exec domain.ExecID
	deadline := time.After(20 * time.Second)
	for {
		select {
		case ev := <-h.sub.Events():
			if ev.Conversation() != c.ID {
				continue
			}
			switch e := ev.(type) {
			case StateChanged:
				kinds = append(kinds, "state:"+string(e.Conv.State.Kind()))
				if cur, ok := domain.CurrentExec(e.Conv.State); ok {
					exec = cur
				}
			case MessageCommitted:
				kinds = append(kinds, "msg:"+string(e.Message.Kind))
			case TextDelta:
				if e.Exec != exec {
					t.Fatalf("a delta of exec %d came before its state (current %d): %v", e.Exec, exec, kinds)
				}
				kinds = append(kinds, "delta")
			case ApprovalRequested:
				kinds = append(kinds, "approval")
			}
		case <-deadline:
			t.Fatalf("no approval request; events: %v", kinds)
		}
		if len(kinds) > 0 && kinds[len(kinds)-1] == "approval" {
			break
		}
	}
	got := strings.Join(kinds, " ")
	for _, want := range []string{"msg:user state:llm_requesting", "msg:assistant state:awaiting_mode_approval approval"} {
		if !strings.Contains(got, want) {
			t.Fatalf("events %q lack %q", got, want)
		}
	}
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
}

func TestCancelWhoseCommitFailsStillStopsAndRests_REQ_BED_005(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	failOnce(h, func(m domain.Message) bool {
		return m.Kind == domain.KindToolResult && m.ToolResult.Outcome == domain.OutcomeCancelled
	})
	c := h.create(NewConversation{})
	marker := fmt.Sprintf("sleep 40.%d", time.Now().UnixNano()%100000)
	h.send(c.ID, "bash: "+marker)
	h.waitState(c.ID, domain.StateToolExecuting)
	waitForProcess(t, marker, true)
	if err := h.rt.Cancel(context.Background(), c.ID); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("cancel = %v, want the save error", err)
	}
	waitForProcess(t, marker, false)
	end := h.waitRest(c.ID)
	if end.State.Kind() != domain.StateIdle {
		t.Fatalf("state = %s", end.State.Kind())
	}
	res := results(h.history(c.ID))
	if len(res) != 1 || res[0].Outcome != domain.OutcomeInterrupted {
		t.Fatalf("results = %+v", res)
	}
}

// failingStore fails, once, the first commit that holds a message matching fail.
type failingStore struct {
	Store
	fail  func(domain.Message) bool
	armed atomic.Bool
}

func (f *failingStore) Commit(c domain.Conversation, msgs []domain.Message) (domain.Conversation, []domain.Message, error) {
	for _, m := range msgs {
		if f.fail(m) && f.armed.CompareAndSwap(true, false) {
			return c, nil, fmt.Errorf("disk on fire")
		}
	}
	return f.Store.Commit(c, msgs)
}

// failOnce reopens the harness on a store that fails one matching commit.
func failOnce(h *harness, fail func(domain.Message) bool, opts ...harnessOption) {
	h.close()
	f := &failingStore{fail: fail}
	f.armed.Store(true)
	h.open(append(opts, func(c *Config) { f.Store = c.Store; c.Store = f })...)
}

// A thinking model's reasoning streams as reasoning deltas, before the answer's text,
// is committed with its reply in its own field, is still there after a restart, and goes
// back to the model with the reply on the next request.
func TestReasoningStreamedCommittedAndSentBack(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.send(c.ID, "reason: I list the files first.\nthink: listing\nreason: Now I answer.\necho: Listed.")
	var reasoning, text strings.Builder
	answerBeforeReasoning := false
	for rest := false; !rest; {
		select {
		case ev := <-h.sub.Events():
			switch e := ev.(type) {
			case TextDelta:
				if e.Reasoning {
					reasoning.WriteString(e.Text)
					answerBeforeReasoning = answerBeforeReasoning || text.Len() > 0
				} else {
					text.WriteString(e.Text)
				}
			case StateChanged:
				rest = e.Conv.ID == c.ID && !domain.Busy(e.Conv.State)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the turn did not come to rest")
		}
	}
	if reasoning.String() != "I list the files first.Now I answer." || text.String() != "Listed." || answerBeforeReasoning {
		t.Fatalf("streamed reasoning %q and text %q", reasoning.String(), text.String())
	}
	h.restart()
	msgs := h.history(c.ID)
	var thoughts []string
	for _, m := range msgs {
		if m.Kind == domain.KindAssistant {
			if m.Reasoning == nil {
				t.Fatalf("reply %d lost its reasoning after the restart: %+v", m.Seq, m)
			}
			thoughts = append(thoughts, m.Reasoning.Text)
		}
	}
	if !slices.Equal(thoughts, []string{"I list the files first.", "Now I answer."}) || lastOf(msgs, domain.KindAssistant).Text != "Listed." {
		t.Fatalf("stored reasoning %q", thoughts)
	}
	last := h.srv.LastChat()
	var sent []string
	for _, m := range last.Messages {
		if m.Role == "assistant" && m.ReasoningContent != nil {
			sent = append(sent, *m.ReasoningContent)
		}
	}
	if !slices.Equal(sent, []string{"I list the files first."}) {
		t.Fatalf("the last request sent back reasoning %q, want the first reply's", sent)
	}
}

// Conversation is the snapshot's record without the history: the same state, sequence and
// usage after a turn, and an unknown id says which it was.
func TestConversationIsTheSnapshotsRecordWithoutMessages_REQ_BED_011(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	c := h.create(NewConversation{})
	h.turn(c.ID, "echo: hello there")
	ctx := context.Background()
	snap, err := h.rt.Snapshot(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.rt.Conversation(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State.Kind() != snap.Conv.State.Kind() || got.NextSeq != snap.Conv.NextSeq || got.LastExec != snap.Conv.LastExec || got.Usage != snap.Conv.Usage {
		t.Fatalf("record %+v, snapshot's %+v", got, snap.Conv)
	}
	if _, err := h.rt.Conversation(ctx, "no-such-id"); err == nil || !strings.Contains(err.Error(), "no-such-id") {
		t.Fatalf("unknown id: %v", err)
	}
}
