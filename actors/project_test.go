package actors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/tools"
)

// Project mode (issue 24) in the runtime: the approval's level, the environment handed to
// the tools, the proxy's socket and refusals, the host cards, and the downgrade.

// fakeProxy is a HostProxy and HostRules that records what the runtime asks of it.
type fakeProxy struct {
	sock string

	mu         sync.Mutex
	listens    []string // "project conversation"
	forgotten  []string
	refusals   map[string][]string
	hosts      map[string][]string
	registries map[string]bool
}

func newFakeProxy(t *testing.T) *fakeProxy {
	return &fakeProxy{sock: filepath.Join(t.TempDir(), "proxy.sock"), refusals: map[string][]string{},
		hosts: map[string][]string{}, registries: map[string]bool{}}
}

func (p *fakeProxy) Listen(project, conversation string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.listens = append(p.listens, project+" "+conversation)
	return p.sock, nil
}

func (p *fakeProxy) Forget(conversation string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.forgotten = append(p.forgotten, conversation)
}

func (p *fakeProxy) TakeRefusals(conversation string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.refusals[conversation]
	delete(p.refusals, conversation)
	return r
}

func (p *fakeProxy) AllowedHosts(project string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.hosts[project])
}

func (p *fakeProxy) AddHost(project, pattern string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts[project] = append(p.hosts[project], pattern)
	return nil
}

func (p *fakeProxy) RemoveHost(project, pattern string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts[project] = slices.DeleteFunc(p.hosts[project], func(h string) bool { return h == pattern })
	return nil
}

func (p *fakeProxy) Registries(project string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.registries[project]
}

func (p *fakeProxy) SetRegistries(project string, on bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.registries[project] = on
	return nil
}

func (p *fakeProxy) snapshot() (listens, forgotten []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.listens), slices.Clone(p.forgotten)
}

// envRecorder runs the real tools and records the environment of each call.
type envRecorder struct {
	inner ToolRunner
	mu    sync.Mutex
	envs  map[string]tools.Env // by call name, the last one
}

func (r *envRecorder) Run(ctx context.Context, env tools.Env, call domain.ToolCall) tools.Output {
	r.mu.Lock()
	r.envs[call.Name] = env
	r.mu.Unlock()
	return r.inner.Run(ctx, env, call)
}

func (r *envRecorder) env(name string) tools.Env {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.envs[name]
}

func withProxy(p HostProxy) harnessOption { return func(c *Config) { c.HostProxy = p } }

// waitEvent waits for a published event that satisfies ok.
func waitEvent[E Event](t *testing.T, h *harness, ok func(E) bool) E {
	t.Helper()
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev := <-h.sub.Events():
			if e, is := ev.(E); is && ok(e) {
				return e
			}
		case <-timeout.C:
			var zero E
			t.Fatalf("timed out waiting for %T", zero)
		}
	}
}

// REQ-BED-015 (issue 24): "Allow edits in this project" moves the conversation to Project
// mode: the result and the notice say what it allows, patch writes in the tree, bash runs
// under Project with the proxy's socket for this conversation, and what the proxy refused
// during the command is appended to its result.
func TestApproveProjectLevel_REQ_BED_015(t *testing.T) {
	t.Parallel()
	proxy := newFakeProxy(t)
	rec := &envRecorder{inner: tools.NewRegistry(), envs: map[string]tools.Env{}}
	h := newHarness(t, withProxy(proxy), withTools(rec))
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{})
	proxy.mu.Lock()
	proxy.refusals[c.ID] = []string{"registry.example.org:443 is not on this project's allowed list"}
	proxy.mu.Unlock()
	h.send(c.ID, "upgrade: write the notes file\npatch: notes.txt <<< hello\nbash: cat notes.txt")
	st := h.waitState(c.ID, domain.StateAwaitingModeApproval).State.(domain.AwaitingModeApproval)
	if err := h.rt.DecideUpgrade(context.Background(), c.ID, st.Exec, domain.ModeProject); err != nil {
		t.Fatal(err)
	}
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeProject {
		t.Fatalf("mode = %s; want project", end.Mode)
	}
	if data, err := os.ReadFile(filepath.Join(h.cwd, "notes.txt")); err != nil || strings.TrimSpace(string(data)) != "hello" {
		t.Fatalf("patch did not write in the tree: %q %v", data, err)
	}
	msgs := h.history(c.ID)
	res := results(msgs)
	if len(res) != 3 {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, domain.ApprovedResultText)
	mustContain(t, res[2].Content, "hello")
	mustContain(t, res[2].Content, "The network proxy refused these connections")
	mustContain(t, res[2].Content, "- registry.example.org:443 is not on this project's allowed list")
	notice := ""
	for _, m := range msgs {
		if m.Kind == domain.KindSystem {
			notice = m.Text
		}
	}
	mustContain(t, notice, domain.ModeChangeNotice(domain.ModeProject, domain.ChangedByApproval))

	env := rec.env(domain.ToolBash)
	if env.Mode != domain.ModeProject || env.ProxySocket != proxy.sock || env.Cwd != h.cwd {
		t.Fatalf("bash ran with %+v; want Project mode with the proxy's socket", env)
	}
	if pol := tools.SandboxPolicy(env); pol.Unrestricted || pol.Project == nil || pol.Project.Tree != h.cwd || pol.Project.ProxySocket != proxy.sock {
		t.Fatalf("bash's policy %+v", pol)
	}
	if listens, _ := proxy.snapshot(); !slices.Contains(listens, h.cwd+" "+c.ID) {
		t.Fatalf("Listen calls %v; want (%s, %s)", listens, h.cwd, c.ID)
	}

	// Deleting the conversation makes the proxy forget it.
	if err := h.rt.Delete(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitDeleted(c.ID)
	if _, forgotten := proxy.snapshot(); !slices.Contains(forgotten, c.ID) {
		t.Fatalf("Forget calls %v; want %s", forgotten, c.ID)
	}
}

// Restricted and Unrestricted commands get no proxy socket, and nothing is asked of the
// proxy for them.
func TestNoProxyOutsideProjectMode(t *testing.T) {
	t.Parallel()
	proxy := newFakeProxy(t)
	rec := &envRecorder{inner: tools.NewRegistry(), envs: map[string]tools.Env{}}
	h := newHarness(t, withProxy(proxy), withTools(rec))
	for _, mode := range []domain.Mode{domain.ModeRestricted, domain.ModeUnrestricted} {
		c := h.create(NewConversation{Mode: mode})
		h.turn(c.ID, "bash: true")
		if env := rec.env(domain.ToolBash); env.ProxySocket != "" || env.Mode != c.Mode {
			t.Fatalf("%s: bash ran with %+v", mode, env)
		}
	}
	if listens, _ := proxy.snapshot(); len(listens) != 0 {
		t.Fatalf("the proxy was asked to listen for %v", listens)
	}
}

// REQ-BED-016 (issue 24): switching down from Project stops a running command at once.
func TestDowngradeFromProjectStopsRunningCommand_REQ_BED_016(t *testing.T) {
	t.Parallel()
	h := newHarness(t, withProxy(newFakeProxy(t)))
	if !h.cfg.Sandbox.Available {
		t.Skip("Landlock is unavailable: conversations are Unrestricted only")
	}
	c := h.create(NewConversation{Mode: domain.ModeProject})
	if c.Mode != domain.ModeProject {
		t.Fatalf("created in %s", c.Mode)
	}
	sleeper := fmt.Sprintf("sleep 60.%d", time.Now().UnixNano()%100000+1)
	h.send(c.ID, fmt.Sprintf("bash: %s ;; bash: echo after", sleeper))
	h.waitState(c.ID, domain.StateToolExecuting)
	waitForProcess(t, sleeper, true)
	isErr(t, h.rt.Downgrade(context.Background(), c.ID, domain.ModeUnrestricted), domain.ErrNotADowngrade)
	if err := h.rt.Downgrade(context.Background(), c.ID, domain.ModeRestricted); err != nil {
		t.Fatal(err)
	}
	waitForProcess(t, sleeper, false)
	end := h.waitRest(c.ID)
	if end.Mode != domain.ModeRestricted {
		t.Fatalf("mode %s", end.Mode)
	}
	res := results(h.history(c.ID))
	if len(res) != 2 || res[0].Outcome != domain.OutcomeCancelled {
		t.Fatalf("results = %+v", res)
	}
	mustContain(t, res[0].Content, "switched the conversation to Restricted mode")
	mustContain(t, res[0].Content, "ran in Project mode until then")
	mustContain(t, res[1].Content, "after")
}

// The host card: AskHost publishes a request and waits; AnswerHost answers it once, and the
// answer is published; a connection that goes away withdraws its card.
func TestAskHostAnswered(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	type answer struct {
		d   HostDecision
		err error
	}
	got := make(chan answer, 1)
	go func() {
		d, err := h.rt.AskHost(context.Background(), h.cwd, "conv-1", "registry.npmjs.org", 443)
		got <- answer{d, err}
	}()
	req := waitEvent(t, h, func(e HostApprovalRequested) bool { return e.ConvID == "conv-1" })
	if req.Host != "registry.npmjs.org" || req.Port != 443 || req.Project != h.cwd || req.RequestID == "" {
		t.Fatalf("request %+v", req)
	}
	if err := h.rt.AnswerHost(req.RequestID, HostAllowAlways); err != nil {
		t.Fatal(err)
	}
	if a := <-got; a.err != nil || a.d != HostAllowAlways || !a.d.Allowed() || !a.d.Remember() {
		t.Fatalf("AskHost = %v, %v", a.d, a.err)
	}
	ans := waitEvent(t, h, func(e HostApprovalAnswered) bool { return e.RequestID == req.RequestID })
	if ans.Decision != HostAllowAlways || ans.Withdrawn || ans.ConvID != "conv-1" {
		t.Fatalf("answered %+v", ans)
	}
	isErr(t, h.rt.AnswerHost(req.RequestID, HostDeny), ErrNoHostRequest)
}

func TestAskHostWithdrawn(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		d, err := h.rt.AskHost(ctx, h.cwd, "conv-2", "evil.example", 80)
		if d != HostDeny {
			err = fmt.Errorf("decision %v after the connection ended", d)
		}
		done <- err
	}()
	req := waitEvent(t, h, func(e HostApprovalRequested) bool { return e.ConvID == "conv-2" })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("AskHost error %v; want context.Canceled", err)
	}
	if ans := waitEvent(t, h, func(e HostApprovalAnswered) bool { return e.RequestID == req.RequestID }); !ans.Withdrawn || ans.Decision != HostDeny {
		t.Fatalf("answered %+v; want withdrawn", ans)
	}
	isErr(t, h.rt.AnswerHost(req.RequestID, HostAllowOnce), ErrNoHostRequest)
}

// Settings reaches the allowed hosts through the runtime, when the proxy keeps them.
func TestHostRulesThroughRuntime(t *testing.T) {
	t.Parallel()
	proxy := newFakeProxy(t)
	proxy.hosts["/src/app"] = []string{"proxy.golang.org", "*.npmjs.org"}
	h := newHarness(t, withProxy(proxy))
	if !h.rt.HostRulesAvailable() {
		t.Fatal("the proxy keeps rules, but the runtime does not offer them")
	}
	if err := h.rt.RemoveHost("/src/app", "*.npmjs.org"); err != nil {
		t.Fatal(err)
	}
	if got := h.rt.AllowedHosts("/src/app"); !slices.Equal(got, []string{"proxy.golang.org"}) {
		t.Fatalf("allowed %v", got)
	}
	if err := h.rt.SetRegistries("/src/app", true); err != nil || !h.rt.Registries("/src/app") {
		t.Fatalf("registries not on: %v", err)
	}
	bare := newHarness(t)
	if bare.rt.HostRulesAvailable() || bare.rt.AllowedHosts("/src/app") != nil {
		t.Fatal("without a proxy there are no rules")
	}
	isErr(t, bare.rt.RemoveHost("/src/app", "x"), ErrNoHostRules)
}

func TestParseHostDecision(t *testing.T) {
	for _, d := range []HostDecision{HostDeny, HostAllowOnce, HostAllowAlways} {
		if got, err := ParseHostDecision(d.String()); err != nil || got != d {
			t.Errorf("%v: %v, %v", d, got, err)
		}
	}
	if _, err := ParseHostDecision("maybe"); err == nil {
		t.Error("an unknown answer was accepted")
	}
}
