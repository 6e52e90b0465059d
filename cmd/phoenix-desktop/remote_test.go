package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/actors"
	"github.com/phoenix-desktop/phoenix/checkpoint"
	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/lsp"
	"github.com/phoenix-desktop/phoenix/mcp"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

// TestDoctorRemoteRefusesAnOptionAsHost: the host goes to ssh as its destination, so a value
// ssh would read as an option (-oProxyCommand=…) is refused before ssh runs.
func TestDoctorRemoteRefusesAnOptionAsHost(t *testing.T) {
	code, out, errs := cli(t, "doctor", "--remote", "-oProxyCommand=touch /tmp/phoenix-doctor-pwned")
	if code == 0 || !strings.Contains(errs, "starts with \"-\"") {
		t.Errorf("doctor --remote -o…: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestChatRemoteRunsToolsOnTheHost_REQ_BED_010: a headless conversation on another machine
// (a real sshd on 127.0.0.1, another user) runs bash and patch there, in its folder there,
// and Restricted mode refuses writes on that side; nothing is left running on either side.
func TestChatRemoteRunsToolsOnTheHost_REQ_BED_010(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	data := t.TempDir()

	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--remote", s.Dest, "--cwd", proj, "--unrestricted",
		"bash: id -un; pwd ;; patch: made.txt <<< made there")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "in "+s.Dest+":"+proj, remotetest.TestUser, proj)
	fi, err := os.Stat(filepath.Join(proj, "made.txt"))
	if err != nil {
		t.Fatalf("patch did not write on the remote side: %v\n%s", err, out)
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != s.UID {
		t.Errorf("made.txt belongs to uid %d, not the remote user", st.Uid)
	}

	// Restricted (the default): the remote kernel's sandbox refuses the write there.
	code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--remote", s.Dest, "--cwd", proj, "bash: echo x > refused.txt")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(proj, "refused.txt")); err == nil {
		t.Errorf("a Restricted remote command wrote on the remote side:\n%s", out)
	}
	if !strings.Contains(out, "Read-only file system") && !strings.Contains(out, "Permission denied") {
		t.Errorf("the refusal is not the sandbox's:\n%s", out)
	}
	s.WaitNoProcesses(t)
}

func TestChatRemoteNeedsAnAbsoluteFolder(t *testing.T) {
	code, _, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--remote", "somehost", "--cwd", "project", "hello")
	if code == 0 || !strings.Contains(errs, "--cwd must be the absolute path") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func mustContainAll(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// TestChatRemoteConnectionDropsMidCommand: the network to the host drops while a command
// runs there: the turn shows the lost connection within 5 s and comes to rest, and nothing
// of the command survives on the remote side (its agent sees its input end).
func TestChatRemoteConnectionDropsMidCommand(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj, "--unrestricted",
			"bash: sleep 300 & echo $! > pid; wait")
		done <- result{code, out, errs}
	}()
	pidFile := filepath.Join(proj, "pid")
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	for {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			break
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("the remote command did not start within 60 s")
		}
	}
	// Every ssh process of this host ends at once: the network is gone.
	for _, pid := range s.LocalSSH() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case r := <-done:
		if !strings.Contains(r.out, "was lost while this ran") {
			t.Errorf("the turn does not say the connection was lost (exit %d):\n%s\n%s", r.code, r.out, r.errs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not come to rest within 5 s of the drop")
	}
	s.WaitNoProcesses(t)
}

// TestChatRemoteRewindRestoresOnTheHost: a remote conversation's checkpoints are taken on the
// host (its shadow repository is there, the store here keeps only ids and file lists), and
// `rewind` restores the project there, keeping the files the person changed there by hand,
// as for a local project; `rewind --undo` puts everything back; deleting the conversation
// removes its checkpoints on the host.
func TestChatRemoteRewindRestoresOnTheHost(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	data := t.TempDir()
	// The person's own edits on the remote machine, as the remote user.
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(proj, name)
		remotetest.WriteFile(t, p, text)
		if err := os.Chown(p, s.UID, s.UID); err != nil {
			t.Fatal(err)
		}
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(proj, name))
		if err != nil {
			return "<missing>"
		}
		return string(b)
	}
	write("notes.txt", "n1\n")
	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", data, "--remote", s.Dest, "--cwd", proj,
		"patch: agent.txt <<< by the agent")
	if code != 0 || read("agent.txt") != "by the agent" {
		t.Fatalf("the first turn: exit %d, agent.txt %q\n%s\n%s", code, read("agent.txt"), out, errs)
	}
	// The call connects before its checkpoint, and the person sees it connect.
	mustContainAll(t, out+errs, "Connecting to "+s.Dest+"…")
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID
	write("mine.txt", "mine\n")
	if code, out, errs = cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "bash: echo n2 > notes.txt"); code != 0 || read("notes.txt") != "n2\n" {
		t.Fatalf("the second turn: exit %d, notes.txt %q\n%s\n%s", code, read("notes.txt"), out, errs)
	}
	var cps []actors.Checkpoint
	code, out, _ = cli(t, "checkpoints", id, "--data-dir", data, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &cps) != nil || len(cps) != 2 || !cps[0].Complete() {
		t.Fatalf("checkpoints: %d %s", code, out)
	}
	if got := checkpoint.Paths(cps[0].Files); len(got) != 1 || got[0] != "agent.txt" {
		t.Errorf("the first checkpoint's files: %+v", cps[0].Files)
	}
	shadow := filepath.Join(s.Home, ".local/share/phoenix-desktop/remote-checkpoints", id, "shadow.git")
	if _, err := os.Stat(shadow); err != nil {
		t.Fatalf("no shadow repository on the host: %v", err)
	}
	// Nothing of the remote files is kept here: no shadow repository in the data directory.
	filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "shadow.git" {
			t.Errorf("a shadow repository was made on this machine: %s", p)
		}
		return nil
	})

	code, out, errs = cli(t, "rewind", id, strconv.FormatUint(uint64(cps[0].ID), 10), "--data-dir", data)
	if code != 0 {
		t.Fatalf("rewind: exit %d\n%s\n%s", code, out, errs)
	}
	if read("agent.txt") != "<missing>" || read("notes.txt") != "n1\n" {
		t.Fatalf("the rewind left agent.txt %q, notes.txt %q on the host\n%s", read("agent.txt"), read("notes.txt"), out)
	}
	if read("mine.txt") != "mine\n" {
		t.Fatalf("the rewind removed the person's file on the host:\n%s", out)
	}
	mustContainAll(t, out, "removed   agent.txt", "reverted  notes.txt", "kept      mine.txt")

	code, out, errs = cli(t, "rewind", id, "--undo", "--data-dir", data)
	if code != 0 || read("agent.txt") != "by the agent" || read("notes.txt") != "n2\n" || read("mine.txt") != "mine\n" {
		t.Fatalf("rewind --undo: exit %d, agent.txt %q, notes.txt %q\n%s\n%s", code, read("agent.txt"), read("notes.txt"), out, errs)
	}

	// The Changes view's listing and a revert of one file are served by the host too.
	code, out, errs = cli(t, "changes", id, "--data-dir", data)
	if code != 0 {
		t.Fatalf("changes: exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "agent.txt", "notes.txt", "+by the agent", "+n2")
	code, out, errs = cli(t, "revert", id, "--file", "notes.txt", "--data-dir", data)
	if code != 0 || read("notes.txt") != "n1\n" || read("agent.txt") != "by the agent" {
		t.Fatalf("revert --file notes.txt: exit %d, notes.txt %q\n%s\n%s", code, read("notes.txt"), out, errs)
	}

	if code, out, errs = cli(t, "delete", id, "--data-dir", data); code != 0 {
		t.Fatalf("delete: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Dir(shadow)); !os.IsNotExist(err) {
		t.Errorf("the deleted conversation's checkpoints are still on the host: %v", err)
	}
	s.WaitNoProcesses(t)
}

// TestChatRemoteMCPServerRunsOnTheHost: a stdio MCP server of a remote conversation (the npm
// reference file-system server) runs on the host, as the remote user, under the remote
// sandbox in the conversation's mode, its streams relayed over the SSH connection: its write
// lands there, is checkpointed there, and Restricted mode refuses it there. Nothing of it is
// left running on either side when the conversation ends.
func TestChatRemoteMCPServerRunsOnTheHost(t *testing.T) {
	mcptest.Server(t, mcptest.Filesystem) // skips (fails in CI) when it is not installed
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "servers.json")
	// The command as the remote side finds it on its PATH.
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"fs": {Command: "mcp-server-filesystem", Args: []string{proj}}})
	made := filepath.Join(proj, "by-mcp.txt")
	call := `mcp: fs write_file {"path":"` + made + `","content":"written by the server"}`
	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--mcp-config", file, "--data-dir", data, "--remote", s.Dest, "--cwd", proj, call)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	fi, err := os.Stat(made)
	if err != nil {
		t.Fatalf("the MCP server did not write on the host: %v\n%s\n%s", err, out, errs)
	}
	if st := fi.Sys().(*syscall.Stat_t); int(st.Uid) != s.UID {
		t.Errorf("by-mcp.txt belongs to uid %d, not the remote user: the server did not run there", st.Uid)
	}
	code, out, _ = cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	var cps []actors.Checkpoint
	code, out, _ = cli(t, "checkpoints", list[0].ID, "--data-dir", data, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &cps) != nil || len(cps) != 1 || len(cps[0].Files) != 1 || cps[0].Files[0].Path != "by-mcp.txt" {
		t.Errorf("the MCP call's checkpoint on the host: %d %s", code, out)
	}
	s.WaitNoProcesses(t)

	// Restricted (the default): the same server runs under the read-only policy there (the
	// person allowed the tool, so only the sandbox stands in the way).
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"fs": {Command: "mcp-server-filesystem", Args: []string{proj}, AlwaysAllow: []string{"write_file"}}})
	refused := filepath.Join(proj, "refused.txt")
	code, out, errs = cli(t, "chat", "--demo", "--mcp-config", file, "--data-dir", data, "--remote", s.Dest, "--cwd", proj,
		`mcp: fs write_file {"path":"`+refused+`","content":"no"}`)
	if code != 0 {
		t.Fatalf("restricted: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(refused); err == nil {
		t.Errorf("a Restricted remote MCP server wrote on the host:\n%s", out)
	}
	if !strings.Contains(out, "EROFS") && !strings.Contains(out, "read-only") && !strings.Contains(out, "EACCES") {
		t.Errorf("the refusal is not the sandbox's:\n%s", out)
	}
	s.WaitNoProcesses(t)
}

// TestChatRemotePatchIsCheckedByItsLanguageServerThere: the person's language servers
// (lsp.json) of a remote conversation run on the host: a patch that breaks a Go file shows
// gopls's new error, found there, in the patch's result.
func TestChatRemotePatchIsCheckedByItsLanguageServerThere(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	useRemoteGopls(t, s)
	proj := s.GoProject(t)

	code, out, errs := cli(t, "chat", "--demo", "--unrestricted", "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj,
		"patch: main.go ::: var n int = 1 ==> var n int = \"one\"")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "gopls reports 1 new error", `cannot use "one" (untyped string constant) as int value`)
	s.WaitNoProcesses(t)
}

// useRemoteGopls makes the person's lsp.json (in a fresh XDG_CONFIG_HOME) name a gopls for
// .go files that only the remote machine's user has (remotetest.Server.Gopls).
func useRemoteGopls(t *testing.T, s *remotetest.Server) {
	t.Helper()
	command, env := s.Gopls(t)
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	lspJSON, err := json.Marshal(map[string]any{"lsp": map[string]any{"gopls": map[string]any{
		"command": command, "env": env, "extensions": []string{".go"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cfg, "phoenix-desktop"), 0o700); err != nil {
		t.Fatal(err)
	}
	remotetest.WriteFile(t, filepath.Join(cfg, "phoenix-desktop", lsp.ConfigFileName), string(lspJSON))
}

// TestChatRemoteMCPServerDropsWithTheConnection: the network to the host drops while a call
// of a remote conversation's MCP server (the reference file-system server) is in flight there
// — it reads a FIFO nobody writes — : the turn ends within 5 s with the call's error, and
// nothing of the server survives on the remote side.
func TestChatRemoteMCPServerDropsWithTheConnection(t *testing.T) {
	mcptest.Server(t, mcptest.Filesystem)
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	fifo := filepath.Join(proj, "never-written")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(fifo, s.UID, s.UID); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"fs": {Command: "mcp-server-filesystem", Args: []string{proj}}})
	type result struct {
		code      int
		out, errs string
	}
	done := make(chan result, 1)
	go func() {
		code, out, errs := cli(t, "chat", "--demo", "--mcp-config", file, "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj,
			`mcp: fs read_text_file {"path":"`+fifo+`"}`)
		done <- result{code, out, errs}
	}()
	// Opening the FIFO to write returns once the server there opened it to read: the call is
	// in flight. Nothing is written.
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			opened <- f
		}
	}()
	select {
	case f := <-opened:
		defer f.Close()
	case <-time.After(60 * time.Second):
		t.Fatal("the MCP server did not open the FIFO on the host within 60 s")
	}
	for _, pid := range s.LocalSSH() {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	select {
	case r := <-done:
		if !strings.Contains(r.out, "mcp__fs__read_text_file result (error)") || !strings.Contains(r.out, "a lost connection to "+s.Dest+" ends it") {
			t.Errorf("the call does not end with an error (exit %d):\n%s\n%s", r.code, r.out, r.errs)
		}
		t.Logf("after the drop:\n%s", r.out)
	case <-time.After(5 * time.Second):
		t.Fatal("the turn did not come to rest within 5 s of the drop")
	}
	s.WaitNoProcesses(t)
}

// TestChatRemoteRestartAfterACrash: the app dies (SIGKILL) while a remote conversation runs a
// command there and its MCP server runs there: the command and the server die on the host
// (their streams end with the app's ssh processes), and the next start brings the
// conversation back at rest: its checkpoint before the lost call is listed, unfinished, and
// it continues on its host.
func TestChatRemoteRestartAfterACrash(t *testing.T) {
	mcptest.Server(t, mcptest.Filesystem)
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	data := t.TempDir()
	file := filepath.Join(t.TempDir(), "servers.json")
	writeMCPConfig(t, file, map[string]mcp.ServerConfig{"fs": {Command: "mcp-server-filesystem", Args: []string{proj}}})
	c := startClient(t, "chat", "--demo", "--unrestricted", "--mcp-config", file, "--data-dir", data, "--remote", s.Dest, "--cwd", proj,
		"bash: sleep 300 & echo $! > pid; wait")
	remoteProc := func(text string) int {
		for _, pid := range s.UserProcesses() {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), text) {
				return pid
			}
		}
		return 0
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(60 * time.Second)
	var sleeper, server int
	for sleeper == 0 || server == 0 {
		if b, err := os.ReadFile(filepath.Join(proj, "pid")); err == nil && strings.HasSuffix(string(b), "\n") {
			sleeper, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		server = remoteProc("mcp-server-filesystem")
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("the command (%d) and the MCP server (%d) did not both run on the host within 60 s", sleeper, server)
		}
	}
	_ = c.cmd.Process.Kill()
	<-c.done
	// Nothing of the conversation survives on the host: the command, the server, the agent
	// and the stream roles (only the master connection, kept for later, is left).
	gone := time.After(10 * time.Second)
	for remoteProc("sleep 300") != 0 || remoteProc("mcp-server-filesystem") != 0 || remoteProc(remote.AgentArg) != 0 {
		select {
		case <-tick.C:
		case <-gone:
			t.Fatalf("processes of the conversation still run on the host after the app died")
		}
	}

	code, out, _ := cli(t, "list", "--data-dir", data, "--json")
	var list []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("list: %d %s", code, out)
	}
	id := list[0].ID
	var cps []actors.Checkpoint
	code, out, _ = cli(t, "checkpoints", id, "--data-dir", data, "--json")
	if code != 0 || json.Unmarshal([]byte(out), &cps) != nil || len(cps) != 1 || cps[0].Complete() {
		t.Errorf("the lost call's checkpoint: %d %s", code, out)
	}
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", data, "--continue", id, "bash: echo back on $(hostname)")
	if code != 0 || !strings.Contains(out, "back on") || !strings.Contains(out, "in "+s.Dest+":"+proj) {
		t.Fatalf("continuing after the crash: exit %d\n%s\n%s", code, out, errs)
	}
	s.WaitNoProcesses(t)
}

// TestChatRemoteProjectCommandAsksHere_REQ_BED_014: a Project-mode command of a remote
// conversation reaches the network through the proxy its host's agent runs; a host the
// project does not allow is asked about through the app's approval path (headless: answered
// by --allow-hosts, its line on stderr): the allowed one is reached, the other refused.
func TestChatRemoteProjectCommandAsksHere_REQ_BED_014(t *testing.T) {
	if ok, why := sandbox.ProjectAvailable(); !ok {
		t.Skip("Project mode unavailable: " + why)
	}
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	proj := s.ProjectDir(t)
	site := func(addr, body string) *httptest.Server {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, body)
		}))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		srv.Listener.Close()
		srv.Listener = ln
		srv.Start()
		t.Cleanup(srv.Close)
		return srv
	}
	allowed := site("127.0.0.1:0", "allowed-body")
	denied := site("127.0.0.2:0", "denied-body")
	get := func(u string) string {
		return `bash: curl -sS --max-time 20 --noproxy "" -x "$HTTP_PROXY" -w ' code=%{http_code}' ` + u
	}
	code, out, errs := cli(t, "chat", "--demo", "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj,
		"--mode=project", "--allow-hosts=127.0.0.1", get(allowed.URL)+" ;; "+get(denied.URL))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	mustContainAll(t, out, "allowed-body code=200", "code=403")
	if strings.Contains(out, "denied-body") {
		t.Errorf("the host not allowed was reached:\n%s", out)
	}
	allowedHost := strings.TrimPrefix(allowed.URL, "http://")
	deniedHost := strings.TrimPrefix(denied.URL, "http://")
	mustContainAll(t, errs, "the agent asks to reach "+allowedHost+": allow once", "the agent asks to reach "+deniedHost+": deny")
	s.WaitNoProcesses(t)
}

// TestChatRemoteUsesALanguageToolOnTheHost_REQ_LSP_003: a headless conversation on another
// machine is offered the language tools because gopls serves the project there (the person's
// lsp.json names a gopls only that machine's user has), and the model's definition call is
// answered there with the place in the host's file.
func TestChatRemoteUsesALanguageToolOnTheHost_REQ_LSP_003(t *testing.T) {
	s := remotetest.Start(t)
	t.Setenv(envSSHConfig, s.Config)
	useRemoteGopls(t, s)
	proj := s.GoProject(t)
	srv := startModelWithKey(t, "sk-test-remote-lsp-0001")

	code, out, errs := cli(t, "chat", "--base-url", srv.URL(), "--model", "gpt-4o", "--data-dir", t.TempDir(), "--remote", s.Dest, "--cwd", proj,
		"lsp: definition main.go:7:14")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "main.go:6:6: var n int = 1") {
		t.Errorf("the definition is not the host file's place:\n%s\n%s", out, errs)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	for i, r := range reqs {
		var names []string
		for _, tool := range r.Chat.Tools {
			names = append(names, tool.Function.Name)
		}
		if !slices.Contains(names, domain.ToolDefinition) || !slices.Contains(names, domain.ToolReferences) {
			t.Errorf("request %d does not offer the language tools: %v", i, names)
		}
	}
	s.WaitNoProcesses(t)
}
