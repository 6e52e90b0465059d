package e2e

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/llm/fakellm"
)

// faultSpec is one way the provider can misbehave, as the fake server injects it.
type faultSpec struct {
	name  string
	reply fakellm.Reply
	// kind is the error kind the client must classify the fault as; empty for a fault the
	// app must take in its stride (no error at all).
	kind domain.ErrorKind
	// idle is the LLM client's idle timeout for this fault; zero means the rig's generous
	// default, so that only the faults about silence depend on a short one.
	idle time.Duration
	// retryDelay is the wait expected before the retry (the server's Retry-After, or the
	// 1 s backoff of REQ-BED-006).
	retryDelay time.Duration
}

// faultPlacement is the state a fault hits.
type faultPlacement string

const (
	atFirstRequest faultPlacement = "first request"
	afterTools     faultPlacement = "after tools"
	inContinuation faultPlacement = "continuation"
	inSubAgent     faultPlacement = "sub-agent"
)

var placements = []faultPlacement{atFirstRequest, afterTools, inContinuation, inSubAgent}

// shortIdle is the idle timeout of the cases about silence. It covers the whole wait for the
// first byte, connection and request included; 300 ms proved too tight with a dozen cases
// running at once on two busy cores (a healthy first reply timed out), so it is 1 s.
const shortIdle = time.Second

// faults is every fault the fake server can inject (llm/fakellm Reply and Fault).
func faults() []faultSpec {
	return []faultSpec{
		{name: "429 Retry-After 0.3s", reply: fakellm.RateLimited("0.3"), kind: domain.ErrorRateLimit, retryDelay: 300 * time.Millisecond},
		{name: "500", reply: fakellm.Failure(http.StatusInternalServerError, "The server had an error processing your request"), kind: domain.ErrorServer},
		{name: "401", reply: fakellm.Failure(http.StatusUnauthorized, "Incorrect API key provided"), kind: domain.ErrorAuth},
		{name: "400", reply: fakellm.Failure(http.StatusBadRequest, "Invalid value for 'temperature'"), kind: domain.ErrorInvalidRequest},
		{name: "context-length 400", reply: fakellm.ContextLength(), kind: domain.ErrorContextLength},
		{name: "stall mid-stream", reply: fakellm.Reply{Text: "a partial answer", Chunks: 2, Fault: fakellm.FaultStall, FaultAfter: 2},
			kind: domain.ErrorTimeout, idle: shortIdle},
		{name: "cut mid-stream", reply: fakellm.Reply{Text: "a partial answer", Chunks: 3, Fault: fakellm.FaultCut, FaultAfter: 2},
			kind: domain.ErrorNetwork},
		{name: "error event mid-stream", reply: fakellm.Reply{Text: "begun", Chunks: 1, Fault: fakellm.FaultErrorEvent, FaultAfter: 2,
			ErrorMessage: "The server had an error while processing your request", ErrorType: "server_error"}, kind: domain.ErrorServer},
		{name: "missing finish reason", reply: fakellm.Reply{Text: "no ending", Chunks: 2, NoFinishReason: true}, kind: domain.ErrorIncompleteResponse},
		{name: "empty reply", reply: fakellm.Reply{}, kind: domain.ErrorIncompleteResponse},
		{name: "slow first byte past idle", reply: fakellm.Reply{Text: "too late", FirstByteDelay: 5 * time.Second},
			kind: domain.ErrorTimeout, idle: shortIdle},
		{name: "malformed tool-call JSON", reply: fakellm.Calls(fakellm.Call("m1", domain.ToolBash, `{not json`))},
		{name: "slow first byte within idle", reply: fakellm.Reply{Text: "slow start", FirstByteDelay: time.Second}},
		{name: "keep-alives past idle", reply: fakellm.Reply{Text: "slow thinker", Heartbeats: 20, ChunkDelay: 100 * time.Millisecond}, idle: shortIdle},
	}
}

// faultCase is one cell of the matrix: a fault, the state it hits, and how many attempts it
// breaks in a row (1, or 3 to exhaust the retries of a retryable fault).
type faultCase struct {
	fault faultSpec
	place faultPlacement
	times int
}

func (c faultCase) name() string {
	n := fmt.Sprintf("%s/%s", c.place, c.fault.name)
	if c.times > 1 {
		n += fmt.Sprintf(" x%d", c.times)
	}
	return n
}

// caseOutcome is what one run showed.
type caseOutcome struct {
	err      error
	elapsed  time.Duration
	end      domain.Conversation
	msgs     []domain.Message
	sub      *domain.Conversation
	subMsgs  []domain.Message
	requests int
	pending  int
	// retries are the retry states seen in the conversation the fault hit.
	retries []retrySeen
}

type retrySeen struct {
	attempt int
	delay   time.Duration
	kind    domain.ErrorKind
}

// caseBudget is the time within which every case must reach rest; the slowest expected one
// (a 1 s stall three times plus 1 s and 2 s of backoff) needs about 6 s.
const caseBudget = 30 * time.Second

// TestFaultMatrix crosses every fault the fake server can inject with the states it can hit
// (REQ-BED-006, 008, 020, 024): a retryable fault is retried and then succeeds, or ends in
// Error with its kind after three attempts; a non-retryable one ends in Error at once; in the
// continuation any failure still ends in ContextExhausted, with the fallback summary; in a
// sub-agent the sub-agent fails with the kind, the parent's spawn_agents result says so and
// the parent comes back to Idle. No case may take longer than caseBudget.
//
// The cases mostly wait (on retry timers and stalls), so they run concurrently, each with
// its own server, store and runtime; the checks then run as one named subtest per case.
func TestFaultMatrix(t *testing.T) {
	var cases []faultCase
	for _, p := range placements {
		for _, f := range faults() {
			cases = append(cases, faultCase{fault: f, place: p, times: 1})
			if f.kind != "" && f.kind.Retryable() {
				cases = append(cases, faultCase{fault: f, place: p, times: domain.MaxAttempts})
			}
		}
	}
	outcomes := make([]caseOutcome, len(cases))
	workers := 12
	if raceEnabled {
		workers = 8
	}
	sem := make(chan struct{}, workers)
	var wg sync.WaitGroup
	began := time.Now()
	for i := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			outcomes[i] = runFaultCase(t, cases[i])
		}()
	}
	wg.Wait()
	wall := time.Since(began)

	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tEND STATE\tKIND\tSUB-AGENT\tRETRIED AFTER\tTIME")
	for i, c := range cases {
		o := outcomes[i]
		t.Run(c.name(), func(t *testing.T) { checkFaultCase(t, c, o) })
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.name(), stateKind(o.end), errKind(o.end.State),
			subSummary(o.sub), retriesSummary(o.retries), o.elapsed.Round(10*time.Millisecond))
	}
	_ = tw.Flush()
	t.Logf("fault matrix: %d cases in %s (%d at a time, GOMAXPROCS %d)\n%s",
		len(cases), wall.Round(time.Millisecond), workers, runtime.GOMAXPROCS(0), table.String())
}

func stateKind(c domain.Conversation) string {
	if c.State == nil {
		return "-"
	}
	return string(c.State.Kind())
}

func errKind(s domain.State) string {
	switch st := s.(type) {
	case domain.Error:
		return string(st.ErrKind)
	case domain.Failed:
		return string(st.ErrKind)
	case domain.ContextExhausted:
		if st.Summary == domain.FallbackSummary {
			return "(fallback summary)"
		}
		return "(summary)"
	}
	return "-"
}

// retriesSummary says how the retries went: "-" for none, else each wait with the kind of
// the error before it (the continuation's state does not carry the kind).
func retriesSummary(rs []retrySeen) string {
	if len(rs) == 0 {
		return "-"
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		kind := string(r.kind)
		if kind == "" {
			kind = "?"
		}
		parts[i] = fmt.Sprintf("%s %s", kind, r.delay)
	}
	return strings.Join(parts, ", ")
}

func subSummary(c *domain.Conversation) string {
	if c == nil {
		return "-"
	}
	return stateKind(*c) + " " + errKind(c.State)
}

// runFaultCase runs one case to rest. It runs on a worker goroutine, so it reports problems
// in the outcome instead of failing the test.
func runFaultCase(t *testing.T, c faultCase) (o caseOutcome) {
	r, err := newRig(t, rigOptions{idle: c.fault.idle})
	if err != nil {
		o.err = err
		return o
	}
	defer r.close()
	conv, err := r.create(actors.NewConversation{Unrestricted: true})
	if err != nil {
		o.err = err
		return o
	}
	var script []fakellm.Reply
	text := "echo: recovered"
	switch c.place {
	case afterTools:
		script = append(script, fakellm.Calls(fakellm.Call("t1", domain.ToolThink, `{"thoughts":"first, a tool"}`)))
	case inContinuation:
		// 95% of the demo model's 100000-token window triggers the continuation
		// (REQ-BED-019); the fault then hits the summary request.
		script = append(script, fakellm.Reply{Text: "That filled the context.", Chunks: 2,
			Usage: &fakellm.Usage{PromptTokens: 95_000, CompletionTokens: 10}})
	case inSubAgent:
		script = append(script, fakellm.Calls(fakellm.Call("s1", domain.ToolSpawnAgents, `{"tasks":["think: sub work"]}`)))
		text = "delegate the work"
	}
	reply := c.fault.reply
	if c.place == inSubAgent && c.fault.kind == "" && reply.Text != "" {
		// A sub-agent that answers with text alone ends without a result (no_result); a
		// well-behaved one submits, and the fault is in how the answer arrives.
		reply.ToolCalls = []fakellm.ToolCall{fakellm.Call("r1", domain.ToolSubmitResult, `{"result":"done, slowly","success":true}`)}
	}
	for range c.times {
		script = append(script, reply)
	}
	r.srv.Enqueue(script...)

	start := time.Now()
	if err := r.rt.Send(t.Context(), conv.ID, text, nil); err != nil {
		o.err = err
		return o
	}
	seen, err := r.watch(caseBudget, func(sc actors.StateChanged) bool {
		return sc.Conv.ID == conv.ID && !domain.Busy(sc.Conv.State)
	})
	o.elapsed = time.Since(start)
	if err != nil {
		cur, _ := r.store.Get(conv.ID)
		o.end = cur
		o.err = fmt.Errorf("stuck: not at rest within %s, still %s: %w", caseBudget, cur.State.Kind(), err)
		return o
	}
	o.end = seen[len(seen)-1].Conv
	hit := conv.ID
	if c.place == inSubAgent {
		kids, err := r.store.Children(conv.ID)
		if err != nil || len(kids) != 1 {
			o.err = fmt.Errorf("sub-agents of %s: %v (%d)", conv.ID, err, len(kids))
			return o
		}
		hit = kids[0].ID
		o.sub = &kids[0]
		if o.subMsgs, err = r.history(hit); err != nil {
			o.err = err
			return o
		}
	}
	for _, sc := range seen {
		if sc.Conv.ID != hit {
			continue
		}
		switch st := sc.Conv.State.(type) {
		case domain.LLMRequesting:
			if st.RetryPending {
				o.retries = append(o.retries, retrySeen{attempt: st.Attempt, delay: st.RetryDelay, kind: st.LastErrorKind})
			}
		case domain.AwaitingContinuation:
			if st.RetryPending {
				o.retries = append(o.retries, retrySeen{attempt: st.Attempt, delay: st.RetryDelay})
			}
		}
	}
	if o.msgs, err = r.history(conv.ID); err != nil {
		o.err = err
		return o
	}
	o.requests = len(r.srv.Requests())
	o.pending = r.srv.Pending()
	return o
}

// checkFaultCase holds a run against the spec.
func checkFaultCase(t *testing.T, c faultCase, o caseOutcome) {
	if o.err != nil {
		t.Fatal(o.err)
	}
	if o.elapsed > caseBudget {
		t.Fatalf("took %s, over the %s budget", o.elapsed, caseBudget)
	}
	if o.pending != 0 {
		t.Fatalf("%d scripted replies were never requested", o.pending)
	}
	benign := c.fault.kind == ""
	retryable := !benign && c.fault.kind.Retryable()
	fails := !benign && (!retryable || c.times >= domain.MaxAttempts)

	// Retries: a retryable fault is retried once per failed attempt short of the last; a
	// non-retryable one and a benign one never.
	wantRetries := 0
	if retryable {
		wantRetries = min(c.times, domain.MaxAttempts-1)
	}
	if len(o.retries) != wantRetries {
		t.Fatalf("saw %d retries %+v, want %d", len(o.retries), o.retries, wantRetries)
	}
	for i, rs := range o.retries {
		if rs.attempt != i+2 {
			t.Errorf("retry %d announces attempt %d, want %d", i+1, rs.attempt, i+2)
		}
		want, _ := domain.RetryDelay(i+1, c.fault.retryDelay)
		if rs.delay != want {
			t.Errorf("retry %d waits %s, want %s", i+1, rs.delay, want)
		}
		// The continuation's state does not carry the error kind; the others must.
		if c.place != inContinuation && rs.kind != c.fault.kind {
			t.Errorf("retry %d after a %s error, want %s", i+1, rs.kind, c.fault.kind)
		}
	}

	switch c.place {
	case atFirstRequest, afterTools:
		if !fails {
			if _, ok := o.end.State.(domain.Idle); !ok {
				t.Fatalf("ended %+v, want Idle", o.end.State)
			}
			if _, ok := lastOf(o.msgs, domain.KindAssistant); !ok {
				t.Fatal("no reply was committed")
			}
			break
		}
		st, ok := o.end.State.(domain.Error)
		if !ok || st.ErrKind != c.fault.kind {
			t.Fatalf("ended %+v, want Error(%s)", o.end.State, c.fault.kind)
		}
		if retryable && !strings.Contains(st.Message, fmt.Sprintf("%d attempts", domain.MaxAttempts)) {
			t.Errorf("error %q does not say the retries were used up", st.Message)
		}
		if em, ok := lastOf(o.msgs, domain.KindError); !ok || em.ErrorKind != c.fault.kind {
			t.Errorf("the error was not recorded for the person: %+v", em)
		}
	case inContinuation:
		st, ok := o.end.State.(domain.ContextExhausted)
		if !ok {
			t.Fatalf("ended %+v, want ContextExhausted", o.end.State)
		}
		// A reply with no text (the malformed tool call: the continuation keeps no tool
		// call) gives the fallback summary as a failure does (REQ-BED-020).
		wantFallback := fails || c.fault.reply.Text == "" && len(c.fault.reply.ToolCalls) > 0
		if got := st.Summary == domain.FallbackSummary; got != wantFallback {
			t.Fatalf("summary %q; fallback %v, want %v", st.Summary, got, wantFallback)
		}
		if cm, ok := lastOf(o.msgs, domain.KindContinuation); !ok || cm.Text != st.Summary {
			t.Errorf("the summary was not stored as a continuation message: %+v", cm)
		}
		attempts := 1 // a benign reply, or a non-retryable failure
		switch {
		case retryable && fails:
			attempts = domain.MaxAttempts
		case retryable:
			attempts = c.times + 1 // the failures, then the request that succeeded
		}
		if o.requests != 1+attempts {
			t.Errorf("the server saw %d requests, want 1 + %d summary attempts", o.requests, attempts)
		}
	case inSubAgent:
		if _, ok := o.end.State.(domain.Idle); !ok {
			t.Fatalf("parent ended %+v, want Idle", o.end.State)
		}
		spawn := spawnResult(o.msgs)
		if spawn == nil {
			t.Fatal("the parent has no spawn_agents result")
		}
		if !fails {
			if _, ok := o.sub.State.(domain.Completed); !ok {
				t.Fatalf("sub-agent ended %+v, want Completed", o.sub.State)
			}
			if spawn.Outcome != domain.OutcomeSuccess || !strings.Contains(spawn.Content, "succeeded") {
				t.Fatalf("spawn_agents result %s: %q", spawn.Outcome, spawn.Content)
			}
			break
		}
		want := c.fault.kind
		if want == domain.ErrorContextLength {
			want = domain.ErrorContextExhausted // REQ-BED-024
		}
		st, ok := o.sub.State.(domain.Failed)
		if !ok || st.ErrKind != want {
			t.Fatalf("sub-agent ended %+v, want Failed(%s)", o.sub.State, want)
		}
		if !strings.Contains(spawn.Content, fmt.Sprintf("Failure (%s)", want)) {
			t.Fatalf("the parent was not told the kind: %q", spawn.Content)
		}
		if spawn.Display == nil || len(spawn.Display.SubAgents) != 1 || spawn.Display.SubAgents[0].Kind != want {
			t.Errorf("spawn_agents display: %+v", spawn.Display)
		}
	}
	if c.fault.name == "malformed tool-call JSON" && c.place != inContinuation {
		msgs := o.msgs
		if c.place == inSubAgent {
			msgs = o.subMsgs
		}
		found := false
		for _, r := range toolResults(msgs) {
			if r.CallID == "m1" {
				found = true
				if r.Outcome != domain.OutcomeError || !strings.Contains(r.Content, "not a valid JSON object") {
					t.Errorf("malformed call answered %s: %q", r.Outcome, r.Content)
				}
			}
		}
		if !found {
			t.Error("the malformed call got no result")
		}
	}
}

func spawnResult(msgs []domain.Message) *domain.ToolResult {
	for _, r := range toolResults(msgs) {
		if r.Name == domain.ToolSpawnAgents {
			return &r
		}
	}
	return nil
}
