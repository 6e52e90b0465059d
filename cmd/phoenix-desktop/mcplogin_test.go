package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/phoenix-desktop/phoenix/mcp/mcptest"
)

// browserWriter is stdout with a person reading it: the address it prints is followed, as the
// browser would.
type browserWriter struct {
	t    *testing.T
	mu   sync.Mutex
	out  bytes.Buffer
	seen sync.WaitGroup
}

func (w *browserWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sc := bufio.NewScanner(bytes.NewReader(p))
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "http://") {
			w.seen.Add(1)
			go func() {
				defer w.seen.Done()
				mcptest.Browser(w.t)(line)
			}()
		}
	}
	return w.out.Write(p)
}

// Issue 26: `phoenix-desktop mcp login NAME` prints the sign-in address, takes the redirect on
// its loopback listener and keeps the tokens in the private secrets file (no Secret Service
// here), never in the configuration.
func TestMCPLoginCommand(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	cfg := filepath.Join(home, "mcp.json")
	conf := `{"mcpServers":{"web":{"url":"` + a.Endpoint() + `"}}}`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout := &browserWriter{t: t}
	var stderr bytes.Buffer
	err := runMCP([]string{"login", "--mcp-config", cfg, "web"}, stdout, &stderr)
	stdout.seen.Wait()
	if err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, stdout.out.String(), stderr.String())
	}
	if !strings.Contains(stdout.out.String(), "Signed in to web") {
		t.Fatalf("stdout: %s", stdout.out.String())
	}
	raw, err := os.ReadFile(filepath.Join(home, "config", "phoenix-desktop", "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries map[string]string
	if err := json.Unmarshal(raw, &entries); err != nil || !strings.Contains(entries["mcp-oauth "+a.Endpoint()], "refresh_token") {
		t.Fatalf("the secrets file holds %d entries (%v)", len(entries), err)
	}
	if after, _ := os.ReadFile(cfg); string(after) != conf {
		t.Fatalf("the configuration changed: %s", after)
	}

	if err := runMCP([]string{"login", "--mcp-config", cfg, "nope"}, &bytes.Buffer{}, &stderr); err == nil || !strings.Contains(err.Error(), "no MCP server of that name") {
		t.Fatalf("an unknown server: %v", err)
	}
}

// Issue 33: `mcp login --client-secret NAME` keeps the secret of the server's "oauth" client
// (from MCP_CLIENT_SECRET, as Claude Code reads it) in the private secrets file, never in the
// configuration, and signs in with that client where the authorization server registers
// nobody.
func TestMCPLoginWithClientSecret(t *testing.T) {
	a := mcptest.NewAuthServer(t)
	a.Clients = map[string]string{"desk-app": "s3cret"}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv(EnvMCPClientSecret, "s3cret")
	cfg := filepath.Join(home, "mcp.json")
	conf := `{"mcpServers":{"web":{"url":"` + a.Endpoint() + `","oauth":{"clientId":"desk-app"}}}}`
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout := &browserWriter{t: t}
	var stderr bytes.Buffer
	err := runMCPLogin([]string{"--mcp-config", cfg, "--client-secret", "web"}, strings.NewReader(""), stdout, &stderr)
	stdout.seen.Wait()
	if err != nil {
		t.Fatalf("%v\nstdout: %s\nstderr: %s", err, stdout.out.String(), stderr.String())
	}
	if _, clientIDs, _ := a.Seen(); strings.Join(clientIDs, ",") != "desk-app" {
		t.Fatalf("authorized %v", clientIDs)
	}
	raw, err := os.ReadFile(filepath.Join(home, "config", "phoenix-desktop", "secrets.json"))
	if err != nil || !strings.Contains(string(raw), "s3cret") {
		t.Fatalf("the secrets file does not hold the client secret (%v)", err)
	}
	if after, _ := os.ReadFile(cfg); string(after) != conf {
		t.Fatalf("the configuration changed: %s", after)
	}
}
