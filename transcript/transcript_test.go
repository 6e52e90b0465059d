package transcript

import (
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
)

var update = flag.Bool("update", false, "rewrite testdata/export.golden.md from the current exporter")

// Golden files shared with the window's and the command line's tests, which check that
// Ctrl+E and `phoenix-desktop export` write exactly these bytes for this conversation.
const (
	sampleFile = "testdata/conversation.json"
	goldenFile = "testdata/export.golden.md"
)

func loadSample(t *testing.T) (domain.Conversation, []domain.Message) {
	t.Helper()
	raw, err := os.ReadFile(sampleFile)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Conversation domain.Conversation `json:"conversation"`
		Messages     []domain.Message    `json:"messages"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	return s.Conversation, s.Messages
}

func TestMarkdownGolden(t *testing.T) {
	conv, msgs := loadSample(t)
	got := Markdown(conv, msgs)
	if *update {
		if err := os.WriteFile(goldenFile, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("the export differs from %s (run go test ./transcript -update after a deliberate change):\n%s", goldenFile, got)
	}
	// Every message kind is in the sample, so the golden file covers them all.
	kinds := map[domain.MessageKind]bool{}
	for _, m := range msgs {
		kinds[m.Kind] = true
	}
	if len(kinds) != 6 {
		t.Errorf("the sample covers %d message kinds, want all 6", len(kinds))
	}
	// A result holding a fence gets a longer one, so the document stays well-formed.
	if !strings.Contains(got, "````\n--- FAIL") {
		t.Error("a result containing ``` was not fenced with a longer fence")
	}
}

func bash(cmd string) domain.ToolCall {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return domain.ToolCall{ID: "a", Name: domain.ToolBash, Arguments: string(b)}
}

func TestStatus(t *testing.T) {
	since := time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC)
	cases := []struct {
		name  string
		state domain.State
		now   time.Time
		want  string
	}{
		{"idle", domain.Idle{}, since, "Ready"},
		{"thinking", domain.LLMRequesting{Exec: 1, Attempt: 1}, since, "Thinking…"},
		{"second attempt in flight", domain.LLMRequesting{Exec: 1, Attempt: 2}, since, "Thinking… (attempt 2 of 3)"},
		{"retry countdown REQ_BED_006", domain.LLMRequesting{Exec: 1, Attempt: 2, RetryPending: true, RetryDelay: 4 * time.Second}, since, "Retrying (2 of 3) in 4 s"},
		{"retry countdown later", domain.LLMRequesting{Exec: 1, Attempt: 2, RetryPending: true, RetryDelay: 4 * time.Second}, since.Add(1500 * time.Millisecond), "Retrying (2 of 3) in 3 s"},
		{"retry overdue", domain.LLMRequesting{Exec: 1, Attempt: 3, RetryPending: true, RetryDelay: time.Second}, since.Add(5 * time.Second), "Retrying (3 of 3) in 0 s"},
		{"retry without a clock", domain.LLMRequesting{Exec: 1, Attempt: 2, RetryPending: true, RetryDelay: 4 * time.Second}, time.Time{}, "Retrying (2 of 3) in 4 s"},
		{"bash with elapsed time", domain.ToolExecuting{Exec: 2, Current: bash("go test ./...")}, since.Add(12 * time.Second), "Running bash: `go test ./...` 0:12"},
		{"bash without a clock", domain.ToolExecuting{Exec: 2, Current: bash("go test ./...")}, time.Time{}, "Running bash: `go test ./...`"},
		{"long bash command", domain.ToolExecuting{Exec: 2, Current: bash(strings.Repeat("x", 100))}, since.Add(61 * time.Second), "Running bash: `" + strings.Repeat("x", 79) + "…` 1:01"},
		{"approval REQ_BED_015", domain.AwaitingModeApproval{Exec: 3}, since, "Waiting for your approval"},
		{"sub-agents", domain.AwaitingSubAgents{Exec: 4, Outcomes: []domain.SubAgentOutcome{{Status: domain.SubAgentSucceeded}, {Status: domain.SubAgentPending}}}, since.Add(3 * time.Hour), "Waiting for sub-agents (1 of 2 done) 3:00:00"},
		{"continuation", domain.AwaitingContinuation{Exec: 5, Attempt: 1}, since, "Writing the continuation summary…"},
		{"exhausted REQ_BED_021", domain.ContextExhausted{Summary: "s"}, since, "Context exhausted"},
		{"rate limited", domain.Error{Message: "rate limited.", ErrKind: domain.ErrorRateLimit}, since, "Error: rate limited — send a message to retry"},
		{"auth", domain.Error{Message: "invalid API key", ErrKind: domain.ErrorAuth}, since, "Error: invalid API key — check the API key in Settings, then send a message to retry"},
		{"sub-agent done", domain.Completed{Result: "r", Success: true}, since, "Finished"},
		{"sub-agent failed", domain.Failed{Message: "deadline"}, since, "Failed: deadline"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Status(domain.Conversation{State: c.state}, since, c.now); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestEveryStateHasAWord: each kind the core has gets its own word, and Status starts with
// the same meaning (not checked word for word: the status line says more).
func TestEveryStateHasAWord(t *testing.T) {
	seen := map[string]domain.StateKind{}
	for _, k := range []domain.StateKind{domain.StateIdle, domain.StateLLMRequesting, domain.StateToolExecuting,
		domain.StateAwaitingModeApproval, domain.StateAwaitingSubAgents, domain.StateAwaitingContinuation,
		domain.StateContextExhausted, domain.StateError, domain.StateCompleted, domain.StateFailed} {
		w := StateWord(k)
		if other, dup := seen[w]; dup {
			t.Errorf("%s and %s are both called %q", k, other, w)
		}
		seen[w] = k
	}
}

// TestStoppedWordSaysInterruptedForEveryWorkingState: list never calls a turn nothing runs
// "thinking" (issue 25); the working states are the core's own (domain.Busy).
func TestStoppedWordSaysInterruptedForEveryWorkingState(t *testing.T) {
	for _, s := range []domain.State{domain.Idle{}, domain.LLMRequesting{}, domain.ToolExecuting{},
		domain.AwaitingModeApproval{}, domain.AwaitingSubAgents{}, domain.AwaitingContinuation{},
		domain.ContextExhausted{}, domain.Error{}, domain.Completed{}, domain.Failed{}} {
		got := StoppedWord(s.Kind())
		switch {
		case domain.Busy(s) && got != "interrupted":
			t.Errorf("%s is listed as %q; want interrupted", s.Kind(), got)
		case !domain.Busy(s) && got != StateWord(s.Kind()):
			t.Errorf("%s is listed as %q; want %q", s.Kind(), got, StateWord(s.Kind()))
		}
	}
}

func TestToolCallSummary(t *testing.T) {
	cases := []struct {
		name string
		call domain.ToolCall
		want string
	}{
		{"bash shows the full command", bash("cd sub && go test ./... -run 'TestX|TestY' -count=1"), "cd sub && go test ./... -run 'TestX|TestY' -count=1"},
		{"patch shows the path", domain.ToolCall{Name: domain.ToolPatch, Arguments: `{"path":"cmd/main.go","patches":[{}]}`}, "cmd/main.go"},
		{"patch with several changes", domain.ToolCall{Name: domain.ToolPatch, Arguments: `{"path":"a.go","patches":[{},{}]}`}, "a.go (2 changes)"},
		{"keyword search", domain.ToolCall{Name: domain.ToolKeywordSearch, Arguments: `{"query":"where is the parser","search_terms":["parse"]}`}, "where is the parser"},
		{"spawn", domain.ToolCall{Name: domain.ToolSpawnAgents, Arguments: `{"tasks":["x","y","z"]}`}, "3 tasks"},
		{"think is cut", domain.ToolCall{Name: domain.ToolThink, Arguments: `{"thoughts":"` + strings.Repeat("t", 200) + `"}`}, strings.Repeat("t", 119) + "…"},
		{"malformed", domain.ToolCall{Name: domain.ToolBash, Arguments: `{"command":`}, `{"command":`},
		{"unknown tool", domain.ToolCall{Name: "mystery", Arguments: `{"a": 1}`}, `{"a": 1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ToolCallSummary(c.call); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestKeyArgumentsExistInTheSchemas: every tool the model is offered has a key argument, and
// it is a property of that tool's schema, so a renamed argument cannot silently empty the
// summaries.
func TestKeyArgumentsExistInTheSchemas(t *testing.T) {
	for _, spec := range append(domain.ToolsFor(false), domain.ToolsFor(true)...) {
		key, ok := keyArgument[spec.Name]
		if !ok {
			t.Errorf("tool %s has no key argument for its summary", spec.Name)
			continue
		}
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(spec.Parameters, &schema); err != nil {
			t.Fatal(err)
		}
		if _, ok := schema.Properties[key.name]; !ok {
			t.Errorf("tool %s: its summary reads %q, which its schema does not have", spec.Name, key.name)
		}
	}
}

func TestProgressText(t *testing.T) {
	for _, tt := range []struct {
		progress, total float64
		message, want   string
	}{
		{3, 120, "", " · 3 of 120"},
		{0.4, 1, "", " · 40%"},
		{7, 0, "indexing src/", " · 7: indexing src/"},
	} {
		if got := Progress(tt.progress, tt.total, tt.message); got != tt.want {
			t.Errorf("Progress(%v, %v, %q) = %q, want %q", tt.progress, tt.total, tt.message, got, tt.want)
		}
	}
}
