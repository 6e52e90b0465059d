package remote

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/tools"
)

// remoteGopls is the spec of gopls on the remote side (remotetest.Server.Gopls).
func remoteGopls(t *testing.T, s *remotetest.Server) lsp.Spec {
	t.Helper()
	command, env := s.Gopls(t)
	return lsp.Spec{Name: "gopls", Command: command, Languages: map[string]string{".go": "go"}, Env: env}
}

// TestRemotePatchIsCheckedByGoplsThere_REQ_LSP_001: a remote conversation's language server
// (gopls) runs on the host, as the remote user, and the errors a patch introduced come back
// with the patch's output; a language tool is answered there; the server dies with the
// session.
func TestRemotePatchIsCheckedByGoplsThere_REQ_LSP_001(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	spec := remoteGopls(t, s)
	proj := s.GoProject(t)
	c := dial(t, s)
	defer c.Close()
	servers := &LanguageServers{Specs: []lsp.Spec{spec}, StartTimeout: 2 * time.Minute, RequestTimeout: time.Minute}
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted, LanguageServers: servers}
	out, err := c.Run(context.Background(), where, toolCall(t, domain.ToolPatch, map[string]any{"path": "main.go",
		"patches": []map[string]any{{"operation": "overwrite", "new_text": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tvar n int = \"one\"\n\tfmt.Println(n)\n}\n"}}}))
	if err != nil || out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("patch: %v %+v", err, out)
	}
	if !strings.Contains(out.Content, `main.go:6:14: cannot use "one" (untyped string constant) as int value in variable declaration`) ||
		out.Display == nil || !strings.Contains(out.Display.Summary, "1 new error (gopls)") {
		t.Fatalf("the patch's new error is not reported from the host:\n%s\n%+v", out.Content, out.Display)
	}
	// gopls runs there, as the remote user.
	var found bool
	for _, pid := range s.UserProcesses() {
		if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); strings.Contains(string(b), spec.Command) {
			found = true
		}
	}
	if !found {
		t.Errorf("no gopls of the remote user runs")
	}
	out, err = c.Run(context.Background(), where, toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}))
	if err != nil || !strings.Contains(out.Content, "cannot use") {
		t.Errorf("diagnostics on the host: %v %+v", err, out)
	}
	// Without the configuration (language servers off), a language tool says so.
	out, _ = c.Run(context.Background(), Call{Conversation: "other", Cwd: proj, Mode: domain.ModeUnrestricted},
		toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}))
	if !strings.Contains(out.Content, "language servers are off") {
		t.Errorf("a language tool without servers: %+v", out)
	}
	c.Close()
	endMaster(t, s)
	s.WaitNoProcesses(t)
}

// waitServers waits until the session's report of conv's servers satisfies ok.
func waitServers(t *testing.T, sess *Session, conv string, ok func([]lsp.Status) bool) []lsp.Status {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		got := sess.LanguageServers(conv)
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the servers of %s on the host are reported as %+v", conv, got)
		}
		<-tick.C
	}
}

// TestRemoteLanguageToolsOfferedAndAnsweredOnTheHost_REQ_LSP_003: whether the language
// tools are offered in a remote conversation is decided on the host, by its files and its
// PATH (gopls there serves a Go module; nothing serves a folder of notes), and a definition
// asked there comes back as the place in the host's file; the app hears that gopls runs.
func TestRemoteLanguageToolsOfferedAndAnsweredOnTheHost_REQ_LSP_003(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	spec := remoteGopls(t, s)
	proj, notes := s.GoProject(t), s.ProjectDir(t)
	remotetest.WriteFile(t, filepath.Join(notes, "notes.txt"), "x\n")
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	ctx := context.Background()
	servers := LanguageServers{Specs: []lsp.Spec{spec}, StartTimeout: 2 * time.Minute, RequestTimeout: time.Minute}

	if ok, err := sess.LanguageToolsOffered(ctx, "conv", proj, servers, nil); err != nil || !ok {
		t.Fatalf("a Go module on the host with gopls there: offered %v, %v", ok, err)
	}
	if ok, err := sess.LanguageToolsOffered(ctx, "notes", notes, servers, nil); err != nil || ok {
		t.Errorf("a folder of notes: offered %v, %v", ok, err)
	}
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted, LanguageServers: &servers}
	// The use of n in fmt.Println(n) is defined on line 6 of the host's main.go.
	out, err := sess.Run(ctx, where, toolCall(t, domain.ToolDefinition, map[string]any{"path": "main.go", "line": 7, "column": 14}), nil)
	if err != nil || out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "main.go:6:6: var n int = 1") {
		t.Fatalf("definition on the host: %v %+v", err, out)
	}
	got := waitServers(t, sess, "conv", func(l []lsp.Status) bool { return len(l) == 1 && l[0].State == lsp.StateRunning })
	if got[0].Name != "gopls" || got[0].PID == 0 {
		t.Errorf("reported %+v", got)
	}
	if len(sess.LanguageServers("notes")) != 0 {
		t.Errorf("a conversation that started no server has some: %+v", sess.LanguageServers("notes"))
	}
	sess.Close()
	if len(sess.LanguageServers("conv")) != 0 {
		t.Errorf("a closed session still reports servers")
	}
	s.WaitNoProcesses(t)
}

// TestRemoteLanguageServerStatesReachTheApp_REQ_LSP_009: the header's list of a remote
// conversation's servers is fed by the agent while the call that starts one still runs: a
// server that never answers is "starting", then "down" with why.
func TestRemoteLanguageServerStatesReachTheApp_REQ_LSP_009(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	proj := s.GoProject(t)
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	mute := lsp.Spec{Name: "mute", Command: "/bin/sleep", Args: []string{"1000"}, Languages: map[string]string{".go": "go"}}
	servers := LanguageServers{Specs: []lsp.Spec{mute}, StartTimeout: 3 * time.Second, RequestTimeout: time.Second}
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted, LanguageServers: &servers}
	done := make(chan tools.Output, 1)
	go func() {
		out, _ := sess.Run(context.Background(), where, toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}), nil)
		done <- out
	}()
	waitServers(t, sess, "conv", func(l []lsp.Status) bool { return len(l) == 1 && l[0].State == lsp.StateStarting })
	out := <-done
	if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "did not answer within 3s") {
		t.Errorf("the call on a mute server: %+v", out)
	}
	got := waitServers(t, sess, "conv", func(l []lsp.Status) bool { return len(l) == 1 && l[0].State == lsp.StateDown })
	if got[0].Name != "mute" || got[0].Reason != "it did not answer within 3s of starting" {
		t.Errorf("reported %+v", got)
	}
	sess.Close()
	s.WaitNoProcesses(t)
}

// TestRemoteLanguageOfferNeverHoldsARequestForAConnection: the question asked before each
// model request makes the session's first connection, and a request that stops waiting for
// it does not cut it off (the next call uses it); after the connection dropped it does not
// reconnect — the next tool call does, showing the loss first — and says what the host said
// last.
func TestRemoteLanguageOfferNeverHoldsARequestForAConnection(t *testing.T) {
	noLeaks(t)
	s := remotetest.Start(t)
	proj := s.GoProject(t)
	sess := NewSession(Options{Destination: s.Dest, ConfigFile: s.Config}, nil)
	defer sess.Close()
	servers := LanguageServers{Specs: []lsp.Spec{{Name: "sleepy", Command: "/bin/sleep", Languages: map[string]string{".go": "go"}}}}

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sess.LanguageToolsOffered(gone, "conv", proj, servers, nil); err == nil {
		t.Fatal("a request that does not wait got an answer")
	}
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if _, ok := sess.Info(); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the connection the first question started was not made")
		}
		<-tick.C
	}
	if ok, err := sess.LanguageToolsOffered(context.Background(), "conv", proj, servers, nil); err != nil || !ok {
		t.Fatalf("over the connection: offered %v, %v", ok, err)
	}
	// A question starts the server, which fails (sleep needs an operand): it is listed.
	where := Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeUnrestricted, LanguageServers: &servers}
	if _, err := sess.Run(context.Background(), where, toolCall(t, domain.ToolDiagnostics, map[string]any{"path": "main.go"}), nil); err != nil {
		t.Fatal(err)
	}
	waitServers(t, sess, "conv", func(l []lsp.Status) bool { return len(l) == 1 && l[0].State == lsp.StateDown })

	// The network drops: the next question answers at once from what the host said last,
	// and nothing connects again.
	sess.mu.Lock()
	c := sess.cur
	sess.mu.Unlock()
	for _, pid := range s.LocalSSH() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	<-c.Lost()
	if l := sess.LanguageServers("conv"); len(l) != 0 {
		t.Errorf("the servers of a dropped connection are still listed: %+v", l)
	}
	if ok, err := sess.LanguageToolsOffered(context.Background(), "conv", proj, servers, nil); err != nil || !ok {
		t.Errorf("after the drop: offered %v, %v", ok, err)
	}
	sess.mu.Lock()
	again := sess.cur != nil && sess.cur != c
	sess.mu.Unlock()
	if again || len(s.LocalSSH()) != 0 {
		t.Errorf("the question reconnected after the drop")
	}
	sess.Close()
	s.WaitNoProcesses(t)
}
