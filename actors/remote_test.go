package actors

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/phoenix-desktop/phoenix/custom"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/tools"
)

// hostRunner stands for the remote package's hosts (the real ones run against a real sshd in
// the remote and cmd packages' tests): it records each call, and a "sleep" waits for Stop.
type hostRunner struct {
	mu      sync.Mutex
	calls   []RemoteCall
	hosts   []string
	forgot  []string
	started chan struct{}
	// offered answers LanguageToolsOffered, which offers records; servers answers
	// LanguageServers.
	offered bool
	offers  []string
	servers []lsp.Status
}

func (r *hostRunner) Runs(tool string) bool {
	return tool == domain.ToolBash || tool == domain.ToolPatch
}

func (r *hostRunner) RunRemote(ctx context.Context, host string, call RemoteCall, status func(string)) tools.Output {
	r.mu.Lock()
	r.calls = append(r.calls, call)
	r.hosts = append(r.hosts, host)
	r.mu.Unlock()
	status("Connecting to " + host + "…")
	if strings.Contains(call.Call.Arguments, "sleep") {
		close(r.started)
		<-ctx.Done()
		return tools.Output{Outcome: domain.OutcomeCancelled, Content: "stopped on " + host}
	}
	return tools.Output{Outcome: domain.OutcomeSuccess, Content: "ran on " + host}
}

func (r *hostRunner) Forget(_ context.Context, host string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.forgot = append(r.forgot, host)
	return nil
}

func (r *hostRunner) Checkpoints(host, _, _ string) (CheckpointRepo, error) {
	return nil, errors.New("no checkpoints on " + host + " in this test")
}

func (r *hostRunner) StartStdio(_, _ context.Context, host string, _ mcp.StdioSpec) (mcp.Process, error) {
	return mcp.Process{}, errors.New("no servers on " + host + " in this test")
}

func (r *hostRunner) Connect(context.Context, string, func(string)) error { return nil }

func (r *hostRunner) LanguageToolsOffered(_ context.Context, host, conv, cwd string, _ lsp.Options, _ func(string)) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.offers = append(r.offers, host+":"+cwd)
	return r.offered, nil
}

func (r *hostRunner) LanguageServers(string, string) []lsp.Status { return r.servers }

func withRemote(r RemoteRunner) harnessOption { return func(c *Config) { c.Remote = r } }

func TestRemoteConversationRunsItsToolsOnItsHost(t *testing.T) {
	r := &hostRunner{started: make(chan struct{})}
	h := newHarness(t, withRemote(r))
	// The folder is on the host: nothing of that name exists here.
	c := h.create(NewConversation{Cwd: "/srv/nowhere-here/proj", Host: "me@box"})
	if c.Host != "me@box" || c.Cwd != "/srv/nowhere-here/proj" {
		t.Fatalf("created %+v", c)
	}
	h.turn(c.ID, "bash: ls ;; think: and now")
	res := results(h.history(c.ID))
	if len(res) < 2 || res[0].Content != "ran on me@box" || res[1].Name != domain.ToolThink {
		t.Fatalf("results %+v", res)
	}
	r.mu.Lock()
	got := r.calls[0]
	nCalls := len(r.calls)
	r.mu.Unlock()
	if nCalls != 1 || got.Conversation != c.ID || got.Cwd != c.Cwd || got.Mode != c.Mode || got.Call.Name != domain.ToolBash {
		t.Errorf("the host got %d calls, the first %+v", nCalls, got)
	}

	// Stop reaches the call on the host: its context ends.
	h.send(c.ID, "bash: sleep 100")
	<-r.started
	if err := h.rt.Cancel(context.Background(), c.ID); err != nil {
		t.Fatal(err)
	}
	h.waitRest(c.ID)
	res = results(h.history(c.ID))
	if last := res[len(res)-1]; last.Outcome != domain.OutcomeCancelled {
		t.Errorf("the stopped call: %+v", last)
	}

	// A restart brings it back at rest, still on its host.
	h.restart()
	back, err := h.store.Get(c.ID)
	if err != nil || back.Host != "me@box" || domain.Busy(back.State) {
		t.Errorf("after a restart: %+v %v", back, err)
	}
}

func TestRemoteConversationNeedsARunner(t *testing.T) {
	h := newHarness(t)
	_, err := h.rt.Create(context.Background(), NewConversation{Cwd: "/srv/proj", Host: "me@box"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach other machines") {
		t.Errorf("Create without a runner: %v", err)
	}
	r := &hostRunner{started: make(chan struct{})}
	h2 := newHarness(t, withRemote(r))
	if _, err := h2.rt.Create(context.Background(), NewConversation{Cwd: "proj", Host: "me@box"}); err == nil {
		t.Error("a relative remote folder was accepted")
	}
}

func TestRemoteHostsAreListedAndForgotten(t *testing.T) {
	r := &hostRunner{started: make(chan struct{})}
	h := newHarness(t, withRemote(r))
	h.create(NewConversation{Cwd: "/srv/a", Host: "me@box"})
	h.create(NewConversation{Cwd: "/srv/b", Host: "me@box"})
	h.create(NewConversation{Cwd: "/srv/c", Host: "devbox"})
	h.create(NewConversation{}) // a local one
	hosts, err := h.rt.RemoteHosts(context.Background())
	if err != nil || strings.Join(hosts, ",") != "devbox,me@box" {
		t.Errorf("hosts %v, %v", hosts, err)
	}
	if err := h.rt.ForgetHost(context.Background(), "me@box"); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.Join(r.forgot, ",") != "me@box" {
		t.Errorf("forgot %v", r.forgot)
	}
}

// A fork and a continuation of a conversation on another machine stay on that machine.
func TestRemoteConversationForkAndContinuationKeepTheHost(t *testing.T) {
	r := &hostRunner{started: make(chan struct{})}
	h := newHarness(t, withRemote(r))
	c := h.create(NewConversation{Cwd: "/srv/p", Host: "me@box"})
	h.turn(c.ID, "bash: ls")
	msgs := h.history(c.ID)
	fork, err := h.rt.Fork(context.Background(), c.ID, msgs[len(msgs)-1].Seq)
	if err != nil || fork.Host != "me@box" || fork.Cwd != "/srv/p" {
		t.Errorf("fork %+v, %v", fork, err)
	}
	next, err := h.rt.Create(context.Background(), NewConversation{Cwd: "/srv/p", ContinuedFrom: c.ID})
	if err != nil || next.Host != "me@box" {
		t.Errorf("continuation %+v, %v", next, err)
	}
}

// hooksHost is a host whose agent reads and runs its projects' hooks (the real one does it
// there: remote.TestRemoteProjectHooksRunOnTheHost): its project holds one PreToolUse hook
// that refuses every call, which "runs" only when the app sends the fingerprint the person
// approved for that host.
type hooksHost struct {
	*hostRunner
	proj custom.ProjectHooks
	// runs records host, approved fingerprint and event of each RunProjectHooks.
	runs []string
}

func newHooksHost(cwd string) *hooksHost {
	cfg, _, _ := custom.ParseConfig([]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":"exit 2"}]}]}}`))
	h := &hooksHost{hostRunner: &hostRunner{started: make(chan struct{})},
		proj: custom.ProjectHooks{Cwd: cwd, Files: []string{".phoenix/hooks.json"}, Config: cfg}}
	h.proj.Fingerprint = custom.OpenHooks("").Judge("x", h.proj).Fingerprint
	return h
}

func (h *hooksHost) ProjectHooks(_ context.Context, host, dir string, _ func(string)) (ProjectHooks, error) {
	p := h.proj
	p.Cwd = dir
	return p, nil
}

func (h *hooksHost) RunProjectHooks(_ context.Context, host string, mode domain.Mode, approved string, in custom.Input, _ func(string)) (ProjectHooks, []custom.Result, error) {
	h.mu.Lock()
	h.runs = append(h.runs, host+" "+approved+" "+string(in.HookEventName))
	h.mu.Unlock()
	p := h.proj
	p.Cwd = in.Cwd
	if approved != h.proj.Fingerprint || in.HookEventName != custom.PreToolUse || in.ToolName != domain.ToolBash {
		return p, nil, nil
	}
	return p, []custom.Result{{Event: in.HookEventName, Command: "exit 2", Project: true, Exit: 2, Blocked: true,
		Reason: "refused on " + host + " in " + string(mode)}}, nil
}

func (h *hooksHost) PathExists(context.Context, string, string) (bool, error) { return true, nil }

func (h *hooksHost) runsSeen() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.runs)
}

// TestRemoteProjectHooksRunOnTheirHostAndPersonsHere: a remote conversation's project hooks are
// the host's, run there once the person approved them for that host — an approval of the same
// folder here or on another host does not count, and hooks in a folder of the same path here
// never run — while the person's own hooks run here, in a private temp dir (the project is
// not here), told of the host and the folder there.
func TestRemoteProjectHooksRunOnTheirHostAndPersonsHere(t *testing.T) {
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "hooks.json"), `{"hooks":{
		"UserPromptSubmit":[{"hooks":[{"command":"grep -q forbidden && { echo 'no forbidden prompts' >&2; exit 2; }; exit 0"}]}],
		"PostToolUse":[{"matcher":"Bash","hooks":[{"command":"echo \"here in $PWD for $PHOENIX_REMOTE_HOST:$CLAUDE_PROJECT_DIR\""}]}]}}`)
	host := newHooksHost("")
	h := newHarness(t, withHooks(cfgDir), withRemote(host))
	// A folder of the same path here, with hooks approved here: never the remote project's.
	writeFile(t, filepath.Join(h.cwd, ".phoenix", "hooks.json"), `{"hooks":{"PreToolUse":[{"hooks":[{"command":"echo local >&2; exit 2"}]}]}}`)
	if p, _ := h.rt.ProjectHooks(context.Background(), "", h.cwd); h.rt.AllowProjectHooks(context.Background(), "", h.cwd, p.Fingerprint) != nil {
		t.Fatal("the local folder's hooks could not be approved")
	}

	c := h.create(NewConversation{Cwd: h.cwd, Host: "me@box"})
	if err := h.rt.Send(context.Background(), c.ID, "something forbidden", nil); !errors.Is(err, ErrHookRefused) {
		t.Fatalf("the person's prompt hook did not run for a remote conversation: %v", err)
	}
	_, hooks, notices := h.turnEvents(c.ID, "bash: ls")
	if res := results(h.history(c.ID)); len(res) != 1 || res[0].Content != "ran on me@box" {
		t.Fatalf("before any approval on the host: results %+v", res)
	}
	var line string
	for _, hr := range hooks {
		if hr.ConvID == c.ID && hr.Result.Event == custom.PostToolUse {
			line = hr.Text
		}
	}
	if !strings.Contains(line, "for me@box:"+h.cwd) || strings.Contains(line, "here in "+h.cwd+" ") {
		t.Errorf("the person's hook ran in the project's folder, or was not told of the host: %q", line)
	}
	told := false
	for _, n := range notices {
		told = told || n.ConvID == c.ID && strings.Contains(n.Text, "on me@box has hooks (.phoenix/hooks.json)")
	}
	if !told {
		t.Errorf("the person was not told of the host's waiting hooks: %+v", notices)
	}
	if runs := host.runsSeen(); len(runs) == 0 || !strings.HasPrefix(runs[0], "me@box  ") {
		t.Errorf("the host's hooks were asked with an approval: %q", runs)
	}

	// Approved for me@box (as Settings → Hooks does, reading them there again).
	shown, err := h.rt.ProjectHooks(context.Background(), "me@box", h.cwd)
	if err != nil || shown.Allowed || shown.Host != "me@box" {
		t.Fatalf("the host's hooks as shown: %+v %v", shown, err)
	}
	if err := h.rt.AllowProjectHooks(context.Background(), "me@box", h.cwd, shown.Fingerprint); err != nil {
		t.Fatal(err)
	}
	h.turn(c.ID, "bash: rm -rf build")
	res := results(h.history(c.ID))
	if last := res[len(res)-1]; last.Outcome != domain.OutcomeError || !strings.Contains(last.Content, "refused on me@box in "+string(c.Mode)) {
		t.Fatalf("the approved host's hook did not refuse the call: %+v", last)
	}
	host.mu.Lock()
	ran := len(host.calls)
	host.mu.Unlock()
	if ran != 1 {
		t.Errorf("a call refused by the host's hook ran there: %d calls", ran)
	}

	// The same folder on another host is not approved by it.
	other := h.create(NewConversation{Cwd: h.cwd, Host: "me@box2"})
	h.turn(other.ID, "bash: rm -rf build")
	if res := results(h.history(other.ID)); len(res) != 1 || res[0].Content != "ran on me@box2" {
		t.Fatalf("on another host: %+v", res)
	}
	for _, r := range host.runsSeen() {
		if parts := strings.SplitN(r, " ", 3); parts[0] == "me@box2" && parts[1] != "" {
			t.Errorf("the approval on me@box was sent for me@box2: %q", r)
		}
	}
}

// A sub-agent of a conversation on another machine works there too: its bash goes to the
// same host, in the same folder.
func TestRemoteSubAgentWorksOnTheSameHost(t *testing.T) {
	r := &hostRunner{started: make(chan struct{})}
	h := newHarness(t, withRemote(r))
	c := h.create(NewConversation{Cwd: "/srv/p", Host: "me@box"})
	h.turn(c.ID, "agents: bash: ls")
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.calls) != 1 || r.hosts[0] != "me@box" || r.calls[0].Cwd != "/srv/p" || r.calls[0].Conversation == c.ID {
		t.Errorf("the sub-agent's calls: %+v on %v", r.calls, r.hosts)
	}
}

// TestRemoteConversationIsOfferedItsHostsLanguageTools_REQ_LSP_003: whether a remote
// conversation's request offers the language tools is its host's answer, asked about its
// folder there (nothing of that name is here); a host that says no, or language servers that
// are off, offer none. The header's list of servers is the host's.
func TestRemoteConversationIsOfferedItsHostsLanguageTools_REQ_LSP_003(t *testing.T) {
	offered := func(h *harness) []bool {
		var got []bool
		for _, r := range h.srv.Requests() {
			has := false
			for _, tool := range r.Chat.Tools {
				has = has || tool.Function.Name == domain.ToolDefinition
			}
			got = append(got, has)
		}
		return got
	}
	r := &hostRunner{started: make(chan struct{}), offered: true,
		servers: []lsp.Status{{Name: "gopls", State: lsp.StateDown, Reason: "it did not answer within 30s of starting"}}}
	h := newHarness(t, withRemote(r), func(c *Config) { c.LSP = &lsp.Options{} })
	c := h.create(NewConversation{Cwd: "/srv/nowhere-here/proj", Host: "me@box"})
	h.turn(c.ID, "bash: ls")
	if got := offered(h); len(got) != 2 || !got[0] || !got[1] {
		t.Fatalf("requests offering definition: %v", got)
	}
	r.mu.Lock()
	offers := slices.Clone(r.offers)
	r.offered = false
	r.mu.Unlock()
	if len(offers) != 2 || offers[0] != "me@box:/srv/nowhere-here/proj" {
		t.Errorf("the host was asked %v", offers)
	}
	if got := LanguageServersText(h.rt.LanguageServers(c.ID)); got != "Language servers in this conversation:\n• gopls: down — it did not answer within 30s of starting" {
		t.Errorf("the header's details say %q", got)
	}
	h.turn(c.ID, "echo: hi")
	if got := offered(h); len(got) != 3 || got[2] {
		t.Errorf("a host that serves nothing still offered them: %v", got)
	}

	// Language servers off: the host is not asked, nothing is offered.
	r2 := &hostRunner{started: make(chan struct{}), offered: true}
	h2 := newHarness(t, withRemote(r2))
	c2 := h2.create(NewConversation{Cwd: "/srv/proj", Host: "me@box"})
	h2.turn(c2.ID, "echo: hi")
	if got := offered(h2); len(got) != 1 || got[0] || len(r2.offers) != 0 {
		t.Errorf("with language servers off: offered %v, asked %v", got, r2.offers)
	}
}
