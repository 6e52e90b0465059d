package main

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/remote"
	"github.com/phoenix-desktop/phoenix/remote/remotetest"
	"github.com/phoenix-desktop/phoenix/sandbox"
)

func TestMain(m *testing.M) {
	// Describe, in the test, starts a sandbox supervisor: this test binary is its helper.
	sandbox.MaybeRunHelper()
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is this command built once for the tests of this package.
var built struct {
	sync.Mutex
	dir, path string
}

// buildAgent builds this command as the packages do (CGO_ENABLED=0), once per test run.
func buildAgent(t *testing.T) string {
	t.Helper()
	built.Lock()
	defer built.Unlock()
	if built.path != "" {
		return built.path
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go tool is needed to build phoenix-remote-agent as the packages do: %v", err)
	}
	dir, err := os.MkdirTemp("", "phoenix-remote-agent-")
	if err != nil {
		t.Fatal(err)
	}
	built.dir = dir
	out := filepath.Join(dir, remote.AgentBinaryName)
	cmd := exec.Command(goBin, "build", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/phoenix-remote-agent: %v\n%s", err, b)
	}
	built.path = out
	return out
}

// TestAgentIsStatic: the agent built alone asks the remote machine for nothing — no
// program interpreter (the dynamic loader) and no shared library.
func TestAgentIsStatic(t *testing.T) {
	bin := buildAgent(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("phoenix-remote-agent has a program interpreter: it is linked dynamically (is cgo on?)")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		t.Fatal(err)
	}
	if len(libs) > 0 {
		t.Errorf("phoenix-remote-agent needs shared libraries %v; it must need none", libs)
	}
}

// TestAgentRunsWithoutDesktopLibraries: over a real sshd whose whole session tree sees this
// machine's libGL, libX11 and kin hidden (an empty file bound over each, in a mount namespace
// of its own), the app reaches the agent built alone, which runs bash under the remote
// kernel's sandbox: the same layers as the cgo build of the app here, and a Restricted write
// refused there.
func TestAgentRunsWithoutDesktopLibraries(t *testing.T) {
	s := remotetest.StartHeadless(t)
	bin := buildAgent(t)
	s.ForgetAgent(t)
	opts := remote.Options{Destination: s.Dest, ConfigFile: s.Config, Binary: bin}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		remote.EndMaster(ctx, opts)
		s.WaitNoProcesses(t)
	}()

	// The remote session really is without them: the loader would find empty files.
	hidden := remotetest.DesktopLibraries()
	check := exec.Command("ssh", "-F", s.Config, "-o", "BatchMode=yes", s.Dest, "wc -c "+strings.Join(hidden, " "))
	out, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("ssh wc -c: %v\n%s", err, out)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] != "total" && f[0] != "0" {
			t.Fatalf("the remote session still sees %s (%s bytes)", f[1], f[0])
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// What happened before the agent was built alone: the app's own binary, copied there,
	// does not start. Shown when a build of the app is at hand (bin/, as scripts/run.sh and
	// scripts/test.sh leave it; PHOENIX_APP_BINARY names another).
	app := os.Getenv("PHOENIX_APP_BINARY")
	if app == "" {
		app = filepath.Join("..", "..", "bin", "phoenix-desktop")
	}
	if _, err := os.Stat(app); err == nil {
		whole := opts
		whole.Binary = app
		c, err := remote.Dial(ctx, whole)
		if err == nil {
			c.Close()
			t.Errorf("the app's own binary %s started in the agent role without the desktop's libraries; the test hides nothing", app)
		} else if !strings.Contains(err.Error(), "a system library is missing") {
			t.Errorf("the app's own binary failed otherwise than for a missing library: %v", err)
		} else {
			t.Logf("the app's binary, as expected: %v", err)
		}
	} else {
		t.Logf("no build of the app at %s: the case of the app's own binary is not shown", app)
	}
	c, err := remote.Dial(ctx, opts)
	if err != nil {
		t.Fatalf("Dial with the agent built alone, on a machine without desktop libraries: %v", err)
	}
	defer c.Close()
	info := c.Info()
	if !info.Copied || info.Hello.PID == 0 {
		t.Errorf("info = %+v", info)
	}

	// The sandbox holds in the static build: the remote layers are this machine's.
	local := sandbox.Describe()
	remoteLayers := info.Hello.Layers
	if remoteLayers.Available != local.Available || remoteLayers.Project.Available != local.Project.Available {
		t.Errorf("the static agent's sandbox: available %v, Project %v; this machine's: %v, %v (%s)",
			remoteLayers.Available, remoteLayers.Project.Available, local.Available, local.Project.Available, remoteLayers.Reason)
	}
	active := func(l sandbox.Layers) map[string]bool {
		m := map[string]bool{}
		for _, x := range l.Layers {
			m[x.Name] = x.Active
		}
		return m
	}
	if got, want := active(remoteLayers), active(local); len(got) != len(want) {
		t.Errorf("layers of the static agent %v, of this machine %v", got, want)
	} else {
		for name, on := range want {
			// Which toolchain caches a command may write is the remote user's (its home),
			// not the build's.
			if name != "toolchain caches" && got[name] != on {
				t.Errorf("layer %q: active %v in the static agent, %v here", name, got[name], on)
			}
		}
	}

	proj := s.ProjectDir(t)
	where := remote.Call{Conversation: "conv", Cwd: proj, Mode: domain.ModeRestricted}
	run := func(command string) (string, domain.Outcome) {
		t.Helper()
		o, err := c.Run(ctx, where, domain.ToolCall{ID: "c" + command[:4], Name: domain.ToolBash,
			Arguments: `{"command":` + strconvQuote(command) + `}`})
		if err != nil {
			t.Fatalf("bash %q: %v", command, err)
		}
		return o.Content, o.Outcome
	}
	if text, outcome := run("echo ran-there; id -un"); outcome != domain.OutcomeSuccess || !strings.Contains(text, "ran-there") || !strings.Contains(text, remotetest.TestUser) {
		t.Errorf("bash through the static agent: %s %q", outcome, text)
	}
	if local.Available {
		if text, outcome := run("echo x > written.txt"); outcome == domain.OutcomeSuccess {
			t.Errorf("a Restricted write was not refused by the static agent's sandbox: %q", text)
		}
		if _, err := os.Stat(filepath.Join(proj, "written.txt")); err == nil {
			t.Errorf("written.txt exists on the remote side after a Restricted command")
		}
	}
	c.Close()
}

func strconvQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
