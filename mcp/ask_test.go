package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
)

// recordingAsker answers as told and records what it was asked; with block set, it waits
// until its context ends.
type recordingAsker struct {
	mu       sync.Mutex
	elicited []Elicitation
	asked    []ToolConfirmation
	answer   ElicitAnswer
	decision ToolDecision
	block    bool
	waiting  chan struct{}
	// onElicit, when set, answers from the request (as the window's form does).
	onElicit func(Elicitation) ElicitAnswer
}

func (a *recordingAsker) Elicit(ctx context.Context, _ string, req Elicitation) (ElicitAnswer, error) {
	a.mu.Lock()
	a.elicited = append(a.elicited, req)
	a.mu.Unlock()
	if a.block {
		close(a.waiting)
		<-ctx.Done()
		return ElicitAnswer{}, ctx.Err()
	}
	if a.onElicit != nil {
		return a.onElicit(req), nil
	}
	return a.answer, nil
}

func (a *recordingAsker) ConfirmTool(ctx context.Context, req ToolConfirmation) (ToolDecision, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.block {
		close(a.waiting)
		<-ctx.Done()
		return ToolDeny, ctx.Err()
	}
	return a.decision, nil
}

func (a *recordingAsker) confirmations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

// Issue 26: a set's Asker answers its servers' requests for input (the 2026-07-28 round trip;
// the SDK refuses the older request on that revision, and answers both through the same
// handler), and the answer reaches the server.
func TestAskerAnswersElicitation(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	asker := &recordingAsker{answer: ElicitAnswer{Action: ElicitAccept, Content: map[string]any{"name": "Ada"}}}
	set.Ask(asker)
	readyTools(set, ctx, env)
	if out := set.Call(ctx, env, call("mcp__go__ask", `{}`), nil); out.Content != "accept Ada" {
		t.Errorf("%s %q", out.Outcome, out.Content)
	}
	if len(asker.elicited) != 1 || asker.elicited[0].Message != "Your name?" {
		t.Fatalf("asked %+v", asker.elicited)
	}
	fields, err := FormFields(asker.elicited[0].Schema)
	if err != nil || len(fields) != 1 || fields[0].Name != "name" || fields[0].Kind != FieldString || !fields[0].Required {
		t.Fatalf("fields %+v, %v", fields, err)
	}
	asker.answer = ElicitAnswer{Action: ElicitDecline}
	if out := set.Call(ctx, env, call("mcp__go__ask", `{}`), nil); !strings.HasPrefix(out.Content, "decline") {
		t.Errorf("a declined request: %q", out.Content)
	}
}

// Stop while the person is asked for input ends the wait: the call is cancelled and nothing
// waits on.
func TestStopEndsElicitation(t *testing.T) {
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	asker := &recordingAsker{block: true, waiting: make(chan struct{})}
	set.Ask(asker)
	readyTools(set, context.Background(), env)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		<-asker.waiting
		stop()
	}()
	if out := set.Call(ctx, env, call("mcp__go__ask", `{}`), nil); out.Outcome != domain.OutcomeCancelled {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
}

// Issue 26: a tool marked destructive asks the person before it runs outside Unrestricted
// mode; Deny tells the model it did not run, Allow once asks again next time, Always allow is
// saved in the person's file (without restarting the server) and asks no more; Unrestricted
// does not ask; without an Asker it is denied unless --mcp-allow-tools names it.
func TestDestructiveToolAsksFirst_REQ_BED_014(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ConfigFileName)
	if err := SaveConfig(path, Config{Servers: map[string]ServerConfig{"go": selfServer(t, "serve")}}); err != nil {
		t.Fatal(err)
	}
	hub, err := OpenHub(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := hub.NewSet(t.TempDir())
	t.Cleanup(set.Close)
	asker := &recordingAsker{decision: ToolDeny}
	set.Ask(asker)
	env := testEnv(t, t.TempDir(), domain.ModeRestricted)
	readyTools(set, ctx, env)
	pid := set.Call(ctx, env, call("mcp__go__pid", `{}`), nil).Content

	out := set.Call(ctx, env, call("mcp__go__erase", `{}`), nil)
	if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "did not allow") || asker.confirmations() != 1 {
		t.Fatalf("denied: %s %q (asked %d times)", out.Outcome, out.Content, asker.confirmations())
	}
	if a := asker.asked[0]; a.Server != "go" || a.Tool != "erase" || a.Arguments != `{}` {
		t.Errorf("asked %+v", a)
	}
	// A tool that does not say it is destructive runs without a question.
	if out := set.Call(ctx, env, call("mcp__go__echo", `{"text":"hi"}`), nil); out.Content != "hi" || asker.confirmations() != 1 {
		t.Fatalf("echo: %q (asked %d times)", out.Content, asker.confirmations())
	}
	asker.decision = ToolAllowOnce
	for want := 2; want <= 3; want++ {
		if out := set.Call(ctx, env, call("mcp__go__erase", `{}`), nil); out.Content != "erased" || asker.confirmations() != want {
			t.Fatalf("allowed once: %q (asked %d times)", out.Content, asker.confirmations())
		}
	}
	asker.decision = ToolAlwaysAllow
	for range 2 {
		if out := set.Call(ctx, env, call("mcp__go__erase", `{}`), nil); out.Content != "erased" || asker.confirmations() != 4 {
			t.Fatalf("always allowed: %q (asked %d times)", out.Content, asker.confirmations())
		}
	}
	if again := set.Call(ctx, env, call("mcp__go__pid", `{}`), nil).Content; again != pid {
		t.Errorf("allowing a tool restarted the server (pid %s, then %s)", pid, again)
	}
	saved, err := LoadConfig(path)
	if err != nil || !slices.Equal(saved.Servers["go"].AlwaysAllow, []string{"erase"}) {
		t.Fatalf("saved %+v, %v", saved.Servers["go"], err)
	}
	if reopened, _ := OpenHub(path, Options{}); !reopened.ToolAllowed("go", "erase") {
		t.Error("the saved allowance is not read back")
	}

	// Unrestricted: no question.
	plain := &recordingAsker{decision: ToolDeny}
	other := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	other.Ask(plain)
	free := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	readyTools(other, ctx, free)
	if out := other.Call(ctx, free, call("mcp__go__erase", `{}`), nil); out.Content != "erased" || plain.confirmations() != 0 {
		t.Fatalf("unrestricted: %q (asked %d times)", out.Content, plain.confirmations())
	}

	// Headless: denied with the flag that allows it, unless the flag names it.
	headless := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	readyTools(headless, ctx, env)
	if out := headless.Call(ctx, env, call("mcp__go__erase", `{}`), nil); out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, AllowToolsFlag+"=go/erase") {
		t.Fatalf("headless: %s %q", out.Outcome, out.Content)
	}
	allowed := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{AllowTools: []string{"go/erase"}})
	readyTools(allowed, ctx, env)
	if out := allowed.Call(ctx, env, call("mcp__go__erase", `{}`), nil); out.Content != "erased" {
		t.Fatalf("headless with the flag: %s %q", out.Outcome, out.Content)
	}
}

// Stop while the person is asked about a destructive tool: cancelled, and it did not run.
func TestStopWhileConfirmingTool(t *testing.T) {
	needSandbox(t)
	env := testEnv(t, t.TempDir(), domain.ModeRestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	asker := &recordingAsker{block: true, waiting: make(chan struct{})}
	set.Ask(asker)
	readyTools(set, context.Background(), env)
	ctx, stop := context.WithCancel(context.Background())
	go func() {
		<-asker.waiting
		stop()
	}()
	if out := set.Call(ctx, env, call("mcp__go__erase", `{}`), nil); out.Outcome != domain.OutcomeCancelled || !strings.Contains(out.Content, "did not run") {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
}

// A project's own file cannot allow its destructive tools; the person's "alwaysAllow" can.
func TestProjectFileCannotAllowItsTools(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(t.TempDir(), ConfigFileName)
	own := `{"mcpServers": {"mine": {"command": "x", "alwaysAllow": ["wipe"]}}}`
	proj := `{"mcpServers": {"theirs": {"command": "y", "alwaysAllow": ["wipe"]}}}`
	if err := os.WriteFile(path, []byte(own), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ProjectFileName), []byte(proj), 0o600); err != nil {
		t.Fatal(err)
	}
	hub, err := OpenHub(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.AllowProjectServer(dir, "theirs"); err != nil {
		t.Fatal(err)
	}
	if !hub.ToolAllowed("mine", "wipe") || hub.ToolAllowed("theirs", "wipe") {
		t.Fatalf("mine %v, theirs %v", hub.ToolAllowed("mine", "wipe"), hub.ToolAllowed("theirs", "wipe"))
	}
	// Allowed by a click, the project server's tool runs without asking for this session.
	if err := hub.AllowTool("theirs", "wipe"); err == nil || !hub.ToolAllowed("theirs", "wipe") {
		t.Fatalf("project server: %v, allowed %v", err, hub.ToolAllowed("theirs", "wipe"))
	}
}

// The fields of a requested schema, and what the person types turned into the answer.
func TestFormFields(t *testing.T) {
	schema := mustJSON(`{"type":"object","required":["name","count"],"properties":{
		"name":{"type":"string","title":"Your name"},
		"count":{"type":"integer"},
		"ratio":{"type":"number"},
		"ok":{"type":"boolean","default":true},
		"color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]},
		"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]}}}`)
	fields, err := FormFields(schema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"count", "name", "color", "ok", "ratio", "size"}) {
		t.Fatalf("order %v", names)
	}
	if fields[1].Label() != "Your name" || fields[3].Default != "true" || !slices.Equal(fields[2].Labels, []string{"Red", "Green"}) ||
		!slices.Equal(fields[5].Options, []string{"s", "l"}) {
		t.Fatalf("fields %+v", fields)
	}
	got, err := FormContent(fields, map[string]string{"name": " Ada ", "count": "3", "ratio": "0.5", "ok": "true", "color": "Green", "size": "l"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "count": int64(3), "ratio": 0.5, "ok": true, "color": "g", "size": "l"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
	_, err = FormContent(fields, map[string]string{"count": "three", "color": "Blue"})
	for _, part := range []string{"Your name is required", "count must be a whole number", "color must be one of Red, Green"} {
		if err == nil || !strings.Contains(err.Error(), part) {
			t.Errorf("error %v lacks %q", err, part)
		}
	}
	if got, err := FormContent(fields[2:], map[string]string{}); err != nil || len(got) != 1 || got["ok"] != false {
		t.Errorf("optional fields left empty: %v %v", got, err)
	}
	if _, err := FormFields(mustJSON(`{"type":"object","properties":{"tags":{"type":"array"}}}`)); err == nil || !strings.Contains(err.Error(), `"tags"`) {
		t.Errorf("an array field: %v", err)
	}
}
