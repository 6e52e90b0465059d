package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/phoenix-desktop/phoenix/domain"
	"github.com/phoenix-desktop/phoenix/sandbox"
	"github.com/phoenix-desktop/phoenix/tools"
)

// fakeEnv switches the test binary into one of the fake servers of fakeServer.
const fakeEnv = "PHOENIX_LSP_FAKE_SERVER"

// TestMain lets the test binary act as the sandbox helper, as the app binary does, and as a
// fake language server that misbehaves.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeServer(mode))
	}
	os.Exit(m.Run())
}

// fakeServer is a language server that never works: "crash" dies at once with last words
// on stderr; "silent" reads its input and never answers; "probe" tries to read and write
// in its working directory and to write in the home directory, says what happened on
// stderr and exits.
func fakeServer(mode string) int {
	switch mode {
	case "crash":
		fmt.Fprintln(os.Stderr, "fake server: cannot allocate the symbol table")
		return 3
	case "silent":
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	case "mute":
		// Answers initialize, then never publishes a diagnostic.
		r := bufio.NewReader(os.Stdin)
		for {
			var n int
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return 0
				}
				if line == "\r\n" {
					break
				}
				fmt.Sscanf(line, "Content-Length: %d", &n)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return 0
			}
			var msg struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(body, &msg)
			if msg.Method == "initialize" {
				reply := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"capabilities":{}}}`, msg.ID)
				fmt.Printf("Content-Length: %d\r\n\r\n%s", len(reply), reply)
			}
		}
	case "probe":
		_, rerr := os.ReadFile("go.mod")
		werr := os.WriteFile("written-by-server", []byte("x"), 0o644)
		home, _ := os.UserHomeDir()
		herr := os.WriteFile(filepath.Join(home, ".phoenix-lsp-probe"), []byte("x"), 0o644)
		fmt.Fprintf(os.Stderr, "probe read=%v tree-write=%v home-write=%v\n", rerr == nil, werr == nil, herr == nil)
		fmt.Fprintln(os.Stderr, "errors:", rerr, werr, herr)
		return 4
	}
	return 2
}

// fakeSpec configures the test binary as a server of .fake files.
func fakeSpec(t testing.TB, mode string) Spec {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Spec{Name: "fake-" + mode, Command: exe, Env: map[string]string{fakeEnv: mode}, Languages: map[string]string{".fake": "fake"}}
}

// missing skips a test whose server or sandbox is not on this machine, and fails it in CI,
// where scripts/setup.sh installs them.
func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(why)
	}
	t.Skip(why)
}

func needProgram(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		missing(t, name+" is not installed; bash scripts/setup.sh installs it")
	}
}

func needSandbox(t testing.TB) {
	t.Helper()
	if st := sandbox.Probe(); !st.Available {
		missing(t, "Landlock is unavailable: "+st.Reason)
	}
}

func testEnv(t testing.TB, cwd string, mode domain.Mode) tools.Env {
	return tools.Env{Cwd: cwd, Mode: mode, TempDir: t.TempDir()}
}

// writeTree writes files (path → content) under a new directory and returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit replaces old with new in path and returns the text before.
func edit(t testing.TB, path, old, new string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before := string(data)
	if !strings.Contains(before, old) {
		t.Fatalf("%s does not contain %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(before, old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return before
}

// descendants lists the live processes below pid (zombies excluded), from /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var p int
		if _, err := fmt.Sscan(e.Name(), &p); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		var state string
		var ppid int
		if _, err := fmt.Sscan(s[i+1:], &state, &ppid); err != nil || state == "Z" {
			continue
		}
		parent[p] = ppid
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// alive reports whether a process exists and is not a zombie.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
