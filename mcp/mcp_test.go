package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/sandbox/proctest"
	"github.com/phoenix-desktop/phoenix/tools"
)

func mustJSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

func specNames(specs []domain.ToolSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	return names
}

// withoutInstructions leaves out the notes that carry a server's instructions.
func withoutInstructions(notes []string) []string {
	return slices.DeleteFunc(notes, func(n string) bool { return strings.Contains(n, "says how to use it") })
}

// readyTools is a request's tools once every server has settled: Tools itself never waits.
func readyTools(set *Set, ctx context.Context, env tools.Env) ([]domain.ToolSpec, []string, []string) {
	set.Start(env)
	set.WaitStarted(ctx)
	return set.Tools(ctx, env)
}

// waitRelist waits for the listing a tools/list_changed notification asked for.
func waitRelist(set *Set, name string) {
	set.mu.Lock()
	var ch chan struct{}
	if e := set.entries[name]; e != nil {
		ch = e.relisting
	}
	set.mu.Unlock()
	if ch != nil {
		<-ch
	}
}

func fixedSet(t *testing.T, servers map[string]ServerConfig, opts Options) *Set {
	t.Helper()
	set := FixedHub(Config{Servers: servers}, opts).NewSet(t.TempDir())
	t.Cleanup(set.Close)
	return set
}

// The reference file-system server, in a Restricted conversation, reads a file of the
// directory it was given, and its write into that same directory — which its own allow-list
// permits — is refused by the sandbox. After the upgrade the server restarts Unrestricted
// and the same write succeeds.
func TestFilesystemServerReadsButCannotWriteInRestricted_REQ_BED_014(t *testing.T) {
	needSandbox(t)
	bin := npmServer(t, mcptest.Filesystem)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello from the project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// write_file is marked destructive: allowed here, so that what refuses it is the sandbox.
	set := fixedSet(t, map[string]ServerConfig{"fs": {Command: bin, Args: []string{dir}}}, Options{AllowTools: []string{"fs/write_file"}})
	ctx := context.Background()
	env := testEnv(t, dir, domain.ModeRestricted)

	specs, notes, notices := readyTools(set, ctx, env)
	if len(notes)+len(notices) > 0 {
		t.Fatalf("notes %v, notices %v", notes, notices)
	}
	names := specNames(specs)
	for _, want := range []string{"mcp__fs__read_text_file", "mcp__fs__write_file"} {
		if !slices.Contains(names, want) {
			t.Fatalf("tools %v lack %s", names, want)
		}
	}
	out := set.Call(ctx, env, call("mcp__fs__read_text_file", `{"path":"`+filepath.Join(dir, "notes.txt")+`"}`), nil)
	if out.Outcome != domain.OutcomeSuccess || !strings.Contains(out.Content, "hello from the project") {
		t.Fatalf("read: %s %q", out.Outcome, out.Content)
	}
	target := filepath.Join(dir, "written.txt")
	write := call("mcp__fs__write_file", `{"path":"`+target+`","content":"changed"}`)
	out = set.Call(ctx, env, write, nil)
	if out.Outcome != domain.OutcomeError {
		t.Fatalf("a write in Restricted mode was not refused: %s %q", out.Outcome, out.Content)
	}
	// The path is inside the server's allowed directory, so the refusal is the kernel's.
	if !strings.Contains(strings.ToLower(out.Content), "permission denied") && !strings.Contains(out.Content, "EACCES") &&
		!strings.Contains(out.Content, "EROFS") {
		t.Errorf("the refusal does not come from the sandbox: %q", out.Content)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the file was written in Restricted mode")
	}

	env.Mode = domain.ModeUnrestricted
	out = set.Call(ctx, env, write, nil)
	if out.Outcome != domain.OutcomeSuccess {
		t.Fatalf("write after the upgrade: %s %q", out.Outcome, out.Content)
	}
	if data, err := os.ReadFile(target); err != nil || string(data) != "changed" {
		t.Fatalf("after the upgrade the file holds %q (%v)", data, err)
	}

	// Switched back to Restricted, the server restarts sandboxed before the next call.
	env.Mode = domain.ModeRestricted
	other := filepath.Join(dir, "other.txt")
	out = set.Call(ctx, env, call("mcp__fs__write_file", `{"path":"`+other+`","content":"no"}`), nil)
	// Landlock says "permission denied"; the mount view, where there is one, refuses first.
	if out.Outcome != domain.OutcomeError || !strings.Contains(strings.ToLower(out.Content), "permission denied") && !strings.Contains(out.Content, "EROFS") {
		t.Fatalf("a write after the downgrade: %s %q", out.Outcome, out.Content)
	}
	if _, err := os.Stat(other); err == nil {
		t.Fatal("the file was written after the downgrade")
	}
}

// The reference "everything" server: an image result is prepared like read_image's, a tool
// error is an error result, progress is reported, and Stop cancels a long call and leaves
// none of the server's processes.
func TestEverythingServer(t *testing.T) {
	needSandbox(t)
	bin := npmServer(t, mcptest.Everything)
	set := fixedSet(t, map[string]ServerConfig{"every": {Command: bin}}, Options{})
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeRestricted)
	if specs, notes, _ := readyTools(set, ctx, env); len(specs) == 0 {
		t.Fatalf("no tools; notes %v", notes)
	}

	t.Run("image", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__every__get-tiny-image", `{}`), nil)
		if out.Outcome != domain.OutcomeSuccess || len(out.Images) != 1 {
			t.Fatalf("%s %q, %d images", out.Outcome, out.Content, len(out.Images))
		}
		img := out.Images[0]
		if img.Ref.MediaType != "image/png" || img.Ref.Width != 20 || len(img.Data) == 0 || img.Ref.SHA256 == "" {
			t.Errorf("image %+v", img.Ref)
		}
		if !strings.Contains(out.Content, "[image 1: image/png, 20×20 pixels]") {
			t.Errorf("the text does not place the image: %q", out.Content)
		}
	})

	t.Run("tool error", func(t *testing.T) {
		// The sandbox has no network, so the server's fetch fails and it reports an error.
		out := set.Call(ctx, env, call("mcp__every__gzip-file-as-resource", `{"data":"http://127.0.0.1:9/nothing"}`), nil)
		if out.Outcome != domain.OutcomeError || out.Content == "" {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})

	t.Run("schema refuses bad arguments", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__every__get-sum", `{"a":"one","b":2}`), nil)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "do not match its input schema") {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})

	t.Run("progress and Stop", func(t *testing.T) {
		srv := set.entries["every"].srv
		tree := append(mcptest.Descendants(srv.cmd.Process.Pid), srv.cmd.Process.Pid)
		callCtx, stop := context.WithCancel(ctx)
		var mu sync.Mutex
		var seen []Progress
		first := make(chan struct{})
		done := make(chan tools.Output, 1)
		go func() {
			done <- set.Call(callCtx, env, call("mcp__every__trigger-long-running-operation", `{"duration":60,"steps":120}`),
				func(p Progress) {
					mu.Lock()
					seen = append(seen, p)
					if len(seen) == 1 {
						close(first)
					}
					mu.Unlock()
				})
		}()
		select {
		case <-first:
		case <-time.After(30 * time.Second):
			t.Fatal("no progress within 30 s")
		}
		stop()
		out := <-done
		if out.Outcome != domain.OutcomeCancelled {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
		mu.Lock()
		if p := seen[0]; p.Progress != 1 || p.Total != 120 {
			t.Errorf("first progress %+v", p)
		}
		mu.Unlock()
		for _, pid := range tree {
			if processAlive(pid) {
				t.Errorf("process %d of the server's tree outlived Stop", pid)
			}
		}
		// The next call starts the server again.
		if out := set.Call(ctx, env, call("mcp__every__echo", `{"message":"again"}`), nil); out.Outcome != domain.OutcomeSuccess {
			t.Fatalf("after Stop: %s %q", out.Outcome, out.Content)
		}
	})
}

// The in-test server: a tool with a bad schema is skipped with a notice; a crash in the middle
// of a call becomes an error result and the server starts again; a call that never answers
// ends with Stop, and with the call timeout; a server that never answers its handshake fails
// to start within the start timeout; a result is capped like bash output.
func TestEdgeCasesOfTheInTestServer(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{CallTimeout: time.Minute})
	specs, _, notices := readyTools(set, ctx, env)
	names := specNames(specs)
	if slices.Contains(names, "mcp__go__bad_schema") || !slices.Contains(names, "mcp__go__echo") {
		t.Fatalf("tools %v", names)
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "bad_schema") || !strings.Contains(notices[0], "not valid JSON Schema") {
		t.Fatalf("notices %q", notices)
	}

	t.Run("echo", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__go__echo", `{"text":"hi"}`), nil)
		if out.Outcome != domain.OutcomeSuccess || out.Content != "hi" || out.Display.Summary != "go/echo: 1 line" {
			t.Fatalf("%s %q %+v", out.Outcome, out.Content, out.Display)
		}
	})
	t.Run("error result", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__go__fail", `{}`), nil)
		if out.Outcome != domain.OutcomeError || out.Content != "it went wrong on purpose" {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})
	t.Run("unknown tool", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__go__nope", `{}`), nil)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "mcp__go__echo") {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})
	t.Run("capped", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__go__big", `{}`), nil)
		if len(out.Content) > tools.OutputLimit+200 || !strings.Contains(out.Content, "omitted") {
			t.Fatalf("%d bytes", len(out.Content))
		}
	})
	t.Run("tool list changes from the next request", func(t *testing.T) {
		srv := set.entries["go"].srv
		if out := set.Call(ctx, env, call("mcp__go__add_tool", `{}`), nil); out.Content != "added" {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
		// The SDK's server sends the notification shortly after the change.
		select {
		case <-srv.listChangedSignal:
		case <-time.After(10 * time.Second):
			t.Fatal("no tools/list_changed notification")
		}
		if out := set.Call(ctx, env, call("mcp__go__added", `{}`), nil); out.Outcome != domain.OutcomeError {
			t.Fatalf("a tool not offered with the request ran: %s %q", out.Outcome, out.Content)
		}
		set.Tools(ctx, env) // asks for the new list, in the background
		waitRelist(set, "go")
		specs, _, _ := set.Tools(ctx, env)
		if !slices.Contains(specNames(specs), "mcp__go__added") {
			t.Fatalf("the next request's tools %v lack the new one", specNames(specs))
		}
		if out := set.Call(ctx, env, call("mcp__go__added", `{}`), nil); out.Content != "new" {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})
	t.Run("crash mid-call", func(t *testing.T) {
		out := set.Call(ctx, env, call("mcp__go__crash", `{}`), nil)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "stopped during the call") ||
			!strings.Contains(out.Content, "crashing on purpose") {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
		if out := set.Call(ctx, env, call("mcp__go__echo", `{"text":"back"}`), nil); out.Content != "back" {
			t.Fatalf("after the crash: %s %q", out.Outcome, out.Content)
		}
	})
	t.Run("never answers, Stop", func(t *testing.T) {
		pidOut := set.Call(ctx, env, call("mcp__go__pid", `{}`), nil)
		seen, err := strconv.Atoi(pidOut.Content)
		if err != nil {
			t.Fatal(pidOut.Content)
		}
		// The server's pid as this process sees it (a sandboxed server has a pid namespace
		// of its own in the mount view).
		pids, err := proctest.HostPIDs([]int{seen}, os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		pid := pids[0]
		callCtx, stop := context.WithCancel(ctx)
		done := make(chan tools.Output, 1)
		go func() { done <- set.Call(callCtx, env, call("mcp__go__hang", `{}`), nil) }()
		// Stop once the call is on its way; the server ignores the SDK's cancellation, so
		// only killing its tree ends it.
		stop()
		if out := <-done; out.Outcome != domain.OutcomeCancelled {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
		if processAlive(pid) {
			t.Errorf("the server (pid %d) outlived Stop", pid)
		}
	})
	t.Run("never answers, timeout", func(t *testing.T) {
		short := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{CallTimeout: 300 * time.Millisecond})
		readyTools(short, ctx, env)
		out := short.Call(ctx, env, call("mcp__go__hang", `{}`), nil)
		if out.Outcome != domain.OutcomeError || !strings.Contains(out.Content, "did not answer") {
			t.Fatalf("%s %q", out.Outcome, out.Content)
		}
	})
	t.Run("writes garbage", func(t *testing.T) {
		bad := fixedSet(t, map[string]ServerConfig{"junk": selfServer(t, "garbage")}, Options{StartTimeout: 5 * time.Second})
		specs, notes, _ := readyTools(bad, ctx, env)
		if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "junk is not available") {
			t.Fatalf("specs %v notes %q", specNames(specs), notes)
		}
	})
	t.Run("never lists its tools", func(t *testing.T) {
		// Long enough for the sandboxed start and the handshake on a loaded machine; the
		// listing never comes.
		hub := FixedHub(Config{Servers: map[string]ServerConfig{"mute": selfServer(t, "nolist")}},
			Options{StartTimeout: 3 * time.Second})
		set := hub.NewSet(t.TempDir())
		t.Cleanup(set.Close)
		// The request does not wait: it goes without the server's tools and says why.
		specs, notes, notices := set.Tools(ctx, env)
		if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "mute is still starting") ||
			len(notices) != 1 || !strings.Contains(notices[0], "still starting") {
			t.Fatalf("first request: specs %v notes %q notices %q", specNames(specs), notes, notices)
		}
		set.WaitStarted(ctx)
		_, notes, notices = set.Tools(ctx, env)
		if len(notes) != 1 || !strings.Contains(notes[0], "mute is not available") || len(notices) != 1 ||
			!strings.Contains(notices[0], "did not list its tools within") {
			t.Fatalf("notes %q notices %q", notes, notices)
		}
		sts := hub.Statuses(t.TempDir())
		if len(sts) != 1 || sts[0].State != StateFailed || !strings.Contains(sts[0].Error, "did not list its tools within 3s") {
			t.Fatalf("statuses %+v", sts)
		}
		set.mu.Lock()
		kept := 0
		for _, e := range set.entries {
			if e.state == entryReady {
				kept++
			}
		}
		set.mu.Unlock()
		if kept != 0 {
			t.Fatalf("the set keeps %d servers, want the silent one dropped", kept)
		}
		// The failure is remembered: the next request does not wait again.
		if _, notes, notices := set.Tools(ctx, env); len(notes) != 1 || len(notices) != 0 {
			t.Fatalf("second request: notes %q notices %q", notes, notices)
		}
	})
	t.Run("never completes its start", func(t *testing.T) {
		silent := fixedSet(t, map[string]ServerConfig{"mute": selfServer(t, "silent")}, Options{StartTimeout: 300 * time.Millisecond})
		specs, notes, notices := readyTools(silent, ctx, env)
		if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "mute is not available") || len(notices) != 1 {
			t.Fatalf("specs %v notes %q notices %q", specs, notes, notices)
		}
		// The failure is remembered: the next request does not wait again.
		if _, notes, notices := silent.Tools(ctx, env); len(notes) != 1 || len(notices) != 0 {
			t.Fatalf("second request: notes %q notices %q", notes, notices)
		}
	})
}

// Several servers start at once for a request; one that cannot start is reported with its
// stderr (Settings shows it), the others' tools are offered, and the hub shows each state.
func TestServersStartTogetherAndReportTheirState(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	hub := FixedHub(Config{Servers: map[string]ServerConfig{
		"a": selfServer(t, "serve"), "b": selfServer(t, "serve"), "broken": selfServer(t, "broken")}}, Options{})
	set := hub.NewSet(t.TempDir())
	defer set.Close()
	specs, notes, notices := readyTools(set, ctx, env)
	notes = withoutInstructions(notes)
	names := specNames(specs)
	if !slices.Contains(names, "mcp__a__echo") || !slices.Contains(names, "mcp__b__echo") {
		t.Fatalf("tools %v", names)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "broken is not available") || !strings.Contains(notes[0], "MY_SERVICE_TOKEN") {
		t.Fatalf("notes %q", notes)
	}
	// Each of a and b skips its bad_schema tool; broken could not start.
	if len(notices) != 3 || !strings.Contains(notices[2], "could not start") {
		t.Fatalf("notices %q", notices)
	}
	states := map[string]Status{}
	for _, st := range hub.Statuses("") {
		states[st.Name] = st
	}
	if st := states["broken"]; st.State != StateFailed || !strings.Contains(st.Stderr, "MY_SERVICE_TOKEN") {
		t.Errorf("broken: %+v", st)
	}
	if st := states["a"]; st.State != StateRunning || st.Running != 1 || len(st.Tools) == 0 {
		t.Errorf("a: %+v", st)
	}
	set.Close()
	if st := hub.Statuses("")[0]; st.Name != "a" || st.State != StateStopped || st.Running != 0 {
		t.Errorf("after Close: %+v", st)
	}
}

// A stdio server of a Restricted conversation runs inside the sandbox, with its private TMPDIR.
func TestStdioServerRunsSandboxed_REQ_BED_014(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeRestricted)
	set := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	readyTools(set, ctx, env)
	out := set.Call(ctx, env, call("mcp__go__pid", `{}`), nil)
	seen, err := strconv.Atoi(out.Content)
	if err != nil {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
	// In the mount view the server has a pid namespace of its own: find it as this process
	// sees it.
	pids, err := proctest.HostPIDs([]int{seen}, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	pid := pids[0]
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(status), "NoNewPrivs:\t1") || !strings.Contains(string(status), "Seccomp:\t2") {
		t.Errorf("the server is not sandboxed:\n%s", status)
	}
	set.Close()
	if processAlive(pid) {
		t.Errorf("the server outlived Close")
	}
}

// A URL server is reached over streamable HTTP from an Unrestricted conversation and is
// unreachable, plainly, from a Restricted one.
func TestURLServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var gotHeader string
	var mu sync.Mutex
	handler := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		mu.Lock()
		gotHeader = r.Header.Get("Authorization")
		mu.Unlock()
		return mcptest.NewServer()
	}, nil)
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	cfg := map[string]ServerConfig{"web": {URL: "http://" + ln.Addr().String(), Headers: map[string]string{"Authorization": "Bearer t"}}}
	ctx := context.Background()
	set := fixedSet(t, cfg, Options{})
	specs, notes, _ := readyTools(set, ctx, testEnv(t, t.TempDir(), domain.ModeRestricted))
	if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "not reachable in Restricted mode") {
		t.Fatalf("Restricted: specs %v notes %q", specNames(specs), notes)
	}
	if out := set.Call(ctx, testEnv(t, t.TempDir(), domain.ModeRestricted), call("mcp__web__echo", `{"text":"x"}`), nil); out.Outcome != domain.OutcomeError {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}

	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	if specs, notes, _ = readyTools(set, ctx, env); !slices.Contains(specNames(specs), "mcp__web__echo") {
		t.Fatalf("Unrestricted: specs %v notes %q", specNames(specs), notes)
	}
	if out := set.Call(ctx, env, call("mcp__web__echo", `{"text":"over http"}`), nil); out.Content != "over http" {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if gotHeader != "Bearer t" {
		t.Errorf("the configured header was not sent: %q", gotHeader)
	}
}

// Issue 26: the legacy HTTP+SSE transport ("type": "sse"), served through the SDK's SSE
// client, as configurations copied from other clients use it.
func TestSSEServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: sdk.NewSSEHandler(func(*http.Request) *sdk.Server { return mcptest.NewServer() }, nil)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	set := fixedSet(t, map[string]ServerConfig{"old": {Type: "sse", URL: "http://" + ln.Addr().String()}}, Options{})
	if specs, notes, _ := readyTools(set, ctx, env); !slices.Contains(specNames(specs), "mcp__old__echo") {
		t.Fatalf("specs %v notes %q", specNames(specs), notes)
	}
	if out := set.Call(ctx, env, call("mcp__old__echo", `{"text":"over sse"}`), nil); out.Content != "over sse" {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
}

// Issue 26: a server that prints a banner on stdout starts; the line is in its log.
func TestBannerOnStdoutIsSkipped(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	hub := FixedHub(Config{Servers: map[string]ServerConfig{"chatty": selfServer(t, "banner")}}, Options{})
	set := hub.NewSet(t.TempDir())
	t.Cleanup(set.Close)
	specs, notes, _ := readyTools(set, ctx, env)
	if !slices.Contains(specNames(specs), "mcp__chatty__echo") {
		t.Fatalf("specs %v notes %q", specNames(specs), notes)
	}
	if out := set.Call(ctx, env, call("mcp__chatty__echo", `{"text":"after the banner"}`), nil); out.Content != "after the banner" {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
	if st := hub.Statuses("")[0]; !strings.Contains(st.Stderr, "skipped: Hello! banner-server v1") {
		t.Errorf("the log lacks the skipped line: %q", st.Stderr)
	}
}

// Issue 26: a slow server never holds a request up. The request goes without its tools and
// says it is still starting; a call of its tool (the demo model names tools it was not
// offered) waits for the start; the next request has its tools and tells the model.
func TestSlowServerNeverDelaysARequest(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	gate := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	slow := selfServer(t, "gate")
	slow.Env[gateEnv] = gate
	hub := FixedHub(Config{Servers: map[string]ServerConfig{"slow": slow, "quick": selfServer(t, "serve")}}, Options{})
	set := hub.NewSet(t.TempDir())
	t.Cleanup(set.Close)
	set.Start(env)
	// Let the quick one finish; the slow one cannot until the gate opens.
	set.mu.Lock()
	quickDone := set.entries["quick"].done
	set.mu.Unlock()
	<-quickDone
	specs, notes, notices := set.Tools(ctx, env)
	if names := specNames(specs); !slices.Contains(names, "mcp__quick__echo") || slices.Contains(names, "mcp__slow__echo") {
		t.Fatalf("specs %v", names)
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "slow is still starting") }) ||
		!slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "slow is still starting") }) {
		t.Fatalf("notes %q notices %q", notes, notices)
	}
	if st := hub.Statuses("")[1]; st.Name != "slow" || st.State != StateStarting {
		t.Errorf("status %+v", st)
	}
	done := make(chan tools.Output, 1)
	go func() { done <- set.Call(ctx, env, call("mcp__slow__echo", `{"text":"waited"}`), nil) }()
	f, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if out := <-done; out.Content != "waited" {
		t.Fatalf("%s %q", out.Outcome, out.Content)
	}
	specs, notes, notices = set.Tools(ctx, env)
	if !slices.Contains(specNames(specs), "mcp__slow__echo") || slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "starting") }) ||
		!slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "slow has finished starting") }) {
		t.Fatalf("specs %v notes %q notices %q", specNames(specs), notes, notices)
	}
}

// Issue 26: a bad entry disables only itself; the person is told once, the model every
// request; a server that never answers is reported as not answering, even in Restricted mode.
func TestBadEntryDisablesOnlyItself(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ConfigFileName)
	good := selfServer(t, "serve")
	doc := fmt.Sprintf(`{"mcpServers": {"good": {"command": %q, "env": {%q: "serve"}, "cwd": "sub"}, "old": {"type": "websocket", "url": "http://h/ws"}}}`,
		good.Command, testServerEnv)
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	hub, err := OpenHub(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := os.Mkdir(filepath.Join(cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t, cwd, domain.ModeUnrestricted)
	set := hub.NewSet(cwd)
	t.Cleanup(set.Close)
	specs, notes, notices := readyTools(set, ctx, env)
	notes = withoutInstructions(notes)
	if !slices.Contains(specNames(specs), "mcp__good__echo") {
		t.Fatalf("specs %v", specNames(specs))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "old is configured but cannot be used") ||
		len(notices) != 2 || !strings.Contains(notices[0], "The MCP server old in "+path+" is not used") {
		t.Fatalf("notes %q notices %q", notes, notices)
	}
	if _, _, notices := set.Tools(ctx, env); len(notices) != 0 {
		t.Errorf("told twice: %q", notices)
	}
	// cwd is honoured, relative to the conversation's directory.
	if out := set.Call(ctx, env, call("mcp__good__cwd", `{}`), nil); out.Content != filepath.Join(cwd, "sub") {
		t.Errorf("cwd %s %q", out.Outcome, out.Content)
	}

	needSandbox(t)
	silent := fixedSet(t, map[string]ServerConfig{"mute": selfServer(t, "silent")}, Options{StartTimeout: 300 * time.Millisecond})
	_, notes, _ = readyTools(silent, ctx, testEnv(t, t.TempDir(), domain.ModeRestricted))
	if len(notes) != 1 || !strings.Contains(notes[0], "did not answer within 300ms") || strings.Contains(notes[0], "sandbox") {
		t.Errorf("a silent server: %q", notes)
	}
}

// A project's .mcp.json is offered and never started until the person allows it; the
// permission covers that exact configuration, so an edit of the file needs a new click.
func TestProjectServersStartOnlyWhenAllowed(t *testing.T) {
	ctx := context.Background()
	hub, err := OpenHub(filepath.Join(t.TempDir(), ConfigFileName), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	env := testEnv(t, cwd, domain.ModeUnrestricted)
	project := func(c ServerConfig) {
		t.Helper()
		if err := SaveConfig(filepath.Join(cwd, ProjectFileName), Config{Servers: map[string]ServerConfig{"proj": c}}); err != nil {
			t.Fatal(err)
		}
	}
	project(selfServer(t, "serve"))
	set := hub.NewSet(cwd)
	defer set.Close()
	specs, notes, notices := readyTools(set, ctx, env)
	if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "offers the MCP servers proj") ||
		len(notices) != 1 || !strings.Contains(notices[0], "Settings") {
		t.Fatalf("before the click: specs %v notes %q notices %q", specNames(specs), notes, notices)
	}
	if _, _, notices := set.Tools(ctx, env); len(notices) != 0 {
		t.Errorf("the person is told again: %q", notices)
	}
	// The sandbox's idle command supervisors are children of the test too; end them, so
	// that any process left below the test is a server.
	sandbox.Shutdown()
	if len(mcptest.Descendants(os.Getpid())) != 0 {
		t.Fatal("a project server started without the person's click")
	}

	if err := hub.AllowProjectServer(cwd, "proj"); err != nil {
		t.Fatal(err)
	}
	if specs, _, _ := readyTools(set, ctx, env); !slices.Contains(specNames(specs), "mcp__proj__echo") {
		t.Fatalf("after the click: %v", specNames(specs))
	}

	// The project's file now runs something else: that needs a new click, and the old
	// server stops.
	changed := selfServer(t, "serve")
	changed.Args = []string{"--other"}
	project(changed)
	specs, notes, _ = readyTools(set, ctx, env)
	if len(specs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "proj") {
		t.Fatalf("after the edit: specs %v notes %q", specNames(specs), notes)
	}
	if st, _ := hub.ProjectServers(cwd); len(st) != 1 || st[0].Allowed {
		t.Errorf("project servers %+v", st)
	}
}

// Settings edits the configuration while conversations resolve their servers: serversFor
// must read the configuration only under the hub's lock (run with -race).
func TestEditWhileConversationsResolveServers(t *testing.T) {
	dir := t.TempDir()
	hub, err := OpenHub(filepath.Join(dir, "mcp.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	if err := SaveConfig(filepath.Join(cwd, ProjectFileName), Config{Servers: map[string]ServerConfig{
		"proj": {Command: "proj-server"}, "own": {Command: "shadowed"}}}); err != nil {
		t.Fatal(err)
	}
	if err := hub.SetServer("own", ServerConfig{Command: "server"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer func() { <-done }()
	go func() {
		defer close(done)
		for i := range 200 {
			if err := hub.SetServer("own", ServerConfig{Command: "server-" + strconv.Itoa(i)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		servers, offered := hub.serversFor(cwd)
		if c, ok := servers["own"]; ok && c.Command == "shadowed" {
			t.Fatal("the project's server replaced the person's own server of the same name")
		}
		if len(offered) == 0 || offered[0] != "proj" {
			t.Fatalf("offered %q, want proj", offered)
		}
	}
}

// Issue 26: the protocol beyond tools. The client declares elicitation and answers it through
// Options.Elicit (refusing clearly without one); a server's instructions reach the model,
// capped; its annotations show; its resources are readable through mcp__SERVER__read_resource,
// which a resource link points to; its prompts are listed and fetched.
func TestProtocolFeatures(t *testing.T) {
	ctx := context.Background()
	env := testEnv(t, t.TempDir(), domain.ModeUnrestricted)
	var asked Elicitation
	hub := FixedHub(Config{Servers: map[string]ServerConfig{"go": selfServer(t, "serve")}}, Options{
		Elicit: func(_ context.Context, server string, req Elicitation) (ElicitAnswer, error) {
			asked = req
			return ElicitAnswer{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}})
	set := hub.NewSet(t.TempDir())
	t.Cleanup(set.Close)
	specs, notes, _ := readyTools(set, ctx, env)
	if !slices.Contains(specNames(specs), "mcp__go__read_resource") {
		t.Fatalf("specs %v", specNames(specs))
	}
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, "Call echo to repeat text.") }) {
		t.Errorf("the instructions are not in the notes: %q", notes)
	}
	for _, sp := range specs {
		if sp.Name == "mcp__go__read_resource" && !strings.Contains(sp.Description, "test://notes") {
			t.Errorf("the reader does not list the resources: %s", sp.Description)
		}
		if sp.Name == "mcp__go__link" && !strings.Contains(sp.Description, "only reads") {
			t.Errorf("the read-only hint is not in the description: %s", sp.Description)
		}
	}
	if st := hub.Statuses("")[0]; !slices.ContainsFunc(st.Tools, func(i ToolInfo) bool { return i.ServerTool == "link" && i.ReadOnly }) {
		t.Errorf("tools %+v", st.Tools)
	}
	if out := set.Call(ctx, env, call("mcp__go__ask", `{}`), nil); out.Content != "accept Ada" || asked.Message != "Your name?" {
		t.Errorf("elicitation: %s %q %+v", out.Outcome, out.Content, asked)
	}
	if out := set.Call(ctx, env, call("mcp__go__link", `{}`), nil); !strings.Contains(out.Content, "mcp__go__read_resource") {
		t.Errorf("a resource link: %q", out.Content)
	}
	if out := set.Call(ctx, env, call("mcp__go__read_resource", `{"uri":"test://notes"}`), nil); out.Content != "the resource's text" {
		t.Errorf("read_resource: %s %q", out.Outcome, out.Content)
	}
	prompts, err := set.Prompts(ctx)
	if err != nil || len(prompts) != 1 || prompts[0].Name != "greet" || !prompts[0].Arguments[0].Required {
		t.Fatalf("prompts %+v %v", prompts, err)
	}
	if text, err := set.GetPrompt(ctx, "go", "greet", map[string]string{"who": "Ada"}); err != nil || text != "Say hello to Ada" {
		t.Errorf("prompt %q %v", text, err)
	}

	// Headless, without an answerer: a clear refusal reaches the model.
	plain := fixedSet(t, map[string]ServerConfig{"go": selfServer(t, "serve")}, Options{})
	readyTools(plain, ctx, env)
	if out := plain.Call(ctx, env, call("mcp__go__ask", `{}`), nil); !strings.Contains(out.Content, "cannot ask the person for input") {
		t.Errorf("headless elicitation: %s %q", out.Outcome, out.Content)
	}
}
